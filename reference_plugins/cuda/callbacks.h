// Every SP_StreamExecutor callback, declared where stream_executor.cc fills
// the table. Each is noexcept: nothing may unwind into the host.

#ifndef SECTL_REFERENCE_PLUGINS_CUDA_CALLBACKS_H_
#define SECTL_REFERENCE_PLUGINS_CUDA_CALLBACKS_H_

#include <cstdint>

#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

namespace sectl_plugin::cuda {

// --- memory_fns.cc: device, pinned host and managed memory; accounting ---
void Allocate(const SP_Device* device, uint64_t size, int64_t memory_space,
              SP_DeviceMemoryBase* memory) noexcept;
void Deallocate(const SP_Device* device, SP_DeviceMemoryBase* memory) noexcept;
void* HostMemoryAllocate(const SP_Device* device, uint64_t size) noexcept;
void HostMemoryDeallocate(const SP_Device* device, void* memory) noexcept;
void* UnifiedMemoryAllocate(const SP_Device* device, uint64_t bytes) noexcept;
void UnifiedMemoryDeallocate(const SP_Device* device, void* location) noexcept;
TF_Bool GetAllocatorStats(const SP_Device* device, SP_AllocatorStats* stats) noexcept;
TF_Bool DeviceMemoryUsage(const SP_Device* device, int64_t* free, int64_t* total) noexcept;

// --- stream_fns.cc: streams, events, timers, host callbacks ---
void CreateStream(const SP_Device* device, SP_Stream* stream, TF_Status* status) noexcept;
void DestroyStream(const SP_Device* device, SP_Stream stream) noexcept;
void CreateStreamDependency(const SP_Device* device, SP_Stream dependent, SP_Stream other,
                            TF_Status* status) noexcept;
void GetStreamStatus(const SP_Device* device, SP_Stream stream, TF_Status* status) noexcept;
void BlockHostUntilDone(const SP_Device* device, SP_Stream stream, TF_Status* status) noexcept;
void SynchronizeAllActivity(const SP_Device* device, TF_Status* status) noexcept;
void CreateEvent(const SP_Device* device, SP_Event* event, TF_Status* status) noexcept;
void DestroyEvent(const SP_Device* device, SP_Event event) noexcept;
SE_EventStatus GetEventStatus(const SP_Device* device, SP_Event event) noexcept;
void RecordEvent(const SP_Device* device, SP_Stream stream, SP_Event event,
                 TF_Status* status) noexcept;
void WaitForEvent(const SP_Device* device, SP_Stream stream, SP_Event event,
                  TF_Status* status) noexcept;
void BlockHostForEvent(const SP_Device* device, SP_Event event, TF_Status* status) noexcept;
void CreateTimer(const SP_Device* device, SP_Timer* timer, TF_Status* status) noexcept;
void DestroyTimer(const SP_Device* device, SP_Timer timer) noexcept;
void StartTimer(const SP_Device* device, SP_Stream stream, SP_Timer timer,
                TF_Status* status) noexcept;
void StopTimer(const SP_Device* device, SP_Stream stream, SP_Timer timer,
               TF_Status* status) noexcept;
TF_Bool HostCallback(const SP_Device* device, SP_Stream stream, SE_StatusCallbackFn callback_fn,
                     void* callback_arg) noexcept;

// --- copy_fns.cc: the six copies and the three fills ---
void MemcpyDtoH(const SP_Device* device, SP_Stream stream, void* host_dst,
                const SP_DeviceMemoryBase* device_src, uint64_t size, TF_Status* status) noexcept;
void MemcpyHtoD(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* device_dst,
                const void* host_src, uint64_t size, TF_Status* status) noexcept;
void MemcpyDtoD(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* device_dst,
                const SP_DeviceMemoryBase* device_src, uint64_t size, TF_Status* status) noexcept;
void SyncMemcpyDtoH(const SP_Device* device, void* host_dst, const SP_DeviceMemoryBase* device_src,
                    uint64_t size, TF_Status* status) noexcept;
void SyncMemcpyHtoD(const SP_Device* device, SP_DeviceMemoryBase* device_dst, const void* host_src,
                    uint64_t size, TF_Status* status) noexcept;
void SyncMemcpyDtoD(const SP_Device* device, SP_DeviceMemoryBase* device_dst,
                    const SP_DeviceMemoryBase* device_src, uint64_t size,
                    TF_Status* status) noexcept;
void MemZero(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* location,
             uint64_t size, TF_Status* status) noexcept;
void Memset(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* location,
            uint8_t pattern, uint64_t size, TF_Status* status) noexcept;
void Memset32(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* location,
              uint32_t pattern, uint64_t size, TF_Status* status) noexcept;

}  // namespace sectl_plugin::cuda

#endif  // SECTL_REFERENCE_PLUGINS_CUDA_CALLBACKS_H_
