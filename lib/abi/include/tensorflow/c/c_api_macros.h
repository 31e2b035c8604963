/* Macros shared by TensorFlow's C APIs, as a plugin sees them.
 *
 * sectl ships this header at TensorFlow's include path so that plugin source
 * written against TensorFlow compiles unchanged against sectl alone. */
#ifndef TENSORFLOW_C_C_API_MACROS_H_
#define TENSORFLOW_C_C_API_MACROS_H_

#include <stddef.h>

#ifdef SWIG
#define TF_CAPI_EXPORT
#elif defined(_WIN32)
#ifdef TF_COMPILE_LIBRARY
#define TF_CAPI_EXPORT __declspec(dllexport)
#else
#define TF_CAPI_EXPORT __declspec(dllimport)
#endif
#else
#define TF_CAPI_EXPORT __attribute__((visibility("default")))
#endif

/* TensorFlow defines TF_Bool as a macro, not a typedef; plugins may test it
 * with #ifdef, so keep it a macro. One byte wide. */
#ifndef TF_Bool
#define TF_Bool unsigned char
#endif

/* The end of MEMBER inside TYPE: what every *_STRUCT_SIZE is defined as. */
#define TF_OFFSET_OF_END(TYPE, MEMBER) (offsetof(TYPE, MEMBER) + sizeof(((TYPE*)0)->MEMBER))

#endif /* TENSORFLOW_C_C_API_MACROS_H_ */
