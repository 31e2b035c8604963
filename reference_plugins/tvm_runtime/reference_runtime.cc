// sectl's reference TVM runtime: the C entry points of TVM's runtime up to
// v0.20 (c_runtime_api.h, c_backend_api.h; see docs/tvm-runtime-abi.md),
// written from those facts over host memory, for `sectl conform --profile
// tvm-device-api` and `sectl probe` to be tested against. It is not TVM:
// it serves two device types, cpu (1, devices 0 and 1) and ext_dev (12,
// device 0, a fake accelerator with GPU-like attributes), with
//
//   - data space from posix_memalign, honouring every power-of-two alignment
//     (on cpu, as TVM's CPU backend, none below sizeof(void*));
//   - streams that are worker threads (copies on them are asynchronous; the
//     null stream copies at once, as TVM's CPU backend does);
//   - a workspace pool of 4 KiB pages that reuses freed blocks;
//   - 1 GiB of "global memory" whose available part falls by what is held;
//   - errors as TVM reports them: -1 and a message in TVMGetLastError.
//
// Built once correct and once per FAULT_* macro (faults.h), each seeding one
// defect that exactly one tvm_device_api.* check catches.
//
// The last error is process-wide rather than per thread (TVM's is
// thread-local): a library sectl dlopens may not use thread_local.
#include <dlpack/dlpack.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "faults.h"

#define EXPORT extern "C" __attribute__((visibility("default")))

