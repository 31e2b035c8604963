#include "host/memory.h"

#include <utility>

#include "host/device.h"

namespace sectl::host {

DeviceMemory& DeviceMemory::operator=(DeviceMemory&& other) noexcept {
  if (this != &other) {
    Release();
    device_ = std::exchange(other.device_, nullptr);
    memory_ = std::exchange(other.memory_, SP_DeviceMemoryBase{});
  }
  return *this;
}

SP_DeviceMemoryBase DeviceMemory::Slice(uint64_t offset, uint64_t size) const {
  SP_DeviceMemoryBase slice{};
  slice.struct_size = SP_DEVICE_MEMORY_BASE_STRUCT_SIZE;
  slice.opaque = static_cast<char*>(memory_.opaque) + offset;
  slice.size = size;
  return slice;
}

void DeviceMemory::Release() {
  if (device_ != nullptr) device_->Deallocate(memory_.opaque);
  device_ = nullptr;
  memory_ = {};
}

HostMemory& HostMemory::operator=(HostMemory&& other) noexcept {
  if (this != &other) {
    Release();
    device_ = std::exchange(other.device_, nullptr);
    kind_ = other.kind_;
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void HostMemory::Release() {
  if (device_ != nullptr) device_->DeallocateHost(kind_, data_);
  device_ = nullptr;
  data_ = nullptr;
  size_ = 0;
}

}  // namespace sectl::host
