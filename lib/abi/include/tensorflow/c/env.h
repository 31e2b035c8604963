/* TensorFlow's environment C API: files, directories, clocks, threads and
 * shared libraries, as the host's Env provides them to a plugin. Of the
 * plugins sectl knows, only DirectML calls it (TF_LoadSharedLibrary). */
#ifndef TENSORFLOW_C_ENV_H_
#define TENSORFLOW_C_ENV_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/tf_status.h"

/* All of TensorFlow's tf_file_statistics.h, under its own include guard, so
 * that TensorFlow's header and this part never both apply. 24 bytes on LP64. */
#ifndef TENSORFLOW_C_TF_FILE_STATISTICS_H_
#define TENSORFLOW_C_TF_FILE_STATISTICS_H_
typedef struct TF_FileStatistics {
  int64_t length;     /* bytes */
  int64_t mtime_nsec; /* last modification, nanoseconds since the epoch */
  bool is_directory;
} TF_FileStatistics;
#endif /* TENSORFLOW_C_TF_FILE_STATISTICS_H_ */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TF_WritableFileHandle TF_WritableFileHandle;
typedef struct TF_StringStream TF_StringStream;
typedef struct TF_Thread TF_Thread;

/* 24 bytes on LP64. */
typedef struct TF_ThreadOptions {
  size_t stack_size; /* 0: the platform's default */
  size_t guard_size; /* 0: the platform's default */
  int numa_node;     /* -1: no preference */
} TF_ThreadOptions;

TF_CAPI_EXPORT extern void TF_CreateDir(const char* dirname, TF_Status* status);

TF_CAPI_EXPORT extern void TF_DeleteDir(const char* dirname, TF_Status* status);

TF_CAPI_EXPORT extern void TF_DeleteRecursively(const char* dirname, int64_t* undeleted_file_count,
                                                int64_t* undeleted_dir_count, TF_Status* status);

TF_CAPI_EXPORT extern void TF_FileStat(const char* filename, TF_FileStatistics* stats,
                                       TF_Status* status);

TF_CAPI_EXPORT extern void TF_NewWritableFile(const char* filename, TF_WritableFileHandle** handle,
                                              TF_Status* status);

TF_CAPI_EXPORT extern void TF_CloseWritableFile(TF_WritableFileHandle* handle, TF_Status* status);

TF_CAPI_EXPORT extern void TF_SyncWritableFile(TF_WritableFileHandle* handle, TF_Status* status);

TF_CAPI_EXPORT extern void TF_FlushWritableFile(TF_WritableFileHandle* handle, TF_Status* status);

TF_CAPI_EXPORT extern void TF_AppendWritableFile(TF_WritableFileHandle* handle, const char* data,
                                                 size_t length, TF_Status* status);

TF_CAPI_EXPORT extern void TF_DeleteFile(const char* filename, TF_Status* status);

/* Sets *result to the next string and returns true, or returns false at the
 * end. */
TF_CAPI_EXPORT extern bool TF_StringStreamNext(TF_StringStream* list, const char** result);

TF_CAPI_EXPORT extern void TF_StringStreamDone(TF_StringStream* list);

TF_CAPI_EXPORT extern TF_StringStream* TF_GetChildren(const char* filename, TF_Status* status);

TF_CAPI_EXPORT extern TF_StringStream* TF_GetLocalTempDirectories(void);

/* A unique file name for a temporary file; the caller frees it with free(). */
TF_CAPI_EXPORT extern char* TF_GetTempFileName(const char* extension);

TF_CAPI_EXPORT extern uint64_t TF_NowNanos(void);

TF_CAPI_EXPORT extern uint64_t TF_NowMicros(void);

TF_CAPI_EXPORT extern uint64_t TF_NowSeconds(void);

TF_CAPI_EXPORT extern void TF_DefaultThreadOptions(TF_ThreadOptions* options);

TF_CAPI_EXPORT extern TF_Thread* TF_StartThread(const TF_ThreadOptions* options,
                                                const char* thread_name, void (*work_func)(void*),
                                                void* param);

TF_CAPI_EXPORT extern void TF_JoinThread(TF_Thread* thread);

TF_CAPI_EXPORT extern void* TF_LoadSharedLibrary(const char* library_filename, TF_Status* status);

TF_CAPI_EXPORT extern void* TF_GetSymbolFromLibrary(void* handle, const char* symbol_name,
                                                    TF_Status* status);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* TENSORFLOW_C_ENV_H_ */