namespace {

constexpr int64_t kTotalMemory = int64_t{1} << 30;
constexpr size_t kWorkspacePage = 4096;
constexpr size_t kWorkspaceAlignment = 64;  // kTempAllocaAlignment

// TVMArgTypeCode values this runtime uses (c_runtime_api.h, v0.20).
constexpr int kArgInt = 0;
constexpr int kNullptr = 4;
constexpr int kStr = 11;

union Value {
  int64_t v_int64;
  double v_float64;
  void* v_handle;
  const char* v_str;
  DLDataType v_type;
  DLDevice v_device;
};

std::mutex error_mutex;
std::string last_error;

int Failure(const std::string& message) {
  std::lock_guard<std::mutex> lock(error_mutex);
  last_error = message;
  return -1;
}

bool IsPowerOfTwo(size_t value) { return value != 0 && (value & (value - 1)) == 0; }

// --- device types -----------------------------------------------------------

bool Serves(int device_type) { return device_type == kDLCPU || device_type == kDLExtDev; }

int DeviceCount(int device_type) {
  if (device_type == kDLCPU) return 2;
  if (device_type == kDLExtDev) return 1;
  return 0;
}

bool Exists(int device_type, int device_id) {
#ifdef FAULT_EXIST_BEYOND_COUNT
  if (device_type == kDLCPU && device_id == DeviceCount(device_type)) return true;
#endif
  return device_id >= 0 && device_id < DeviceCount(device_type);
}

std::string CheckDevice(int device_type, int device_id) {
  if (!Serves(device_type)) {
    return "Device API " + std::to_string(device_type) + " is not enabled.";
  }
  if (device_id < 0 || device_id >= DeviceCount(device_type)) {
    return "device " + std::to_string(device_id) + " of type " + std::to_string(device_type) +
           " does not exist";
  }
  return {};
}

// --- memory -----------------------------------------------------------------

struct Allocation {
  void* base;  // what posix_memalign returned
  size_t bytes;
};

std::mutex memory_mutex;
std::map<void*, Allocation> allocations;  // by the pointer handed out
int64_t bytes_held = 0;

int64_t Available() {
  std::lock_guard<std::mutex> lock(memory_mutex);
#ifdef FAULT_AVAILABLE_NEVER_CHANGES
  return kTotalMemory;
#else
  return kTotalMemory - bytes_held;
#endif
}

// The pointer, or null with the reason in `error`. `strict`: as TVM's CPU
// backend, which hands the alignment to posix_memalign unchanged, so that
// one below sizeof(void*) fails.
void* Allocate(size_t bytes, size_t alignment, bool strict, std::string& error) {
  if (!IsPowerOfTwo(alignment)) {
    error = "alignment " + std::to_string(alignment) + " is not a power of two";
    return nullptr;
  }
  if (strict && alignment < sizeof(void*)) {
    error = "std::bad_alloc (posix_memalign rejects alignment " + std::to_string(alignment) + ")";
    return nullptr;
  }
  {
    std::lock_guard<std::mutex> lock(memory_mutex);
    if (bytes > static_cast<uint64_t>(kTotalMemory - bytes_held)) {
      error = "out of memory: " + std::to_string(bytes) + " bytes asked, " +
              std::to_string(kTotalMemory - bytes_held) + " available";
      return nullptr;
    }
  }
  size_t skew = 0;  // bytes between the aligned block and what is handed out
  size_t block_alignment = alignment < sizeof(void*) ? sizeof(void*) : alignment;
#ifdef FAULT_MISALIGNED_4096
  if (bytes == 4096) skew = 16;  // one size class loses its alignment
#endif
#ifdef FAULT_ALIGNMENT_ONLY_64
  if (alignment > 64) {  // aligned to 64 but never to more
    block_alignment = 256;
    skew = 64;
  }
#endif
  void* base = nullptr;
  if (posix_memalign(&base, block_alignment, (bytes == 0 ? 1 : bytes) + skew) != 0) {
    error = "posix_memalign failed for " + std::to_string(bytes) + " bytes";
    return nullptr;
  }
  void* pointer = static_cast<char*>(base) + skew;
  std::lock_guard<std::mutex> lock(memory_mutex);
  allocations[pointer] = {base, bytes};
  bytes_held += static_cast<int64_t>(bytes);
  return pointer;
}

bool Release(void* pointer) {
  std::lock_guard<std::mutex> lock(memory_mutex);
  auto found = allocations.find(pointer);
  if (found == allocations.end()) return false;
  bytes_held -= static_cast<int64_t>(found->second.bytes);
  // posix_memalign's memory goes back through free.
  // NOLINTNEXTLINE(cppcoreguidelines-no-malloc,cppcoreguidelines-owning-memory)
  std::free(found->second.base);
  allocations.erase(found);
  return true;
}

// The allocation holding [pointer, pointer + bytes), or false.
bool Holds(const void* pointer, size_t bytes) {
  std::lock_guard<std::mutex> lock(memory_mutex);
  auto after = allocations.upper_bound(const_cast<void*>(pointer));
  if (after == allocations.begin()) return false;
  const auto& [start, allocation] = *std::prev(after);
  const auto* begin = static_cast<const char*>(start);
  const auto* at = static_cast<const char*>(pointer);
  return at >= begin && at + bytes <= begin + std::max<size_t>(allocation.bytes, 1);
}

// --- streams ----------------------------------------------------------------

// A queue of work run in order. A worker thread runs it when the stream was
// created by TVMStreamCreate; the null stream runs work at once.
class Stream {
 public:
  explicit Stream(bool asynchronous) {
    if (asynchronous) worker_ = std::thread([this] { Run(); });
  }
  ~Stream() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (worker_.joinable()) worker_.join();
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  bool asynchronous() const { return worker_.joinable(); }

  // The ticket of the submitted work, for Wait.
  uint64_t Submit(std::function<void()> work) {
    if (!asynchronous()) {
      work();
      std::lock_guard<std::mutex> lock(mutex_);
      ++submitted_;
      completed_ = submitted_;
      return submitted_;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(work));
    wake_.notify_all();
    return ++submitted_;
  }
  uint64_t submitted() {
    std::lock_guard<std::mutex> lock(mutex_);
    return submitted_;
  }
  // Blocks until the work up to `ticket` has run.
  void Wait(uint64_t ticket) {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return completed_ >= ticket; });
  }
  void Drain() { Wait(submitted()); }

 private:
  void Run() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, with nothing left
      auto work = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
#ifdef FAULT_IGNORES_STREAM_DEPENDENCY
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
#endif
      work();
      lock.lock();
      ++completed_;
      done_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  std::deque<std::function<void()>> queue_;
  uint64_t submitted_ = 0;
  uint64_t completed_ = 0;
  bool stopping_ = false;
  std::thread worker_;
};

