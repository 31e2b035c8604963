// A third device core behind the front ends of device_core.h, written the
// way TVM's OpenCL backend behaves (apache/tvm src/runtime/opencl/
// opencl_device_api.cc at v0.20, src/backend/opencl/runtime/ at v0.26): its
// data pointers are not device addresses but descriptors, and TVM says so
// (OpenCLWorkspace keeps DeviceAPI's SupportsDevicePointerArithmeticsOnHost,
// false). It is correct, and it is what an address-judging check gets wrong:
//
//   - one device type, opencl (4), one device: kExist is 1 for device 0
//     only, 0 for every other id and type (TVM's GetDeviceAttr asks for the
//     DeviceAPI with allow_missing and answers 0 where there is none);
//   - AllocDataSpace returns a descriptor's address, as OpenCL's AllocCLBuffer
//     returns `new cl::BufferDescriptor`, and ignores the alignment asked;
//     the bytes live elsewhere, one byte past what the heap gave (never
//     aligned). The descriptors sit in a table whose slot 0 is never handed
//     out (0 is "no buffer", as WebGPU's buffer indices), 40 bytes apart, so
//     that slot 1, the first handed out and the one reused most, is never
//     even 16-byte aligned: an address check fails them at once;
//   - copies resolve the descriptor and add byte_offset inside its buffer,
//     bounds-checked, as clEnqueueRead/Write/CopyBuffer take an offset;
//     device-to-device copies are queued on the device's one in-order queue
//     and host copies finish before they return (TVM calls clFinish);
//   - no streams: CreateStream hands out null (DeviceAPI's default), and
//     StreamSync waits for the device's queue (clFinish);
//   - workspaces come from a pool of descriptors, each over its own buffer,
//     reused once freed (TVM's pooled allocator);
//   - 1 GiB of "global memory" whose available part falls by what is held.
//     TVM's OpenCL backend answers kAvailableGlobalMemory None; this one
//     answers it so that the checks measuring memory run on a handle too.
//
// FAULT_WORKSPACE_SHARED_STORAGE (faults.h): a workspace asked while one of
// the same rounded size is held gets a new descriptor over that one's
// buffer: distinct pointers, one storage. Only content shows it.
// FAULT_DROPS_WRITES_AT_256_MULTIPLES: a host-to-device copy at a byte_offset
// that is a non-zero multiple of 256 does nothing, yet reports success: a
// handle that loses data at the offsets its alignment allows.
//
// Built as field_tvm_handle_backend (the v0.20 front end) and
// field_tvm_ffi_handle_backend (tvm-ffi), test material for
// tests/tvm_handle_backend_test.cc.
#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "device_core.h"
#include "faults.h"
#include "stream_queue.h"

namespace reference_runtime {
namespace {

constexpr int kServedType = kDLOpenCL;
constexpr int64_t kTotalMemory = int64_t{1} << 30;
constexpr size_t kWorkspacePage = 4096;

// --- buffers and their descriptors -----------------------------------------

// The bytes of one buffer, one past the start of what the heap gave: the
// storage has no alignment, which a handle backend need not give.
class Storage {
 public:
  explicit Storage(size_t bytes) : block_(std::make_unique<unsigned char[]>(bytes + 1)) {}
  unsigned char* data() { return block_.get() + 1; }

