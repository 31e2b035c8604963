// The device of sectl's reference TVM runtimes: see device_core.h. State is
// process-wide (the library is dlopen'ed, so no thread_local), each part
// under its own mutex.
#include "device_core.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "faults.h"
#include "stream_queue.h"

namespace reference_runtime {
namespace {

constexpr int64_t kTotalMemory = int64_t{1} << 30;
constexpr size_t kWorkspacePage = 4096;
constexpr size_t kWorkspaceAlignment = 64;  // TVM's kTempAllocaAlignment

bool IsPowerOfTwo(size_t value) { return value != 0 && (value & (value - 1)) == 0; }

// --- device types -----------------------------------------------------------

#ifdef EXT_DEV_FROM_BACKEND
// The shape of TVM v0.25+: the core serves the CPU, and ext_dev only once a
// backend library has registered "device_api.ext_dev" (backend_registration.cc).
bool ExtDevServed() { return ExtDevRegisteredByBackend(); }
#else
bool ExtDevServed() { return true; }
#endif

bool Serves(int device_type) {
  return device_type == kDLCPU || (device_type == kDLExtDev && ExtDevServed());
}

int DeviceCount(int device_type) {
  if (device_type == kDLCPU) return 2;
  if (device_type == kDLExtDev && ExtDevServed()) return 1;
  return 0;
}

bool Exists(int device_type, int device_id) {
#ifdef FAULT_EXIST_BEYOND_COUNT
  if (device_type == kDLCPU && device_id == DeviceCount(device_type)) return true;
#endif
  return device_id >= 0 && device_id < DeviceCount(device_type);
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

bool OutOfMemory(size_t bytes, Failure& failure) {
  std::lock_guard<std::mutex> lock(memory_mutex);
  if (bytes <= static_cast<uint64_t>(kTotalMemory - bytes_held)) return false;
  failure = "out of memory: " + std::to_string(bytes) + " bytes asked, " +
            std::to_string(kTotalMemory - bytes_held) + " available";
  return true;
}

// The pointer, or null with the reason in `failure`. `strict`: as TVM's CPU
// backend, which hands the alignment to posix_memalign unchanged, so that
// one below sizeof(void*) fails.
void* Allocate(size_t bytes, size_t alignment, bool strict, Failure& failure) {
  if (!IsPowerOfTwo(alignment)) {
    failure = "alignment " + std::to_string(alignment) + " is not a power of two";
    return nullptr;
  }
  if (strict && alignment < sizeof(void*)) {
    failure = "std::bad_alloc (posix_memalign rejects alignment " + std::to_string(alignment) + ")";
    return nullptr;
  }
  if (OutOfMemory(bytes, failure)) return nullptr;
  size_t skew = 0;  // bytes between the aligned block and what is handed out
  size_t block_alignment = std::max(alignment, sizeof(void*));
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
    failure = "posix_memalign failed for " + std::to_string(bytes) + " bytes";
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

// Whether [pointer, pointer + bytes) lies inside one allocation.
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

std::mutex stream_mutex;
std::set<StreamQueue*> live_streams;

StreamQueue& NullStream() {
#ifdef FAULT_READS_HOST_BUFFER_LATE
  static StreamQueue stream(true);  // the null stream queues, too
#else
  static StreamQueue stream(false);
#endif
  return stream;
}

// The stream behind a handle, or null when it is not a live stream.
StreamQueue* StreamOf(void* handle) {
  if (handle == nullptr) return &NullStream();
  std::lock_guard<std::mutex> lock(stream_mutex);
  auto* stream = static_cast<StreamQueue*>(handle);
  return live_streams.count(stream) != 0 ? stream : nullptr;
}

// --- workspace pool ---------------------------------------------------------

struct Block {
  void* pointer;
  size_t bytes;
  int users;
};

// Every block the pool has, in use or free. Its blocks go back to the
// allocator when the library's statics are destroyed at exit, before
// `allocations` (defined earlier), so that nothing is left unreachable.
struct Pool : std::vector<Block> {
  Pool() = default;
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;
  Pool(Pool&&) = delete;
  Pool& operator=(Pool&&) = delete;
  ~Pool() {
    for (const Block& block : *this) (void)Release(block.pointer);
  }
};

std::mutex pool_mutex;
Pool pool;

void* TakeWorkspace(size_t bytes, Failure& failure) {
  if (OutOfMemory(bytes, failure)) return nullptr;  // before rounding, which could wrap
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
  void* pointer = Allocate(rounded, kWorkspaceAlignment, false, failure);
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

Attribute Number(int64_t value) { return {Attribute::Kind::kInteger, value, {}}; }
Attribute Text(std::string value) { return {Attribute::Kind::kText, 0, std::move(value)}; }

Attribute AttributeOf(int device_type, int device_id, int kind) {
  switch (kind) {
    case kExist:
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

// --- copies -----------------------------------------------------------------

// Whether `tensor` is device memory of this runtime rather than host memory.
bool OnDevice(const DLTensor& tensor, const DLDevice& device) {
  return tensor.device.device_type == device.device_type &&
         Holds(static_cast<char*>(tensor.data) + tensor.byte_offset, 0);
}

}  // namespace

Failure CheckDevice(int device_type, int device_id) {
  if (!Serves(device_type)) {
    return "Device API " + std::to_string(device_type) + " is not enabled.";
  }
  if (device_id < 0 || device_id >= DeviceCount(device_type)) {
    return "device " + std::to_string(device_id) + " of type " + std::to_string(device_type) +
           " does not exist";
  }
  return {};
}

Failure AllocDataSpace(DLDevice device, size_t bytes, size_t alignment, void** out) {
  if (auto failure = CheckDevice(device.device_type, device.device_id); !failure.empty()) {
    return failure;
  }
  Failure failure;
  void* pointer = Allocate(bytes, alignment, device.device_type == kDLCPU, failure);
  if (pointer == nullptr) {
#ifdef FAULT_SILENT_ALLOCATION_FAILURE
    if (failure.rfind("out of memory", 0) == 0) {
      *out = nullptr;
      return {};  // the failure is swallowed: the caller gets null and no error
    }
#endif
    return "AllocDataSpace: " + failure;
  }
  *out = pointer;
  return {};
}

Failure FreeDataSpace(DLDevice device, void* pointer) {
  if (auto failure = CheckDevice(device.device_type, device.device_id); !failure.empty()) {
    return failure;
  }
  if (pointer == nullptr) return {};
  if (!Release(pointer)) return "FreeDataSpace: pointer was not allocated here";
  return {};
}

Failure CopyDataFromTo(const DLTensor& from, const DLTensor& to, void* stream) {
  size_t bytes = 0;
  DLDevice device{};
  if (auto failure = CheckCopy(from, to, &bytes, &device); !failure.empty()) return failure;
  if (auto failure = CheckDevice(device.device_type, device.device_id); !failure.empty()) {
    return failure;
  }
  StreamQueue* queue = StreamOf(stream);
  if (queue == nullptr) return "CopyDataFromTo: not a stream of this runtime";
  const char* source = static_cast<const char*>(from.data) + from.byte_offset;
  char* target = static_cast<char*>(to.data) + to.byte_offset;
  const bool source_on_device = OnDevice(from, device);
  const bool target_on_device = OnDevice(to, device);
#ifdef FAULT_DTOD_IGNORES_TARGET_OFFSET
  if (source_on_device && target_on_device) target = static_cast<char*>(to.data);
#endif
  if (source_on_device && !Holds(source, bytes)) {
    return "CopyDataFromTo: the source range lies outside its allocation";
  }
  if (target_on_device && !Holds(target, bytes)) {
    return "CopyDataFromTo: the target range lies outside its allocation";
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
    auto staged = std::make_shared<std::vector<char> >(source, source + bytes);
    queue->Submit([=] { std::memcpy(target, staged->data(), bytes); });
#endif
    return {};
  }
  queue->Submit([=] { std::memmove(target, source, bytes); });
  return {};
}

Failure CreateStream(int device_type, int device_id, void** out) {
#ifdef FAULT_STREAM_CREATE_CRASHES_ON_ABSENT_DEVICE
  // A per-device table indexed before the id is checked, as TVM's kExist
  // indexes its table of device types: here it faults.
  if (device_id >= DeviceCount(device_type)) std::raise(SIGSEGV);
#endif
  if (auto failure = CheckDevice(device_type, device_id); !failure.empty()) return failure;
  // The handle is the stream's address, owned by the caller until FreeStream.
  auto stream = std::make_unique<StreamQueue>(true);
  std::lock_guard<std::mutex> lock(stream_mutex);
  live_streams.insert(stream.get());
  *out = stream.release();
  return {};
}

Failure FreeStream(int device_type, int device_id, void* stream) {
  if (auto failure = CheckDevice(device_type, device_id); !failure.empty()) return failure;
  if (stream == nullptr) return {};
  std::unique_ptr<StreamQueue> owned;
  {
    std::lock_guard<std::mutex> lock(stream_mutex);
    if (live_streams.erase(static_cast<StreamQueue*>(stream)) == 0) {
      return "StreamFree: not a live stream";
    }
    owned.reset(static_cast<StreamQueue*>(stream));  // made by CreateStream
  }
  ForgetCurrentStream(stream);
  owned->Drain();
  return {};
}

Failure SetStream(int device_type, int device_id, void* stream) {
  if (auto failure = CheckDevice(device_type, device_id); !failure.empty()) return failure;
  if (StreamOf(stream) == nullptr) return "SetStream: not a live stream";
#ifdef FAULT_SET_STREAM_REJECTS_STREAMS
  if (stream != nullptr) return "SetStream: only the default stream is supported";
#endif
  RecordCurrentStream(device_type, device_id, stream);
  return {};
}

Failure Synchronize(int device_type, int device_id, void* stream) {
  if (auto failure = CheckDevice(device_type, device_id); !failure.empty()) return failure;
  StreamQueue* queue = StreamOf(stream);
  if (queue == nullptr) return "StreamSync: not a live stream";
  queue->Drain();
  return {};
}

Failure SyncStreamFromTo(int device_type, int device_id, void* from, void* to) {
  if (auto failure = CheckDevice(device_type, device_id); !failure.empty()) return failure;
  StreamQueue* source = StreamOf(from);
  StreamQueue* target = StreamOf(to);
  if (source == nullptr || target == nullptr) return "SyncStreamFromTo: not a live stream";
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
  return {};
}

Failure AllocWorkspace(int device_type, int device_id, uint64_t bytes, void** out) {
  if (auto failure = CheckDevice(device_type, device_id); !failure.empty()) return failure;
  Failure failure;
  void* pointer = TakeWorkspace(bytes, failure);
#ifdef FAULT_WORKSPACE_THROWS
  // As TVM's CPU backend: its allocator throws, and nothing between it and
  // the C entry point catches.
  if (pointer == nullptr) throw std::bad_alloc();
#endif
  if (pointer == nullptr) return "AllocWorkspace: " + failure;
  *out = pointer;
  return {};
}

Failure FreeWorkspace(int device_type, int device_id, void* pointer) {
  if (auto failure = CheckDevice(device_type, device_id); !failure.empty()) return failure;
  if (!GiveBackWorkspace(pointer)) {
#ifdef FAULT_WORKSPACE_THROWS
    // As TVM's WorkspacePool: an ICHECK, which throws InternalError.
    throw std::runtime_error("InternalError: trying to free things that has not been allocated");
#endif
    return "FreeWorkspace: trying to free things that has not been allocated";
  }
  return {};
}

Failure GetDeviceAttr(int device_type, int device_id, int kind, Attribute* out) {
#ifdef FAULT_EXIST_CRASHES_BEYOND_TABLE
  // As TVM's DeviceAPIManager: a table of 32 DeviceAPIs indexed by the
  // device type without a bounds check; here the entries beyond it are null.
  if (device_type > 32) {
    static volatile uintptr_t table_entry = 0;  // what lies past the table: null
    // NOLINTNEXTLINE(performance-no-int-to-ptr): the seeded crash
    *reinterpret_cast<volatile int*>(table_entry + sizeof(int) * device_type) = device_id;
  }
#endif
  if (kind != kExist) {
    if (auto failure = CheckDevice(device_type, device_id); !failure.empty()) return failure;
  }
  *out = AttributeOf(device_type, device_id, kind);
  return {};
}

}  // namespace reference_runtime
