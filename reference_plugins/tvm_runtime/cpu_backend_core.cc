// A second device core behind the front ends of device_core.h, written the
// way TVM's own CPU backend behaves (apache/tvm src/runtime/cpu_device_api.cc,
// workspace_pool.cc and the defaults of DeviceAPI in device_api.h). It is the
// runtime the tvm-device-api checks will meet most, a libtvm_runtime.so
// built for the CPU alone, and it is correct; yet it differs from the
// reference core in every way the checks must accept:
//
//   - one device type, cpu, and kExist is 1 for every device id: TVM's CPU
//     backend never looks at the id; kExist for a type TVM cannot name
//     (DLPack's maia and trn) is an error, not 0;
//   - no streams: CreateStream hands out null and every stream operation does
//     nothing (the base DeviceAPI's defaults), as copies are finished when
//     they return;
//   - two attributes only, kExist and kTotalGlobalMemory (the machine's RAM);
//     kAvailableGlobalMemory and kDeviceName are None;
//   - data space straight from posix_memalign: an alignment below
//     sizeof(void*) fails, and memory is not counted;
//   - a workspace pool per thread and device id, as TVM's: 4 KiB pages, a
//     free list kept sorted by size, the smallest block that fits reused,
//     and the largest free block replaced by a bigger one when none fits.
//
// Built as field_tvm_cpu_backend (the v0.20 front end) and
// field_tvm_ffi_cpu_backend (tvm-ffi), test material for
// tests/tvm_runtime_test.cc and tests/tvm_ffi_runtime_test.cc.
#include <sys/sysinfo.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "device_core.h"

namespace reference_runtime {
namespace {

constexpr size_t kWorkspacePage = 4096;
constexpr size_t kWorkspaceAlignment = 64;  // TVM's kTempAllocaAlignment
// No x86-64 or AArch64 process can map more: posix_memalign fails beyond it
// anyway. Refused before the call, so that a sanitizer's allocator (which
// aborts on such sizes) sees only what the plain one would grant.
constexpr size_t kLargestMapping = size_t{1} << 47;

Failure NotEnabled(int device_type) {
  return "Device API " + std::to_string(device_type) + " is not enabled.";
}

// posix_memalign as TVM's CPU backend calls it: a failure is std::bad_alloc.
// The alignments glibc refuses with EINVAL (not a power of two, or below
// sizeof(void*)) are refused here first: a sanitizer's posix_memalign aborts
// on them instead.
void* Allocate(size_t bytes, size_t alignment, Failure& failure) {
  const bool valid_alignment = alignment >= sizeof(void*) && (alignment & (alignment - 1)) == 0;
  void* pointer = nullptr;
  if (!valid_alignment || bytes > kLargestMapping ||
      posix_memalign(&pointer, alignment, bytes) != 0) {
    failure = "std::bad_alloc";
    return nullptr;
  }
  return pointer;
}

// --- workspace pool (TVM's WorkspacePool::Pool) -----------------------------

struct Block {
  void* data = nullptr;
  size_t bytes = 0;
};

class WorkspacePool {
 public:
  WorkspacePool() = default;
  WorkspacePool(const WorkspacePool&) = delete;
  WorkspacePool& operator=(const WorkspacePool&) = delete;
  WorkspacePool(WorkspacePool&&) = delete;
  WorkspacePool& operator=(WorkspacePool&&) = delete;
  ~WorkspacePool() {
    // NOLINTBEGIN(cppcoreguidelines-no-malloc,cppcoreguidelines-owning-memory)
    for (const Block& block : free_) std::free(block.data);
    for (const Block& block : in_use_) std::free(block.data);
    // NOLINTEND(cppcoreguidelines-no-malloc,cppcoreguidelines-owning-memory)
  }

  void* Take(size_t bytes, Failure& failure) {
    if (bytes > kLargestMapping) {
      failure = "std::bad_alloc";
      return nullptr;
    }
    bytes = bytes == 0 ? kWorkspacePage
                       : (bytes + kWorkspacePage - 1) / kWorkspacePage * kWorkspacePage;
    Block block;
    if (!free_.empty() && free_.back().bytes >= bytes) {
      // The smallest free block that fits (the list is sorted by size).
      auto fits =
          std::lower_bound(free_.begin(), free_.end(), bytes,
                           [](const Block& free, size_t size) { return free.bytes < size; });
      block = *fits;
      free_.erase(fits);
    } else {
      if (!free_.empty()) {
        // None fits: the largest is given back for a bigger one.
        // NOLINTNEXTLINE(cppcoreguidelines-no-malloc,cppcoreguidelines-owning-memory)
        std::free(free_.back().data);
        free_.pop_back();
      }
      block.data = Allocate(bytes, kWorkspaceAlignment, failure);
      if (block.data == nullptr) return nullptr;
      block.bytes = bytes;
    }
    in_use_.push_back(block);
    return block.data;
  }

