// The rest of the TensorFlow C API a plugin may reference: tf_tensor.h,
// tf_datatype.h, tf_buffer.h, tf_shape.h, logging.h, env.h and the c_api.h /
// c_api_experimental.h functions of c_api_for_plugins.h.
//
// Implemented for real, because they are plain data helpers that need no
// TensorFlow runtime: TF_DataTypeSize, the four TF_Buffer functions,
// TF_TensorDefaultAlignment, TF_Log/TF_VLog/TF_DVLog (into sectl's bounded
// in-memory log, RecordedLogMessages; nothing is printed), TF_NowNanos/
// Micros/Seconds, TF_DefaultThreadOptions, TF_Version and
// TF_GetXlaAutoJitEnabled (sectl has no XLA, so auto-clustering is off).
//
// Everything else is a stand-in: it records the call (UnprovidedCalls), sets
// TF_UNIMPLEMENTED naming itself when it has a TF_Status*, clears
// single-value out-parameters and returns a zero value. sectl creates no
// tensors, shapes, files or threads, so none of these has an object to work
// on. None dereferences a handle it is given.

#include <algorithm>
#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>

#include "tensorflow/c/c_api_for_plugins.h"
#include "tensorflow/c/env.h"
#include "tensorflow/c/logging.h"
#include "tensorflow/c/tf_buffer.h"
#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_tensor.h"
#include "tf_c_api/recorded_registrations.h"

// Layouts the facts give for LP64 (docs/tf-module-c-api-facts.md §2, §9).
#if defined(__LP64__)
static_assert(sizeof(TF_Buffer) == 24);
static_assert(offsetof(TF_Buffer, length) == 8);
static_assert(offsetof(TF_Buffer, data_deallocator) == 16);
static_assert(TF_ALLOCATOR_ATTRIBUTES_STRUCT_SIZE == 9);
static_assert(sizeof(TF_AllocatorAttributes) == 16);
static_assert(sizeof(TF_StringView) == 16);
static_assert(sizeof(TF_ThreadOptions) == 24);
static_assert(sizeof(TF_FileStatistics) == 24);
#endif
static_assert(sizeof(TF_Bool) == 1);

