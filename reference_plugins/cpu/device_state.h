// The state behind one device: what create_device puts in
// SP_Device::device_handle. The host copies SP_Device structs around, so the
// handle, not the SP_Device's address, is the device's identity.

#ifndef SECTL_REFERENCE_PLUGINS_CPU_DEVICE_STATE_H_
#define SECTL_REFERENCE_PLUGINS_CPU_DEVICE_STATE_H_

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "aligned_buffer.h"
#include "stream_worker.h"

namespace sectl_plugin::cpu {

// The plugin exposes this many devices, ordinals 0 .. kDeviceCount-1.
inline constexpr int kDeviceCount = 2;

struct MemoryStats {
  int64_t num_allocs = 0;
  int64_t bytes_in_use = 0;
  int64_t peak_bytes_in_use = 0;
  int64_t largest_alloc_size = 0;
};

class DeviceState {
 public:
  explicit DeviceState(int ordinal);
  // Frees device memory the host never deallocated. Streams of this device
  // must have been destroyed first (TensorFlow does so).
  ~DeviceState();

  DeviceState(const DeviceState&) = delete;
  DeviceState& operator=(const DeviceState&) = delete;

  int ordinal() const { return ordinal_; }
  const char* hardware_name() const { return hardware_name_.c_str(); }

  // --- Device memory. Thread-safe. ---

  // How much memory this device lets the host hold at once: half of the
  // machine's physical memory, so a test that allocates "everything" fails
  // cleanly instead of driving the machine into swap.
  int64_t memory_budget() const { return memory_budget_; }

  // 64-byte aligned memory of `size` bytes; null for size 0, when the budget
  // would be exceeded, and when the system is out of memory.
  void* Allocate(uint64_t size);
  // Needs only the pointer, because TensorFlow passes nothing else. Null
  // and unknown pointers are ignored.
  void Deallocate(void* memory);
  MemoryStats memory_stats() const;

  // --- Streams, tracked for synchronize_all_activity. Thread-safe. ---

  void AddStream(StreamWorker* stream);
  void RemoveStream(StreamWorker* stream);
  // Blocks until every stream alive now has run everything enqueued so far.
  void SynchronizeAllStreams();

 private:
  struct Allocation {
    AlignedBuffer memory;
    uint64_t size = 0;
  };

  const int ordinal_;
  const std::string hardware_name_;
  const int64_t memory_budget_;

  mutable std::mutex memory_mutex_;
  std::unordered_map<void*, Allocation> allocations_;  // Guarded by memory_mutex_.
  MemoryStats stats_;                                  // Guarded by memory_mutex_.

  std::mutex streams_mutex_;
  std::vector<StreamWorker*> streams_;  // Guarded by streams_mutex_.
};

}  // namespace sectl_plugin::cpu

#endif  // SECTL_REFERENCE_PLUGINS_CPU_DEVICE_STATE_H_