std::mutex stream_mutex;
std::set<Stream*> live_streams;
std::map<std::pair<int, int>, void*> current_streams;  // TVMSetStream's

Stream& DefaultStream() {
#ifdef FAULT_READS_HOST_BUFFER_LATE
  static Stream stream(true);  // the null stream queues, too
#else
  static Stream stream(false);
#endif
  return stream;
}

// The stream behind a handle, or null when it is not a live stream.
Stream* StreamOf(void* handle) {
  if (handle == nullptr) return &DefaultStream();
  std::lock_guard<std::mutex> lock(stream_mutex);
  auto* stream = static_cast<Stream*>(handle);
  return live_streams.count(stream) != 0 ? stream : nullptr;
}

// --- workspace pool ---------------------------------------------------------

struct Block {
  void* pointer;
  size_t bytes;
  int users;
};

std::mutex pool_mutex;
std::vector<Block> pool;  // every block the pool has, in use or free

void* TakeWorkspace(size_t bytes, std::string& error) {
  const size_t rounded =
      bytes == 0 ? kWorkspacePage : (bytes + kWorkspacePage - 1) / kWorkspacePage * kWorkspacePage;
  std::lock_guard<std::mutex> lock(pool_mutex);
  for (Block& block : pool) {
#ifdef FAULT_WORKSPACE_SHARED_BLOCK
    const bool usable = block.bytes == rounded;  // even while in use
#else
    const bool usable = block.users == 0 && block.bytes >= rounded;
#endif
    if (usable) {
      ++block.users;
      std::lock_guard<std::mutex> memory(memory_mutex);
      bytes_held += static_cast<int64_t>(block.bytes);
      return block.pointer;
    }
  }
  void* pointer = Allocate(rounded, kWorkspaceAlignment, false, error);
  if (pointer == nullptr) return nullptr;
  pool.push_back({pointer, rounded, 1});
  return pointer;
}

bool GiveBackWorkspace(void* pointer) {
  std::lock_guard<std::mutex> lock(pool_mutex);
  for (Block& block : pool) {
    if (block.pointer == pointer && block.users > 0) {
#ifndef FAULT_WORKSPACE_NEVER_REUSED
      --block.users;
      // A free block of the pool is not memory in use.
      std::lock_guard<std::mutex> memory(memory_mutex);
      bytes_held -= static_cast<int64_t>(block.bytes);
#else
      block.users = -1;  // neither free nor reused: leaked
#endif
      return true;
    }
  }
  return false;
}

// --- attributes -------------------------------------------------------------

// runtime.GetDeviceAttr's answer: an integer, a string, or None.
struct Attribute {
  int code = kNullptr;
  int64_t number = 0;
  std::string text;
};

Attribute Number(int64_t value) { return {kArgInt, value, {}}; }
Attribute Text(std::string value) { return {kStr, 0, std::move(value)}; }

Attribute AttributeOf(int device_type, int device_id, int kind) {
  switch (kind) {
    case 0:  // kExist
      return Number(Exists(device_type, device_id) ? 1 : 0);
    case 5:  // kDeviceName
      return Text(device_type == kDLCPU ? "sectl reference cpu" : "sectl reference ext_dev");
    case 14:  // kTotalGlobalMemory
      return Number(kTotalMemory);
    case 15:  // kAvailableGlobalMemory
      return Number(Available());
    default:
      break;
  }
  if (device_type != kDLExtDev) return {};  // None, as TVM's CPU backend leaves most
  switch (kind) {
    case 1:  // kMaxThreadsPerBlock
      return Number(1024);
    case 2:  // kWarpSize
      return Number(32);
    case 3:  // kMaxSharedMemoryPerBlock
      return Number(49152);
    case 4:  // kComputeVersion
      return Text("1.0");
    case 6:  // kMaxClockRate
      return Number(1000000);
    case 7:  // kMultiProcessorCount
      return Number(4);
    case 8:  // kMaxThreadDimensions
      return Text("[1024, 1024, 64]");
    default:
      return {};
  }
}

