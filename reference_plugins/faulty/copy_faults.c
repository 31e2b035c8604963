/* Faults in copies and fills (checks/memcpy_checks.cc). */
#include <stddef.h>

#include "fault_hooks.h"

void PlantRegistrationFault(SE_PlatformRegistrationParams* params, TF_Status* status) {
  (void)params;
  (void)status;
}

#if defined(FAULT_CORRUPT_DTOH)
static void (*base_memcpy_dtoh)(const SP_Device*, SP_Stream, void*, const SP_DeviceMemoryBase*,
                                uint64_t, TF_Status*);

/* Device-to-host copies flip the first byte. */
static void CorruptingMemcpyDtoH(const SP_Device* device, SP_Stream stream, void* host_dst,
                                 const SP_DeviceMemoryBase* device_src, uint64_t size,
                                 TF_Status* status) {
  base_memcpy_dtoh(device, stream, host_dst, device_src, size, status);
  if (size > 0) ((unsigned char*)host_dst)[0] ^= 0xFF;
}
#endif

void PlantStreamExecutorFault(SP_StreamExecutor* stream_executor) {
#if defined(FAULT_CORRUPT_DTOH)
  base_memcpy_dtoh = stream_executor->memcpy_dtoh;
  stream_executor->memcpy_dtoh = CorruptingMemcpyDtoH;
#endif
  (void)stream_executor;
}
