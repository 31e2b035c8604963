// Checks of the host's arguments, made before anything reaches CUDA: a
// conformance tool passes edge cases on purpose, and a plugin should answer a
// bad argument with TF_INVALID_ARGUMENT, not a crash inside the driver. Each
// sets `status` and returns false on failure.

#ifndef SECTL_REFERENCE_PLUGINS_CUDA_ARGUMENT_CHECKS_H_
#define SECTL_REFERENCE_PLUGINS_CUDA_ARGUMENT_CHECKS_H_

#include <cstdint>
#include <string>

#include "../common/entry_guard.h"
#include "device_state.h"
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

namespace sectl_plugin::cuda {

inline DeviceState* StateOf(const SP_Device* device) {
  return device != nullptr ? static_cast<DeviceState*>(device->device_handle) : nullptr;
}

inline void* AddressOf(const SP_DeviceMemoryBase* memory) {
  return memory != nullptr ? memory->opaque : nullptr;
}

inline bool CheckDevice(const DeviceState* state, TF_Status* status) {
  if (state != nullptr) return true;
  SetError(status, TF_INVALID_ARGUMENT, "sectl_cuda: null SP_Device or device_handle");
  return false;
}

inline bool CheckHandle(const void* handle, const char* what, TF_Status* status) {
  if (handle != nullptr) return true;
  SetError(status, TF_INVALID_ARGUMENT, std::string("sectl_cuda: null ") + what);
  return false;
}

// An operation on `size` bytes at `address` needs a real address, unless it
// touches nothing.
inline bool CheckAddress(const void* address, const char* role, uint64_t size, TF_Status* status) {
  if (size == 0 || address != nullptr) return true;
  SetError(status, TF_INVALID_ARGUMENT,
           std::string("sectl_cuda: null ") + role + " for " + std::to_string(size) + " bytes");
  return false;
}

inline bool CheckTransfer(const void* destination, const void* source, uint64_t size,
                          TF_Status* status) {
  return CheckAddress(destination, "destination", size, status) &&
         CheckAddress(source, "source", size, status);
}

}  // namespace sectl_plugin::cuda

#endif  // SECTL_REFERENCE_PLUGINS_CUDA_ARGUMENT_CHECKS_H_
