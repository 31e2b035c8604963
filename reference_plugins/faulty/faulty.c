/* Faulty plugins: the minimal reference plugin with exactly one seeded
 * fault, chosen by a compile definition. Each fault exists to prove that
 * one conformance check can fail; the table of faults and the checks they
 * trip is in the README, and tests/conform_faulty_plugins_test.cc asserts it.
 *
 * minimal.c is compiled with SE_InitPlugin renamed to Minimal_SE_InitPlugin;
 * this file's SE_InitPlugin calls it, then plants the fault. */
#include <string.h>

#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

void Minimal_SE_InitPlugin(SE_PlatformRegistrationParams* params, TF_Status* status);

static void (*minimal_create_stream_executor)(const SP_Platform*, SE_CreateStreamExecutorParams*,
                                              TF_Status*);
static void (*minimal_memcpy_dtoh)(const SP_Device*, SP_Stream, void*, const SP_DeviceMemoryBase*,
                                   uint64_t, TF_Status*);

#if defined(FAULT_CORRUPT_DTOH)
/* Device-to-host copies flip the first byte. */
static void CorruptingMemcpyDtoH(const SP_Device* device, SP_Stream stream, void* host_dst,
                                 const SP_DeviceMemoryBase* device_src, uint64_t size,
                                 TF_Status* status) {
  minimal_memcpy_dtoh(device, stream, host_dst, device_src, size, status);
  if (size > 0) ((unsigned char*)host_dst)[0] ^= 0xFF;
}
#endif

static void CreateFaultyStreamExecutor(const SP_Platform* platform,
                                       SE_CreateStreamExecutorParams* params, TF_Status* status) {
  minimal_create_stream_executor(platform, params, status);
  if (TF_GetCode(status) != TF_OK) return;
  SP_StreamExecutor* se = params->stream_executor;
#if defined(FAULT_NO_HOST_CALLBACK)
  se->host_callback = NULL;
#elif defined(FAULT_CORRUPT_DTOH)
  minimal_memcpy_dtoh = se->memcpy_dtoh;
  se->memcpy_dtoh = CorruptingMemcpyDtoH;
#endif
  (void)se;
  (void)minimal_memcpy_dtoh;
}

TF_CAPI_EXPORT void SE_InitPlugin(SE_PlatformRegistrationParams* params, TF_Status* status) {
  Minimal_SE_InitPlugin(params, status);
  if (TF_GetCode(status) != TF_OK) return;
  minimal_create_stream_executor = params->platform_fns->create_stream_executor;
  params->platform_fns->create_stream_executor = CreateFaultyStreamExecutor;
#if defined(FAULT_INVALID_PLATFORM_NAME)
  params->platform->name = "Faulty-Device";
#elif defined(FAULT_OVERWRITES_VERSION)
  params->major_version = 1;
  params->minor_version = 4;
  params->patch_version = 2;
#endif
}