// The one global function this runtime has, and its handle.
struct GlobalFunction {
  const char* name;
};
const GlobalFunction get_device_attr{"runtime.GetDeviceAttr"};

std::mutex return_mutex;
std::string returned_text;  // what a kStr result points into

// --- copies -----------------------------------------------------------------

size_t TensorBytes(const DLTensor& tensor) {
  size_t count = 1;
  for (int i = 0; i < tensor.ndim; ++i) count *= static_cast<size_t>(tensor.shape[i]);
  return count * ((tensor.dtype.bits * tensor.dtype.lanes + 7) / 8);
}

bool Contiguous(const DLTensor& tensor) {
  if (tensor.strides == nullptr) return true;
  int64_t expected = 1;
  for (int i = tensor.ndim - 1; i >= 0; --i) {
    if (tensor.shape[i] != 1 && tensor.strides[i] != expected) return false;
    expected *= tensor.shape[i];
  }
  return true;
}

// Whether `tensor` is device memory of this runtime rather than host memory.
bool OnDevice(const DLTensor& tensor, const DLDevice& device) {
  return tensor.device.device_type == device.device_type &&
         Holds(static_cast<char*>(tensor.data) + tensor.byte_offset, 0);
}

}  // namespace

// --- the C API ----------------------------------------------------------------

EXPORT const char* TVMGetLastError(void) {
  std::lock_guard<std::mutex> lock(error_mutex);
  return last_error.c_str();
}

EXPORT void TVMAPISetLastError(const char* message) { Failure(message == nullptr ? "" : message); }

EXPORT int TVMDeviceAllocDataSpace(DLDevice dev, size_t nbytes, size_t alignment,
                                   DLDataType /*type_hint*/, void** out_data) {
  if (out_data == nullptr) return Failure("TVMDeviceAllocDataSpace: out_data is null");
  if (auto problem = CheckDevice(dev.device_type, dev.device_id); !problem.empty()) {
    return Failure(problem);
  }
  std::string error;
  void* pointer = Allocate(nbytes, alignment, dev.device_type == kDLCPU, error);
  if (pointer == nullptr) {
#ifdef FAULT_SILENT_ALLOCATION_FAILURE
    if (error.rfind("out of memory", 0) == 0) {
      *out_data = nullptr;
      return 0;  // the failure is swallowed: the caller gets null and no error
    }
#endif
    return Failure("AllocDataSpace: " + error);
  }
  *out_data = pointer;
  return 0;
}

EXPORT int TVMDeviceAllocDataSpaceWithScope(DLDevice dev, int ndim, const int64_t* shape,
                                            DLDataType dtype, const char* mem_scope,
                                            void** out_data) {
  if (mem_scope != nullptr && std::strcmp(mem_scope, "global") != 0) {
    return Failure(std::string("AllocDataSpace: unknown memory scope \"") + mem_scope + "\"");
  }
  size_t count = 1;
  for (int i = 0; i < ndim; ++i) count *= static_cast<size_t>(shape[i]);
  const size_t element = (dtype.bits * dtype.lanes + 7) / 8;
  return TVMDeviceAllocDataSpace(dev, count * element, std::max<size_t>(64, element), dtype,
                                 out_data);
}

EXPORT int TVMDeviceFreeDataSpace(DLDevice dev, void* ptr) {
  if (auto problem = CheckDevice(dev.device_type, dev.device_id); !problem.empty()) {
    return Failure(problem);
  }
  if (ptr == nullptr) return 0;
  if (!Release(ptr)) return Failure("FreeDataSpace: pointer was not allocated here");
  return 0;
}

