// Wrappers for copies and fills: every device range must lie in a live
// allocation (sub-ranges are legal: TensorFlow's BFC allocator hands out
// pieces of large ones), and no host argument may point into device
// memory. A trace keeps a checksum of the host bytes each copy moved.
#include "trace/checksum.h"
#include "validate/forward.h"
#include "validate/wrapper_support.h"
#include "validate/wrappers.h"

namespace sectl::validate::wrappers {
namespace {

using abi::PluginFunction;

void KeepChecksum(Call& call, const void* host, uint64_t size) {
  if (!call.layer().tracing() || host == nullptr || size == 0) return;
  call.record().checksum = trace::ChecksumOf(host, size);
  call.record().has_checksum = true;
}

// mem_zero, memset and memset32: `size` bytes at `location`, enqueued on
// `stream`; the pattern, where there is one, comes before the size.
template <auto Member, typename... Pattern>
void Fill(Call& call, const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* location,
          uint64_t size, TF_Status* status, Pattern... pattern) {
  call.Number("size", size);
  call.record().size = size;
  (call.Number("pattern", pattern), ...);
  ((call.record().pattern = pattern), ...);
  call.record().stream = CheckOrderedCall(call, stream).stream;
  call.record().destination = CheckDeviceArgument(call, "location", location, size);
  Forward<Member>(call, device, stream, location, pattern..., size, status);
  FinishOrderedCall(call, stream, status);
}

}  // namespace

void MemcpyDtoH(const SP_Device* device, SP_Stream stream, void* host_dst,
                const SP_DeviceMemoryBase* device_src, uint64_t size, TF_Status* status) {
  Call call(PluginFunction::kMemcpyDtoH, device);
  call.Number("size", size);
  call.record().size = size;
  call.record().stream = CheckOrderedCall(call, stream).stream;
  call.record().source =
      CheckCopyArguments(call, "device_src", device_src, "host_dst", host_dst, size);
  Forward<&SP_StreamExecutor::memcpy_dtoh>(call, device, stream, host_dst, device_src, size,
                                           status);
  FinishOrderedCall(call, stream, status);
}

void MemcpyHtoD(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* device_dst,
                const void* host_src, uint64_t size, TF_Status* status) {
  Call call(PluginFunction::kMemcpyHtoD, device);
  call.Number("size", size);
  call.record().size = size;
  call.record().stream = CheckOrderedCall(call, stream).stream;
  call.record().destination =
      CheckCopyArguments(call, "device_dst", device_dst, "host_src", host_src, size);
  KeepChecksum(call, host_src, size);
  Forward<&SP_StreamExecutor::memcpy_htod>(call, device, stream, device_dst, host_src, size,
                                           status);
  FinishOrderedCall(call, stream, status);
}

void MemcpyDtoD(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* device_dst,
                const SP_DeviceMemoryBase* device_src, uint64_t size, TF_Status* status) {
  Call call(PluginFunction::kMemcpyDtoD, device);
  call.Number("size", size);
  call.record().size = size;
  call.record().stream = CheckOrderedCall(call, stream).stream;
  call.record().destination = CheckDeviceArgument(call, "device_dst", device_dst, size);
  call.record().source = CheckDeviceArgument(call, "device_src", device_src, size);
  Forward<&SP_StreamExecutor::memcpy_dtod>(call, device, stream, device_dst, device_src, size,
                                           status);
  FinishOrderedCall(call, stream, status);
}

void SyncMemcpyDtoH(const SP_Device* device, void* host_dst, const SP_DeviceMemoryBase* device_src,
                    uint64_t size, TF_Status* status) {
  Call call(PluginFunction::kSyncMemcpyDtoH, device);
  call.Number("size", size);
  call.record().size = size;
  call.record().source =
      CheckCopyArguments(call, "device_src", device_src, "host_dst", host_dst, size);
  Forward<&SP_StreamExecutor::sync_memcpy_dtoh>(call, device, host_dst, device_src, size, status);
  call.record().status = CodeOf(status);
  if (CodeOf(status) == TF_OK) KeepChecksum(call, host_dst, size);
}

void SyncMemcpyHtoD(const SP_Device* device, SP_DeviceMemoryBase* device_dst, const void* host_src,
                    uint64_t size, TF_Status* status) {
  Call call(PluginFunction::kSyncMemcpyHtoD, device);
  call.Number("size", size);
  call.record().size = size;
  call.record().destination =
      CheckCopyArguments(call, "device_dst", device_dst, "host_src", host_src, size);
  KeepChecksum(call, host_src, size);
  Forward<&SP_StreamExecutor::sync_memcpy_htod>(call, device, device_dst, host_src, size, status);
  call.record().status = CodeOf(status);
}

void SyncMemcpyDtoD(const SP_Device* device, SP_DeviceMemoryBase* device_dst,
                    const SP_DeviceMemoryBase* device_src, uint64_t size, TF_Status* status) {
  Call call(PluginFunction::kSyncMemcpyDtoD, device);
  call.Number("size", size);
  call.record().size = size;
  call.record().destination = CheckDeviceArgument(call, "device_dst", device_dst, size);
  call.record().source = CheckDeviceArgument(call, "device_src", device_src, size);
  Forward<&SP_StreamExecutor::sync_memcpy_dtod>(call, device, device_dst, device_src, size, status);
  call.record().status = CodeOf(status);
}

void MemZero(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* location,
             uint64_t size, TF_Status* status) {
  Call call(PluginFunction::kMemZero, device);
  Fill<&SP_StreamExecutor::mem_zero>(call, device, stream, location, size, status);
}

void Memset(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* location,
            uint8_t pattern, uint64_t size, TF_Status* status) {
  Call call(PluginFunction::kMemset, device);
  Fill<&SP_StreamExecutor::memset>(call, device, stream, location, size, status, pattern);
}

void Memset32(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* location,
              uint32_t pattern, uint64_t size, TF_Status* status) {
  Call call(PluginFunction::kMemset32, device);
  Fill<&SP_StreamExecutor::memset32>(call, device, stream, location, size, status, pattern);
}

}  // namespace sectl::validate::wrappers
