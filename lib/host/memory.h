// RAII owners of plugin memory: device allocations and host (pinned or
// unified) allocations, each returned to the plugin exactly once.
#pragma once

#include <cstdint>
#include <utility>

#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

namespace sectl::host {

class Device;

// A device allocation. Freed as TensorFlow frees it: deallocate receives a
// struct with only `opaque` set (size 0, payload 0).
class DeviceMemory {
 public:
  DeviceMemory() = default;
  DeviceMemory(const Device* device, const SP_DeviceMemoryBase& memory)
      : device_(device), memory_(memory) {}
  ~DeviceMemory() { Release(); }
  DeviceMemory(DeviceMemory&& other) noexcept { *this = std::move(other); }
  DeviceMemory& operator=(DeviceMemory&& other) noexcept;
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  void* opaque() const { return memory_.opaque; }
  uint64_t size() const { return memory_.size; }
  uint64_t payload() const { return memory_.payload; }
  // The whole allocation as the plugin described it.
  SP_DeviceMemoryBase base() const { return memory_; }
  // Bytes [offset, offset + size) as TensorFlow passes a tensor inside a
  // larger allocation: an interior `opaque`, `payload` 0.
  SP_DeviceMemoryBase Slice(uint64_t offset, uint64_t size) const;

  void Release();

 private:
  const Device* device_ = nullptr;
  SP_DeviceMemoryBase memory_{};
};

enum class HostMemoryKind { kPinned, kUnified };

// Host-accessible memory from host_memory_allocate or unified_memory_allocate.
class HostMemory {
 public:
  HostMemory() = default;
  HostMemory(const Device* device, HostMemoryKind kind, void* data, uint64_t size)
      : device_(device), kind_(kind), data_(data), size_(size) {}
  ~HostMemory() { Release(); }
  HostMemory(HostMemory&& other) noexcept { *this = std::move(other); }
  HostMemory& operator=(HostMemory&& other) noexcept;
  HostMemory(const HostMemory&) = delete;
  HostMemory& operator=(const HostMemory&) = delete;

  void* data() const { return data_; }
  uint64_t size() const { return size_; }
  HostMemoryKind kind() const { return kind_; }
  void Release();

 private:
  const Device* device_ = nullptr;
  HostMemoryKind kind_ = HostMemoryKind::kPinned;
  void* data_ = nullptr;
  uint64_t size_ = 0;
};

}  // namespace sectl::host
