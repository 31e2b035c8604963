// Copies and fills. The asynchronous forms are enqueued on the host's stream
// with cudaMemcpyAsync / cudaMemsetAsync (and the driver's cuMemsetD32Async
// for memset32); the synchronous forms are enqueued on the device's own sync
// stream and waited for.
//
// Copies use cudaMemcpyDefault: with unified virtual addressing the driver
// knows from the pointers where each side lives, so a host that passes a
// device pointer as the "host" side (TensorFlow has done so, issue #57095)
// still gets a correct copy. From pageable host memory a copy is staged
// through the driver's pinned buffers and returns only once the host buffer
// may be reused; from pinned memory (host_memory_allocate) it is fully
// asynchronous.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "../common/entry_guard.h"
#include "argument_checks.h"
#include "callbacks.h"
#include "cuda_status.h"
#include "driver_memset.h"
#include "handles.h"

namespace sectl_plugin::cuda {
namespace {

bool CheckStream(SP_Stream stream, TF_Status* status) {
  return CheckHandle(stream, "SP_Stream", status);
}

void EnqueueCopy(SP_Stream stream, void* destination, const void* source, uint64_t size,
                 TF_Status* status) {
  GuardedCall(status, [&] {
    if (!CheckStream(stream, status) || !CheckTransfer(destination, source, size, status)) return;
    if (size == 0) {  // Touches nothing; CUDA need not hear of it.
      SetOk(status);
      return;
    }
    if (!CudaSucceeded(stream->device.Activate(), "cudaSetDevice", status)) return;
    CudaSucceeded(
        cudaMemcpyAsync(destination, source, size, cudaMemcpyDefault, stream->stream.get()),
        "cudaMemcpyAsync", status);
  });
}

// A copy that is complete when this returns.
void CopyNow(const SP_Device* device, void* destination, const void* source, uint64_t size,
             TF_Status* status) {
  GuardedCall(status, [&] {
    const DeviceState* state = StateOf(device);
    if (!CheckDevice(state, status) || !CheckTransfer(destination, source, size, status)) return;
    if (size == 0) {
      SetOk(status);
      return;
    }
    if (!CudaSucceeded(state->Activate(), "cudaSetDevice", status) ||
        !CudaSucceeded(
            cudaMemcpyAsync(destination, source, size, cudaMemcpyDefault, state->sync_stream()),
            "cudaMemcpyAsync", status)) {
      return;
    }
    CudaSucceeded(cudaStreamSynchronize(state->sync_stream()), "cudaStreamSynchronize", status);
  });
}

void EnqueueFillBytes(SP_Stream stream, SP_DeviceMemoryBase* location, uint8_t value, uint64_t size,
                      TF_Status* status) {
  GuardedCall(status, [&] {
    void* destination = AddressOf(location);
    if (!CheckStream(stream, status) || !CheckAddress(destination, "destination", size, status)) {
      return;
    }
    if (size == 0) {
      SetOk(status);
      return;
    }
    if (!CudaSucceeded(stream->device.Activate(), "cudaSetDevice", status)) return;
    CudaSucceeded(cudaMemsetAsync(destination, value, size, stream->stream.get()),
                  "cudaMemsetAsync", status);
  });
}

}  // namespace

void MemcpyDtoH(const SP_Device* /*device*/, SP_Stream stream, void* host_dst,
                const SP_DeviceMemoryBase* device_src, uint64_t size, TF_Status* status) noexcept {
  EnqueueCopy(stream, host_dst, AddressOf(device_src), size, status);
}

void MemcpyHtoD(const SP_Device* /*device*/, SP_Stream stream, SP_DeviceMemoryBase* device_dst,
                const void* host_src, uint64_t size, TF_Status* status) noexcept {
  EnqueueCopy(stream, AddressOf(device_dst), host_src, size, status);
}

void MemcpyDtoD(const SP_Device* /*device*/, SP_Stream stream, SP_DeviceMemoryBase* device_dst,
                const SP_DeviceMemoryBase* device_src, uint64_t size, TF_Status* status) noexcept {
  EnqueueCopy(stream, AddressOf(device_dst), AddressOf(device_src), size, status);
}

void SyncMemcpyDtoH(const SP_Device* device, void* host_dst, const SP_DeviceMemoryBase* device_src,
                    uint64_t size, TF_Status* status) noexcept {
  CopyNow(device, host_dst, AddressOf(device_src), size, status);
}

void SyncMemcpyHtoD(const SP_Device* device, SP_DeviceMemoryBase* device_dst, const void* host_src,
                    uint64_t size, TF_Status* status) noexcept {
  CopyNow(device, AddressOf(device_dst), host_src, size, status);
}

void SyncMemcpyDtoD(const SP_Device* device, SP_DeviceMemoryBase* device_dst,
                    const SP_DeviceMemoryBase* device_src, uint64_t size,
                    TF_Status* status) noexcept {
  CopyNow(device, AddressOf(device_dst), AddressOf(device_src), size, status);
}

void MemZero(const SP_Device* /*device*/, SP_Stream stream, SP_DeviceMemoryBase* location,
             uint64_t size, TF_Status* status) noexcept {
  EnqueueFillBytes(stream, location, 0, size, status);
}

void Memset(const SP_Device* /*device*/, SP_Stream stream, SP_DeviceMemoryBase* location,
            uint8_t pattern, uint64_t size, TF_Status* status) noexcept {
  EnqueueFillBytes(stream, location, pattern, size, status);
}

void Memset32(const SP_Device* /*device*/, SP_Stream stream, SP_DeviceMemoryBase* location,
              uint32_t pattern, uint64_t size, TF_Status* status) noexcept {
  GuardedCall(status, [&] {
    void* destination = AddressOf(location);
    if (!CheckStream(stream, status) || !CheckAddress(destination, "destination", size, status)) {
      return;
    }
    // `size` counts bytes, like TensorFlow's own test of memset32; a count
    // of words would be the classic mistake.
    if (size % sizeof(uint32_t) != 0) {
      SetError(
          status, TF_INVALID_ARGUMENT,
          "sectl_cuda: memset32 size " + std::to_string(size) + " is not a multiple of 4 bytes");
      return;
    }
    if (reinterpret_cast<uintptr_t>(destination) % alignof(uint32_t) != 0) {
      SetError(status, TF_INVALID_ARGUMENT,
               "sectl_cuda: memset32 destination is not 4-byte aligned");
      return;
    }
    if (size == 0) {
      SetOk(status);
      return;
    }
    if (!CudaSucceeded(stream->device.Activate(), "cudaSetDevice", status)) return;
    if (const std::string failure =
            EnqueueMemsetWords(destination, pattern, size / sizeof(uint32_t), stream->stream.get());
        !failure.empty()) {
      SetError(status, TF_INTERNAL, "sectl_cuda: " + failure);
      return;
    }
    SetOk(status);
  });
}

}  // namespace sectl_plugin::cuda
