/* A length-delimited block of bytes passed between TensorFlow and a plugin,
 * usually a serialized protocol buffer (a GraphDef, an OpList).
 *
 * Whoever sets `data` also sets `data_deallocator`; TF_DeleteBuffer calls it,
 * when it is not null, before freeing the TF_Buffer itself. Older TensorFlow
 * declared these in c_api.h, with the same names and layout. */
#ifndef TENSORFLOW_C_TF_BUFFER_H_
#define TENSORFLOW_C_TF_BUFFER_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api_macros.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 24 bytes on LP64. */
typedef struct TF_Buffer {
  const void* data;
  size_t length;
  void (*data_deallocator)(void* data, size_t length);
} TF_Buffer;

/* A new buffer holding a copy of proto[0, proto_len). */
TF_CAPI_EXPORT extern TF_Buffer* TF_NewBufferFromString(const void* proto, size_t proto_len);

/* A new, empty buffer: no data, length 0, no deallocator. */
TF_CAPI_EXPORT extern TF_Buffer* TF_NewBuffer(void);

/* Frees the buffer and, through its deallocator, its data. Accepts NULL. */
TF_CAPI_EXPORT extern void TF_DeleteBuffer(TF_Buffer*);

/* A copy of the struct (not of the bytes it points to). */
TF_CAPI_EXPORT extern TF_Buffer TF_GetBuffer(TF_Buffer* buffer);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* TENSORFLOW_C_TF_BUFFER_H_ */