EXPORT int TVMDeviceCopyDataFromTo(DLTensor* from, DLTensor* to, void* stream) {
  if (from == nullptr || to == nullptr) return Failure("CopyDataFromTo: a tensor is null");
  const size_t bytes = TensorBytes(*from);
  if (bytes != TensorBytes(*to)) {
    return Failure("CopyDataFromTo: the tensors' byte sizes differ (" + std::to_string(bytes) +
                   " and " + std::to_string(TensorBytes(*to)) + ")");
  }
  if (!Contiguous(*from) || !Contiguous(*to)) {
    return Failure("CopyDataFromTo: only contiguous tensors can be copied");
  }
  // As TVM does: the device of the side that is not the CPU, else the target's.
  const DLDevice device = from->device.device_type != kDLCPU ? from->device : to->device;
  for (const DLTensor* side : {from, to}) {
    if (side->device.device_type != kDLCPU && side->device.device_type != device.device_type) {
      return Failure("CopyDataFromTo: copies between two device types need the CPU on one side");
    }
  }
  if (auto problem = CheckDevice(device.device_type, device.device_id); !problem.empty()) {
    return Failure(problem);
  }
  Stream* queue = StreamOf(stream);
  if (queue == nullptr) return Failure("CopyDataFromTo: not a stream of this runtime");
  const char* source = static_cast<const char*>(from->data) + from->byte_offset;
  char* target = static_cast<char*>(to->data) + to->byte_offset;
  const bool source_on_device = OnDevice(*from, device);
  const bool target_on_device = OnDevice(*to, device);
#ifdef FAULT_DTOD_IGNORES_TARGET_OFFSET
  if (source_on_device && target_on_device) target = static_cast<char*>(to->data);
#endif
  if (source_on_device && !Holds(source, bytes)) {
    return Failure("CopyDataFromTo: the source range lies outside its allocation");
  }
  if (target_on_device && !Holds(target, bytes)) {
    return Failure("CopyDataFromTo: the target range lies outside its allocation");
  }
  if (queue->asynchronous() && !source_on_device) {
#ifdef FAULT_READS_HOST_BUFFER_LATE
    // The host buffer is read when the copy runs, after the call returned.
    queue->Submit([=] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      std::memcpy(target, source, bytes);
    });
#else
    // TVM's rule: the host buffer may be reused once the call returns.
    auto staged = std::make_shared<std::vector<char>>(source, source + bytes);
    queue->Submit([=] { std::memcpy(target, staged->data(), bytes); });
#endif
    return 0;
  }
  queue->Submit([=] { std::memmove(target, source, bytes); });
  return 0;
}

EXPORT int TVMStreamCreate(int device_type, int device_id, void** out) {
  if (out == nullptr) return Failure("TVMStreamCreate: out is null");
  if (auto problem = CheckDevice(device_type, device_id); !problem.empty()) {
    return Failure(problem);
  }
  // The handle is the stream's address, owned by the caller until TVMStreamFree.
  // NOLINTNEXTLINE(cppcoreguidelines-owning-memory)
  auto* stream = new Stream(true);
  std::lock_guard<std::mutex> lock(stream_mutex);
  live_streams.insert(stream);
  *out = stream;
  return 0;
}

EXPORT int TVMStreamFree(int device_type, int device_id, void* stream) {
  if (auto problem = CheckDevice(device_type, device_id); !problem.empty()) {
    return Failure(problem);
  }
  if (stream == nullptr) return 0;
  auto* owned = static_cast<Stream*>(stream);
  {
    std::lock_guard<std::mutex> lock(stream_mutex);
    if (live_streams.erase(owned) == 0) return Failure("TVMStreamFree: not a live stream");
    for (auto& [device, current] : current_streams) {
      if (current == stream) current = nullptr;
    }
  }
  owned->Drain();
  delete owned;  // NOLINT(cppcoreguidelines-owning-memory): made by TVMStreamCreate
  return 0;
}

EXPORT int TVMSetStream(int device_type, int device_id, void* handle) {
  if (auto problem = CheckDevice(device_type, device_id); !problem.empty()) {
    return Failure(problem);
  }
  if (StreamOf(handle) == nullptr) return Failure("TVMSetStream: not a live stream");
#ifdef FAULT_SET_STREAM_REJECTS_STREAMS
  if (handle != nullptr) return Failure("TVMSetStream: only the default stream is supported");
#endif
  std::lock_guard<std::mutex> lock(stream_mutex);
  current_streams[{device_type, device_id}] = handle;
  return 0;
}