namespace {

using sectl::tf_c_api::ClearOutParameter;
using sectl::tf_c_api::LogMessage;
using sectl::tf_c_api::NoteUnprovided;

// What TF_Version reports: the TensorFlow release whose C API sectl's headers
// reproduce (2.21 development, per the facts), marked as sectl's in the
// suffix, where TensorFlow puts "-rc0" or "-dev...".
constexpr const char* kReportedTensorFlowVersion = "2.21.0-sectl";

// tensorflow::Allocator::kAllocatorAlignment: what TensorFlow's allocators
// align tensor memory to (a multiple of every Eigen alignment).
constexpr size_t kTensorAlignment = 64;

// A C caller may pass any int as an enum; reading such a value as the enum is
// undefined in C++, so the bits are read as an int.
template <typename Enum>
int EnumValue(const Enum& value) {
  static_assert(sizeof(Enum) == sizeof(int));
  int bits = 0;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

// Formats a plugin's log message into the bounded log. A NULL format logs
// nothing, as it would print nothing useful in TensorFlow.
__attribute__((format(printf, 3, 0))) void RecordLog(LogMessage::Kind kind, int level,
                                                     const char* format, va_list arguments) {
  if (format == nullptr) {
    return;
  }
  char text[sectl::tf_c_api::kMaxRecordedStringBytes + 1] = {};
  // Every caller va_starts `arguments` first; the analyzer does not follow
  // a va_list into a function.
  // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
  const int length = std::vsnprintf(text, sizeof(text), format, arguments);
  if (length < 0) {
    return;  // an encoding error: nothing to keep
  }
  try {
    const size_t kept = std::min(static_cast<size_t>(length), sizeof(text) - 1);
    sectl::tf_c_api::RecordLogMessage(LogMessage{.kind = kind,
                                                 .level = level,
                                                 .text = std::string(text, kept),
                                                 .truncated = static_cast<size_t>(length) > kept});
  } catch (...) {
    // Out of memory for the copy: the message is lost.
  }
}

uint64_t NowNanos() {
  // TensorFlow's EnvTime reads the realtime clock, not a monotonic one.
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(now.tv_nsec);
}

}  // namespace

extern "C" {

// The deallocator of the bytes TF_NewBufferFromString copies. Declared in the
// extern "C" block so its type matches TF_Buffer's C function pointer.
static void DeleteCopiedBytes(void* data, size_t /*length*/) {
  std::unique_ptr<char[]> owned(static_cast<char*>(data));
}

// tf_datatype.h: implemented.

size_t TF_DataTypeSize(TF_DataType dt) {
  // TensorFlow's DataTypeSize: sizeof the C++ element type, 0 for types
  // without one. The 4- and 2-bit integers are stored one per byte.
  switch (EnumValue(dt)) {
    case TF_BOOL:
    case TF_INT8:
    case TF_UINT8:
    case TF_QINT8:
    case TF_QUINT8:
    case TF_FLOAT8_E5M2:
    case TF_FLOAT8_E4M3FN:
    case TF_FLOAT8_E4M3FNUZ:
    case TF_FLOAT8_E4M3B11FNUZ:
    case TF_FLOAT8_E5M2FNUZ:
    case TF_INT4:
    case TF_UINT4:
    case TF_INT2:
    case TF_UINT2:
      return 1;
    case TF_INT16:
    case TF_UINT16:
    case TF_QINT16:
    case TF_QUINT16:
    case TF_HALF:
    case TF_BFLOAT16:
      return 2;
    case TF_FLOAT:
    case TF_INT32:
    case TF_UINT32:
    case TF_QINT32:
      return 4;
    case TF_DOUBLE:
    case TF_INT64:
    case TF_UINT64:
    case TF_COMPLEX64:
      return 8;
    case TF_COMPLEX128:
      return 16;
    default:  // TF_STRING, TF_RESOURCE, TF_VARIANT and numbers naming no type
      return 0;
  }
}

// tf_buffer.h: implemented.

TF_Buffer* TF_NewBufferFromString(const void* proto, size_t proto_len) {
  try {
    auto buffer = std::make_unique<TF_Buffer>();
    // TensorFlow copies from a NULL proto and crashes; sectl gives an empty
    // buffer.
    if (proto != nullptr && proto_len > 0) {
      auto bytes = std::make_unique_for_overwrite<char[]>(proto_len);
      std::memcpy(bytes.get(), proto, proto_len);
      // Handed to the C struct; DeleteCopiedBytes takes it back.
      buffer->data = bytes.release();
      buffer->length = proto_len;
      buffer->data_deallocator = DeleteCopiedBytes;
    }
    return buffer.release();  // the caller's, until TF_DeleteBuffer
  } catch (...) {
    return nullptr;  // out of memory
  }
}

TF_Buffer* TF_NewBuffer(void) {
  try {
    return std::make_unique<TF_Buffer>().release();  // the caller's, until TF_DeleteBuffer
  } catch (...) {
    return nullptr;
  }
}

void TF_DeleteBuffer(TF_Buffer* buffer) {
  std::unique_ptr<TF_Buffer> owned(buffer);
  if (owned == nullptr || owned->data_deallocator == nullptr) {
    return;
  }
  try {
    owned->data_deallocator(const_cast<void*>(owned->data), owned->length);
  } catch (...) {
    // A deallocator written in C++ threw; it must not unwind into C.
  }
}

TF_Buffer TF_GetBuffer(TF_Buffer* buffer) { return buffer != nullptr ? *buffer : TF_Buffer{}; }

// tf_tensor.h: stand-ins, except TF_TensorDefaultAlignment.

TF_Tensor* TF_NewTensor(TF_DataType /*dtype*/, const int64_t* /*dims*/, int /*num_dims*/,
                        void* data, size_t len,
                        void (*deallocator)(void* data, size_t len, void* arg),
                        void* deallocator_arg) {
  NoteUnprovided(__func__, nullptr);
  // TensorFlow owns `data` from the call on, even when it returns NULL, and
  // then releases it at once; so does sectl, or the plugin's memory leaks.
  if (deallocator != nullptr) {
    try {
      deallocator(data, len, deallocator_arg);
    } catch (...) {
      // A deallocator written in C++ threw; it must not unwind into C.
    }
  }
  return nullptr;
}

size_t TF_TensorDefaultAlignment(void) { return kTensorAlignment; }

TF_Tensor* TF_AllocateTensor(TF_DataType /*dtype*/, const int64_t* /*dims*/, int /*num_dims*/,
                             size_t /*len*/) {
  NoteUnprovided(__func__, nullptr);
  return nullptr;
}

TF_Tensor* TF_TensorMaybeMove(TF_Tensor* /*tensor*/) {
  NoteUnprovided(__func__, nullptr);
  return nullptr;
}

void TF_DeleteTensor(TF_Tensor* /*tensor*/) { NoteUnprovided(__func__, nullptr); }

TF_DataType TF_TensorType(const TF_Tensor* /*tensor*/) {
  NoteUnprovided(__func__, nullptr);
  return static_cast<TF_DataType>(0);
}

void TF_SetShape(TF_Tensor* /*tensor*/, const int64_t* /*dims*/, int /*num_dims*/) {
  NoteUnprovided(__func__, nullptr);
}

int TF_NumDims(const TF_Tensor* /*tensor*/) {
  NoteUnprovided(__func__, nullptr);
  return 0;
}

int64_t TF_Dim(const TF_Tensor* /*tensor*/, int /*dim_index*/) {
  NoteUnprovided(__func__, nullptr);
  return 0;
}

size_t TF_TensorByteSize(const TF_Tensor* /*tensor*/) {
  NoteUnprovided(__func__, nullptr);
  return 0;
}

void* TF_TensorData(const TF_Tensor* /*tensor*/) {
  NoteUnprovided(__func__, nullptr);
  return nullptr;
}

int64_t TF_TensorElementCount(const TF_Tensor* /*tensor*/) {
  NoteUnprovided(__func__, nullptr);
  return 0;
}

void TF_TensorBitcastFrom(const TF_Tensor* /*from*/, TF_DataType /*type*/, TF_Tensor* /*to*/,
                          const int64_t* /*new_dims*/, int /*num_new_dims*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
}

bool TF_TensorIsAligned(const TF_Tensor* /*tensor*/) {
  NoteUnprovided(__func__, nullptr);
  return false;
}

// tf_shape.h (declared in c_api_for_plugins.h): stand-ins.

TF_Shape* TF_NewShape(void) {
  NoteUnprovided(__func__, nullptr);
  return nullptr;
}

int TF_ShapeDims(const TF_Shape* /*shape*/) {
  NoteUnprovided(__func__, nullptr);
  return 0;
}

int64_t TF_ShapeDimSize(const TF_Shape* /*shape*/, int /*d*/) {
  NoteUnprovided(__func__, nullptr);
  return 0;
}

void TF_DeleteShape(TF_Shape* /*shape*/) { NoteUnprovided(__func__, nullptr); }

// logging.h: implemented. TensorFlow ends the process on TF_FATAL; sectl keeps
// the message, so that it can report it, and returns.

void TF_Log(TF_LogLevel level, const char* fmt, ...) {
  const int severity = EnumValue(level);
  if (severity < TF_INFO || severity > TF_FATAL) {
    return;  // TensorFlow ignores levels it does not know
  }
  va_list arguments;
  va_start(arguments, fmt);
  RecordLog(LogMessage::Kind::kLog, severity, fmt, arguments);
  va_end(arguments);
}

void TF_VLog(int level, const char* fmt, ...) {
  va_list arguments;
  va_start(arguments, fmt);
  RecordLog(LogMessage::Kind::kVLog, level, fmt, arguments);
  va_end(arguments);
}

void TF_DVLog(int level, const char* fmt, ...) {
  va_list arguments;
  va_start(arguments, fmt);
  RecordLog(LogMessage::Kind::kDVLog, level, fmt, arguments);
  va_end(arguments);
}

// env.h: stand-ins, except the clocks and TF_DefaultThreadOptions.

void TF_CreateDir(const char* /*dirname*/, TF_Status* status) { NoteUnprovided(__func__, status); }

void TF_DeleteDir(const char* /*dirname*/, TF_Status* status) { NoteUnprovided(__func__, status); }

void TF_DeleteRecursively(const char* /*dirname*/, int64_t* undeleted_file_count,
                          int64_t* undeleted_dir_count, TF_Status* status) {
  ClearOutParameter(undeleted_file_count);
  ClearOutParameter(undeleted_dir_count);
  NoteUnprovided(__func__, status);
}

void TF_FileStat(const char* /*filename*/, TF_FileStatistics* /*stats*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
}

void TF_NewWritableFile(const char* /*filename*/, TF_WritableFileHandle** handle,
                        TF_Status* status) {
  ClearOutParameter(handle);
  NoteUnprovided(__func__, status);
}

void TF_CloseWritableFile(TF_WritableFileHandle* /*handle*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
}

void TF_SyncWritableFile(TF_WritableFileHandle* /*handle*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
}

void TF_FlushWritableFile(TF_WritableFileHandle* /*handle*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
}

void TF_AppendWritableFile(TF_WritableFileHandle* /*handle*/, const char* /*data*/,
                           size_t /*length*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
}

void TF_DeleteFile(const char* /*filename*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
}

bool TF_StringStreamNext(TF_StringStream* /*list*/, const char** result) {
  ClearOutParameter(result);
  NoteUnprovided(__func__, nullptr);
  return false;
}

void TF_StringStreamDone(TF_StringStream* /*list*/) { NoteUnprovided(__func__, nullptr); }

TF_StringStream* TF_GetChildren(const char* /*filename*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
  return nullptr;
}

TF_StringStream* TF_GetLocalTempDirectories(void) {
  NoteUnprovided(__func__, nullptr);
  return nullptr;
}

char* TF_GetTempFileName(const char* /*extension*/) {
  NoteUnprovided(__func__, nullptr);
  return nullptr;
}

uint64_t TF_NowNanos(void) { return NowNanos(); }

uint64_t TF_NowMicros(void) { return NowNanos() / 1'000u; }

uint64_t TF_NowSeconds(void) { return NowNanos() / 1'000'000'000u; }

void TF_DefaultThreadOptions(TF_ThreadOptions* options) {
  if (options != nullptr) {
    // TensorFlow's defaults: the platform's stack and guard sizes, no NUMA
    // node preference.
    *options = TF_ThreadOptions{.stack_size = 0, .guard_size = 0, .numa_node = -1};
  }
}

TF_Thread* TF_StartThread(const TF_ThreadOptions* /*options*/, const char* /*thread_name*/,
                          void (* /*work_func*/)(void*), void* /*param*/) {
  NoteUnprovided(__func__, nullptr);
  return nullptr;
}

void TF_JoinThread(TF_Thread* /*thread*/) { NoteUnprovided(__func__, nullptr); }

void* TF_LoadSharedLibrary(const char* /*library_filename*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
  return nullptr;
}

void* TF_GetSymbolFromLibrary(void* /*handle*/, const char* /*symbol_name*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
  return nullptr;
}

// c_api.h and c_api_experimental.h (c_api_for_plugins.h).

const char* TF_Version(void) { return kReportedTensorFlowVersion; }

void TF_TensorFromProto(const TF_Buffer* /*from*/, TF_Tensor* /*to*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
}

// The two list functions hand back an empty buffer rather than NULL: callers
// (TensorFlow's own tests, ITEX) parse the result without checking it, and an
// empty buffer parses as an empty list.
TF_Buffer* TF_GetAllOpList(void) {
  NoteUnprovided(__func__, nullptr);
  return TF_NewBuffer();
}

TF_Buffer* TF_GetRegisteredKernelsForOp(const char* /*name*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
  return TF_NewBuffer();
}

int TF_OpIsStateful(const char* /*op_type*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
  return 0;
}

unsigned char TF_GetXlaAutoJitEnabled(void) { return 0; }

}  // extern "C"
