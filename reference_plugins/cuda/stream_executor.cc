// SP_StreamExecutor: the table of callbacks, filled for the layout the host
// announced. The callbacks live in memory_fns.cc, stream_fns.cc and
// copy_fns.cc.

#include "../common/host_struct.h"
#include "callbacks.h"
#include "plugin_fns.h"

namespace sectl_plugin::cuda {

// The layout of SP_StreamExecutor before TensorFlow ~2.7 inserted mem_zero,
// memset and memset32: 264 bytes, with host_callback where mem_zero is now.
constexpr size_t kPre27StreamExecutorSize = 264;
constexpr size_t kPre27HostCallbackOffset = 256;
static_assert(TF_OFFSET_OF_END(SP_StreamExecutor, synchronize_all_activity) ==
              kPre27HostCallbackOffset);

void FillStreamExecutor(SP_StreamExecutor* executor) {
  HostStruct<SP_StreamExecutor> se(executor, SP_STREAMEXECUTOR_STRUCT_SIZE);
  se.Set(&SP_StreamExecutor::allocate, Allocate);
  se.Set(&SP_StreamExecutor::deallocate, Deallocate);
  se.Set(&SP_StreamExecutor::host_memory_allocate, HostMemoryAllocate);
  se.Set(&SP_StreamExecutor::host_memory_deallocate, HostMemoryDeallocate);
  se.Set(&SP_StreamExecutor::unified_memory_allocate, UnifiedMemoryAllocate);
  se.Set(&SP_StreamExecutor::unified_memory_deallocate, UnifiedMemoryDeallocate);
  se.Set(&SP_StreamExecutor::get_allocator_stats, GetAllocatorStats);
  se.Set(&SP_StreamExecutor::device_memory_usage, DeviceMemoryUsage);
  se.Set(&SP_StreamExecutor::create_stream, CreateStream);
  se.Set(&SP_StreamExecutor::destroy_stream, DestroyStream);
  se.Set(&SP_StreamExecutor::create_stream_dependency, CreateStreamDependency);
  se.Set(&SP_StreamExecutor::get_stream_status, GetStreamStatus);
  se.Set(&SP_StreamExecutor::create_event, CreateEvent);
  se.Set(&SP_StreamExecutor::destroy_event, DestroyEvent);
  se.Set(&SP_StreamExecutor::get_event_status, GetEventStatus);
  se.Set(&SP_StreamExecutor::record_event, RecordEvent);
  se.Set(&SP_StreamExecutor::wait_for_event, WaitForEvent);
  se.Set(&SP_StreamExecutor::create_timer, CreateTimer);
  se.Set(&SP_StreamExecutor::destroy_timer, DestroyTimer);
  se.Set(&SP_StreamExecutor::start_timer, StartTimer);
  se.Set(&SP_StreamExecutor::stop_timer, StopTimer);
  se.Set(&SP_StreamExecutor::memcpy_dtoh, MemcpyDtoH);
  se.Set(&SP_StreamExecutor::memcpy_htod, MemcpyHtoD);
  se.Set(&SP_StreamExecutor::memcpy_dtod, MemcpyDtoD);
  se.Set(&SP_StreamExecutor::sync_memcpy_dtoh, SyncMemcpyDtoH);
  se.Set(&SP_StreamExecutor::sync_memcpy_htod, SyncMemcpyHtoD);
  se.Set(&SP_StreamExecutor::sync_memcpy_dtod, SyncMemcpyDtoD);
  se.Set(&SP_StreamExecutor::block_host_for_event, BlockHostForEvent);
  se.Set(&SP_StreamExecutor::block_host_until_done, BlockHostUntilDone);
  se.Set(&SP_StreamExecutor::synchronize_all_activity, SynchronizeAllActivity);

  if (se.host_size() == kPre27StreamExecutorSize) {
    // An older host: its struct has no fills, and its host_callback sits
    // where today's mem_zero is. Filling by today's names would hand it
    // mem_zero as its host_callback.
    const decltype(SP_StreamExecutor::host_callback) host_callback = HostCallback;
    se.SetAtOffset(kPre27HostCallbackOffset, host_callback);
  } else {
    se.Set(&SP_StreamExecutor::mem_zero, MemZero);
    se.Set(&SP_StreamExecutor::memset, Memset);
    se.Set(&SP_StreamExecutor::memset32, Memset32);
    se.Set(&SP_StreamExecutor::host_callback, HostCallback);
  }
  se.WriteBackSize();
}

}  // namespace sectl_plugin::cuda