EXPORT int TVMSynchronize(int device_type, int device_id, void* stream) {
  if (auto problem = CheckDevice(device_type, device_id); !problem.empty()) {
    return Failure(problem);
  }
  Stream* queue = StreamOf(stream);
  if (queue == nullptr) return Failure("TVMSynchronize: not a live stream");
  queue->Drain();
  return 0;
}

EXPORT int TVMStreamStreamSynchronize(int device_type, int device_id, void* src, void* dst) {
  if (auto problem = CheckDevice(device_type, device_id); !problem.empty()) {
    return Failure(problem);
  }
  Stream* source = StreamOf(src);
  Stream* target = StreamOf(dst);
  if (source == nullptr || target == nullptr) {
    return Failure("TVMStreamStreamSynchronize: not a live stream");
  }
#ifndef FAULT_IGNORES_STREAM_DEPENDENCY
  if (source != target) {
    const uint64_t ticket = source->submitted();
    if (target->asynchronous()) {
      target->Submit([source, ticket] { source->Wait(ticket); });
    } else {
      source->Wait(ticket);  // the null stream runs at once: wait here
    }
  }
#endif
  return 0;
}

EXPORT void* TVMBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes,
                                      int /*dtype_code_hint*/, int /*dtype_bits_hint*/) {
  if (auto problem = CheckDevice(device_type, device_id); !problem.empty()) {
    Failure(problem);
    return nullptr;
  }
  std::string error;
  void* pointer = TakeWorkspace(nbytes, error);
  if (pointer == nullptr) Failure("AllocWorkspace: " + error);
  return pointer;
}

EXPORT int TVMBackendFreeWorkspace(int device_type, int device_id, void* ptr) {
  if (auto problem = CheckDevice(device_type, device_id); !problem.empty()) {
    return Failure(problem);
  }
  if (!GiveBackWorkspace(ptr)) {
    return Failure("FreeWorkspace: trying to free things that has not been allocated");
  }
  return 0;
}

EXPORT int TVMFuncGetGlobal(const char* name, void** out) {
  if (name == nullptr || out == nullptr) return Failure("TVMFuncGetGlobal: null argument");
  *out = std::strcmp(name, get_device_attr.name) == 0
             ? const_cast<GlobalFunction*>(&get_device_attr)
             : nullptr;
  return 0;
}

EXPORT int TVMFuncFree(void* /*func*/) { return 0; }  // globals are never freed

EXPORT int TVMFuncCall(void* func, Value* args, int* type_codes, int num_args, Value* ret_val,
                       int* ret_type_code) {
  if (func != &get_device_attr) return Failure("TVMFuncCall: not a function of this runtime");
  if (num_args != 3) {
    return Failure("runtime.GetDeviceAttr expects 3 arguments, got " + std::to_string(num_args));
  }
  for (int i = 0; i < 3; ++i) {
    if (type_codes[i] != kArgInt) {
      return Failure("runtime.GetDeviceAttr: argument " + std::to_string(i) + " has type code " +
                     std::to_string(type_codes[i]) + ", not int");
    }
  }
  const int device_type = static_cast<int>(args[0].v_int64);
  const int device_id = static_cast<int>(args[1].v_int64);
  const int kind = static_cast<int>(args[2].v_int64);
  if (kind != 0) {  // as TVM: kExist is answered without the device, the rest need it
    if (auto problem = CheckDevice(device_type, device_id); !problem.empty()) {
      return Failure(problem);
    }
  }
  const Attribute answer = AttributeOf(device_type, device_id, kind);
  *ret_type_code = answer.code;
  if (answer.code == kArgInt) {
    ret_val->v_int64 = answer.number;
  } else if (answer.code == kStr) {
    std::lock_guard<std::mutex> lock(return_mutex);
    returned_text = answer.text;
    ret_val->v_str = returned_text.c_str();
  } else {
    ret_val->v_handle = nullptr;
  }
  return 0;
}