 private:
  std::unique_ptr<unsigned char[]> block_;
};

// What a handle points at (cl::BufferDescriptor's part that matters here).
// 40 bytes: slots in a table are 8-byte aligned at best, and slot 1 (the
// first handed out, and the one reused most) never 16-byte aligned.
struct Descriptor {
  std::shared_ptr<Storage> storage;  // shared by a queued copy until it has run
  size_t bytes = 0;
  bool live = false;
  bool workspace = false;
  char reserved[8] = {};  // the rest of a real descriptor: layout, host pointer
};
static_assert(sizeof(Descriptor) % 16 == 8, "slot 1 must not be 16-byte aligned");

std::mutex memory_mutex;
std::deque<Descriptor> descriptors(1);  // slot 0 is "no buffer", never handed out
std::vector<size_t> free_slots;         // reused last-in first-out
int64_t bytes_held = 0;

// The slot a handle names, or 0 when it names none. Called with
// memory_mutex held.
size_t SlotOf(const void* handle) {
  for (size_t slot = 1; slot < descriptors.size(); ++slot) {
    if (&descriptors[slot] == handle) return slot;
  }
  return 0;
}

// The descriptor a handle names, or null when it names none of this
// runtime's live buffers. Called with memory_mutex held.
Descriptor* Resolve(const void* handle) {
  const size_t slot = SlotOf(handle);
  return slot != 0 && descriptors[slot].live ? &descriptors[slot] : nullptr;
}

// A new descriptor over `storage` (a fresh buffer of `bytes` when null).
// Called with memory_mutex held.
Descriptor* Describe(size_t bytes, std::shared_ptr<Storage> storage, bool workspace) {
  size_t slot = descriptors.size();
  if (!free_slots.empty()) {
    slot = free_slots.back();
    free_slots.pop_back();
  } else {
    descriptors.emplace_back();
  }
  Descriptor& descriptor = descriptors[slot];
  descriptor.storage = storage ? std::move(storage) : std::make_shared<Storage>(bytes);
  descriptor.bytes = bytes;
  descriptor.live = true;
  descriptor.workspace = workspace;
  return &descriptor;
}

// Called with memory_mutex held.
void Forget(Descriptor* descriptor) {
  descriptor->storage.reset();
  descriptor->live = false;
  free_slots.push_back(SlotOf(descriptor));
}

Failure OutOfMemory(size_t bytes) {
  if (bytes <= static_cast<uint64_t>(kTotalMemory - bytes_held)) return {};
  return "out of memory: " + std::to_string(bytes) + " bytes asked, " +
         std::to_string(kTotalMemory - bytes_held) + " available";
}

// --- the device's queue -----------------------------------------------------

StreamQueue& DeviceQueue() {
  static StreamQueue queue(true);  // in order, as an OpenCL command queue
  return queue;
}

// --- workspace pool ---------------------------------------------------------

struct PoolEntry {
  Descriptor* descriptor;
  bool in_use;
};

std::mutex pool_mutex;
std::vector<PoolEntry> pool;

size_t RoundToPage(size_t bytes) {
  return bytes == 0 ? kWorkspacePage
                    : (bytes + kWorkspacePage - 1) / kWorkspacePage * kWorkspacePage;
}

// --- copies -----------------------------------------------------------------

// One side of a copy: where its bytes are, keeping a device buffer alive.
struct Side {
  std::shared_ptr<Storage> storage;  // null on the host
  unsigned char* bytes = nullptr;
};

Failure Locate(const DLTensor& tensor, size_t count, const char* which, Side* side) {
  if (tensor.device.device_type != kServedType) {
    side->bytes = static_cast<unsigned char*>(tensor.data) + tensor.byte_offset;
    return {};
  }
  std::lock_guard<std::mutex> lock(memory_mutex);
  Descriptor* descriptor = Resolve(tensor.data);
  if (descriptor == nullptr) {
    return std::string("CopyDataFromTo: the ") + which + " is not a buffer of this device";
  }
  if (tensor.byte_offset > descriptor->bytes || count > descriptor->bytes - tensor.byte_offset) {
    return std::string("CopyDataFromTo: the ") + which + " range lies outside its buffer";
  }
  side->storage = descriptor->storage;
  side->bytes = descriptor->storage->data() + tensor.byte_offset;
  return {};
}

// --- attributes -------------------------------------------------------------

bool Exists(int device_type, int device_id) { return device_type == kServedType && device_id == 0; }

Attribute Number(int64_t value) { return {Attribute::Kind::kInteger, value, {}}; }
Attribute Text(std::string value) { return {Attribute::Kind::kText, 0, std::move(value)}; }

}  // namespace

Failure CheckDevice(int device_type, int device_id) {
  if (device_type != kServedType) {
    return "Device API " + std::to_string(device_type) + " is not enabled.";
  }
  if (!Exists(device_type, device_id)) {
    return "Invalid OpenCL device_id=" + std::to_string(device_id) + ". ";
  }
  return {};
}

Failure AllocDataSpace(DLDevice device, size_t bytes, size_t /*alignment*/, void** out) {
  if (auto failure = CheckDevice(device.device_type, device.device_id); !failure.empty()) {
    return failure;
  }
  std::lock_guard<std::mutex> lock(memory_mutex);
  if (auto failure = OutOfMemory(bytes); !failure.empty()) return "AllocDataSpace: " + failure;
  // A buffer of 0 bytes is refused by clCreateBuffer; TVM asks for 1.
  Descriptor* descriptor = Describe(std::max<size_t>(bytes, 1), nullptr, false);
  bytes_held += static_cast<int64_t>(descriptor->bytes);
  *out = descriptor;
  return {};
}

Failure FreeDataSpace(DLDevice device, void* pointer) {
  if (auto failure = CheckDevice(device.device_type, device.device_id); !failure.empty()) {
    return failure;
  }
  if (pointer == nullptr) return {};
  std::lock_guard<std::mutex> lock(memory_mutex);
  Descriptor* descriptor = Resolve(pointer);
  if (descriptor == nullptr || descriptor->workspace) {
    return "FreeDataSpace: not a buffer of this device";
  }
  bytes_held -= static_cast<int64_t>(descriptor->bytes);
  Forget(descriptor);
  return {};
}

Failure CopyDataFromTo(const DLTensor& from, const DLTensor& to, void* stream) {
  size_t bytes = 0;
  DLDevice device{};
  if (auto failure = CheckCopy(from, to, &bytes, &device); !failure.empty()) return failure;
  if (auto failure = CheckDevice(device.device_type, device.device_id); !failure.empty()) {
    return failure;
  }
  if (stream != nullptr) return "CopyDataFromTo: OpenCL has no streams but the null one";
  Side source;
  Side target;
  if (auto failure = Locate(from, bytes, "source", &source); !failure.empty()) return failure;
  if (auto failure = Locate(to, bytes, "target", &target); !failure.empty()) return failure;
#ifdef FAULT_DROPS_WRITES_AT_256_MULTIPLES
  // A write into a buffer at a byte_offset that is a non-zero multiple of
  // 256 "succeeds" without writing (a staging path taken for aligned
  // offsets that is never flushed).
  if (!source.storage && to.byte_offset != 0 && to.byte_offset % 256 == 0) return {};
#endif
  // The lambda holds both buffers until it has run, as OpenCL retains a
  // buffer for the commands queued on it.
  const uint64_t ticket = DeviceQueue().Submit(
      [source, target, bytes] { std::memmove(target.bytes, source.bytes, bytes); });
  if (!source.storage || !target.storage) DeviceQueue().Wait(ticket);  // clFinish
  return {};
}

Failure CreateStream(int device_type, int device_id, void** out) {
  if (auto failure = CheckDevice(device_type, device_id); !failure.empty()) return failure;
  *out = nullptr;  // DeviceAPI's default: no streams
  return {};
}

Failure FreeStream(int device_type, int device_id, void* /*stream*/) {
  return CheckDevice(device_type, device_id);
}

Failure SetStream(int device_type, int device_id, void* stream) {
  if (auto failure = CheckDevice(device_type, device_id); !failure.empty()) return failure;
  RecordCurrentStream(device_type, device_id, stream);
  return {};
}

Failure Synchronize(int device_type, int device_id, void* stream) {
  if (auto failure = CheckDevice(device_type, device_id); !failure.empty()) return failure;
  if (stream != nullptr) return "StreamSync: OpenCL has no streams but the null one";
  DeviceQueue().Drain();
  return {};
}

Failure SyncStreamFromTo(int device_type, int device_id, void* /*from*/, void* /*to*/) {
  return CheckDevice(device_type, device_id);  // one queue: always in order
}

Failure AllocWorkspace(int device_type, int device_id, uint64_t bytes, void** out) {
  if (auto failure = CheckDevice(device_type, device_id); !failure.empty()) return failure;
  std::lock_guard<std::mutex> pool_lock(pool_mutex);
  std::lock_guard<std::mutex> lock(memory_mutex);
  if (auto failure = OutOfMemory(bytes); !failure.empty()) return "AllocWorkspace: " + failure;
  const size_t rounded = RoundToPage(bytes);
  PoolEntry* reused = nullptr;
  for (PoolEntry& entry : pool) {
    if (!entry.in_use && entry.descriptor->bytes >= rounded &&
        (reused == nullptr || entry.descriptor->bytes < reused->descriptor->bytes)) {
      reused = &entry;  // the smallest free block that fits
    }
  }
  if (reused == nullptr) {
    std::shared_ptr<Storage> storage;
#ifdef FAULT_WORKSPACE_SHARED_STORAGE
    // A block of the same size still held lends its buffer to a new
    // descriptor: two live handles over one storage.
    for (const PoolEntry& entry : pool) {
      if (entry.in_use && entry.descriptor->bytes == rounded) storage = entry.descriptor->storage;
    }
#endif
    pool.push_back({Describe(rounded, std::move(storage), true), false});
    reused = &pool.back();
  }
  reused->in_use = true;
  bytes_held += static_cast<int64_t>(reused->descriptor->bytes);
  *out = reused->descriptor;
  return {};
}

Failure FreeWorkspace(int device_type, int device_id, void* pointer) {
  if (auto failure = CheckDevice(device_type, device_id); !failure.empty()) return failure;
  std::lock_guard<std::mutex> pool_lock(pool_mutex);
  for (PoolEntry& entry : pool) {
    if (entry.descriptor == pointer && entry.in_use) {
      entry.in_use = false;
      std::lock_guard<std::mutex> lock(memory_mutex);
      bytes_held -= static_cast<int64_t>(entry.descriptor->bytes);
      return {};
    }
  }
  return "FreeWorkspace: trying to free things that has not been allocated";
}

Failure GetDeviceAttr(int device_type, int device_id, int kind, Attribute* out) {
  if (kind == kExist) {
    *out = Number(Exists(device_type, device_id) ? 1 : 0);
    return {};
  }
  if (auto failure = CheckDevice(device_type, device_id); !failure.empty()) return failure;
  switch (kind) {
    case 1:  // kMaxThreadsPerBlock
      *out = Number(256);
      break;
    case 2:  // kWarpSize: TVM's OpenCL backend answers 1
      *out = Number(1);
      break;
    case 3:  // kMaxSharedMemoryPerBlock
      *out = Number(65536);
      break;
    case 4:  // kComputeVersion: the OpenCL version
      *out = Text("3.0");
      break;
    case 5:  // kDeviceName
      *out = Text("sectl reference opencl (descriptor handles)");
      break;
    case 14:  // kTotalGlobalMemory
      *out = Number(kTotalMemory);
      break;
    case 15: {  // kAvailableGlobalMemory
      std::lock_guard<std::mutex> lock(memory_mutex);
      *out = Number(kTotalMemory - bytes_held);
      break;
    }
    default:
      *out = {};  // None
  }
  return {};
}

}  // namespace reference_runtime