  bool GiveBack(void* data) {
    // Most often the last one taken, so searched from the back.
    auto found = std::find_if(in_use_.rbegin(), in_use_.rend(),
                              [data](const Block& block) { return block.data == data; });
    if (found == in_use_.rend()) return false;
    const Block block = *found;
    in_use_.erase(std::next(found).base());
    auto after = std::upper_bound(free_.begin(), free_.end(), block.bytes,
                                  [](size_t size, const Block& free) { return size < free.bytes; });
    free_.insert(after, block);
    return true;
  }

 private:
  std::vector<Block> free_;    // sorted from small to big
  std::vector<Block> in_use_;  // in the order taken
};

// TVM keeps one pool per thread (thread_local); a library sectl dlopens may
// not use thread_local, so the pools are kept by thread id instead.
std::mutex pools_mutex;
std::map<std::pair<std::thread::id, int>, std::unique_ptr<WorkspacePool>> pools;

WorkspacePool& PoolOf(int device_id) {
  std::lock_guard<std::mutex> lock(pools_mutex);
  auto& pool = pools[{std::this_thread::get_id(), device_id}];
  if (!pool) pool = std::make_unique<WorkspacePool>();
  return *pool;
}

int64_t TotalRam() {
  struct sysinfo info {};
  if (sysinfo(&info) != 0) return -1;
  return static_cast<int64_t>(info.totalram) * info.mem_unit;
}

}  // namespace

Failure CheckDevice(int device_type, int /*device_id*/) {
  return device_type == kDLCPU ? Failure() : NotEnabled(device_type);
}

Failure AllocDataSpace(DLDevice device, size_t bytes, size_t alignment, void** out) {
  if (auto failure = CheckDevice(device.device_type, device.device_id); !failure.empty()) {
    return failure;
  }
  Failure failure;
  void* pointer = Allocate(bytes, alignment, failure);
  if (pointer == nullptr) return failure;
  *out = pointer;
  return {};
}

Failure FreeDataSpace(DLDevice device, void* pointer) {
  if (auto failure = CheckDevice(device.device_type, device.device_id); !failure.empty()) {
    return failure;
  }
  // NOLINTNEXTLINE(cppcoreguidelines-no-malloc,cppcoreguidelines-owning-memory)
  std::free(pointer);
  return {};
}

Failure CopyDataFromTo(const DLTensor& from, const DLTensor& to, void* /*stream*/) {
  size_t bytes = 0;
  DLDevice device{};
  if (auto failure = CheckCopy(from, to, &bytes, &device); !failure.empty()) return failure;
  if (auto failure = CheckDevice(device.device_type, device.device_id); !failure.empty()) {
    return failure;
  }
  std::memcpy(static_cast<char*>(to.data) + to.byte_offset,
              static_cast<const char*>(from.data) + from.byte_offset, bytes);
  return {};
}

Failure CreateStream(int device_type, int device_id, void** out) {
  if (auto failure = CheckDevice(device_type, device_id); !failure.empty()) return failure;
  *out = nullptr;
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

Failure Synchronize(int device_type, int device_id, void* /*stream*/) {
  return CheckDevice(device_type, device_id);
}

Failure SyncStreamFromTo(int device_type, int device_id, void* /*from*/, void* /*to*/) {
  return CheckDevice(device_type, device_id);
}

Failure AllocWorkspace(int device_type, int device_id, uint64_t bytes, void** out) {
  if (auto failure = CheckDevice(device_type, device_id); !failure.empty()) return failure;
  Failure failure;
  void* pointer = PoolOf(device_id).Take(bytes, failure);
  if (pointer == nullptr) return failure;
  *out = pointer;
  return {};
}

Failure FreeWorkspace(int device_type, int device_id, void* pointer) {
  if (auto failure = CheckDevice(device_type, device_id); !failure.empty()) return failure;
  if (!PoolOf(device_id).GiveBack(pointer)) {
    return "trying to free things that has not been allocated";
  }
  return {};
}

Failure GetDeviceAttr(int device_type, int device_id, int kind, Attribute* out) {
  if (kind == kExist) {
    // TVM names a device type before it looks its backend up, and its list
    // (DLDeviceType2Str) ends at hexagon, 16: DLPack's newer types fail.
    constexpr int kLastTypeTvmNames = 16;
    if (device_type < kDLCPU || device_type > kLastTypeTvmNames) {
      return "unknown type = " + std::to_string(device_type);
    }
    *out = {Attribute::Kind::kInteger, device_type == kDLCPU ? 1 : 0, {}};
    return {};
  }
  if (auto failure = CheckDevice(device_type, device_id); !failure.empty()) return failure;
  constexpr int kTotalGlobalMemory = 14;
  *out = kind == kTotalGlobalMemory ? Attribute{Attribute::Kind::kInteger, TotalRam(), {}}
                                    : Attribute{};
  return {};
}

}  // namespace reference_runtime
