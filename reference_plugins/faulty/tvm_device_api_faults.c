/* Faults only TVM's DeviceAPI contract notices (checks/tvm_device_api_checks.cc,
 * profile tvm-device-api). The other checks of that profile are proven by
 * faulty plugins of the StreamExecutor areas; see tests/faulty_tvm_device_api_test.cc. */
#include <stddef.h>
#include <stdint.h>

#include "fault_hooks.h"

static void (*base_deallocate)(const SP_Device*, SP_DeviceMemoryBase*);
static void (*base_allocate)(const SP_Device*, uint64_t, int64_t, SP_DeviceMemoryBase*);

#if defined(FAULT_OUT_OF_ORDER_FREE_LEAKS)
/* A stack allocator that can only release its top: a free out of stack
 * order is dropped, and the memory never comes back. TensorFlow's BFC
 * allocator rarely frees out of order; TVM's workspace pool does. */
enum { kMaxLive = 256 };
static void* live[kMaxLive];
static int live_count = 0;

static void StackAllocate(const SP_Device* device, uint64_t size, int64_t memory_space,
                          SP_DeviceMemoryBase* memory) {
  base_allocate(device, size, memory_space, memory);
  if (memory->opaque != NULL && live_count < kMaxLive) live[live_count++] = memory->opaque;
}

static void StackDeallocate(const SP_Device* device, SP_DeviceMemoryBase* memory) {
  if (live_count > 0 && live[live_count - 1] == memory->opaque) {
    --live_count;
    base_deallocate(device, memory);
    return;
  }
  for (int i = 0; i < live_count; ++i) {
    if (live[i] == memory->opaque) {
      for (int j = i; j + 1 < live_count; ++j) live[j] = live[j + 1];
      --live_count;
      return; /* leaked */
    }
  }
  base_deallocate(device, memory);
}
#endif

void PlantRegistrationFault(SE_PlatformRegistrationParams* params, TF_Status* status) {
  (void)params;
  (void)status;
}

void PlantStreamExecutorFault(SP_StreamExecutor* stream_executor) {
  base_allocate = stream_executor->allocate;
  base_deallocate = stream_executor->deallocate;
#if defined(FAULT_OUT_OF_ORDER_FREE_LEAKS)
  stream_executor->allocate = StackAllocate;
  stream_executor->deallocate = StackDeallocate;
#endif
}
