// Faults for the runner's root-cause attribution (tests/root_cause_test.cc),
// not for any one conformance check: a basic function that crashes, one that
// answers false, one that throws. The checks in that test use or test them
// and must come out blocked, failed or crashed accordingly.
#include <csignal>
#include <stdexcept>

#include "fault_hooks.h"

extern "C" void PlantRegistrationFault(SE_PlatformRegistrationParams* params, TF_Status* status) {
  (void)params;
  (void)status;
}

namespace {

#if defined(FAULT_ROOT_SYNC_HTOD_CRASH)
void CrashingSyncMemcpyHtoD(const SP_Device*, SP_DeviceMemoryBase*, const void*, uint64_t,
                            TF_Status*) {
  std::raise(SIGSEGV);
}
#endif

#if defined(FAULT_ROOT_USAGE_FALSE)
TF_Bool RefusingDeviceMemoryUsage(const SP_Device*, int64_t*, int64_t*) { return 0; }
#endif

#if defined(FAULT_ROOT_USAGE_THROWS)
TF_Bool ThrowingDeviceMemoryUsage(const SP_Device*, int64_t*, int64_t*) {
  throw std::runtime_error("device lost");
}
#endif

}  // namespace

extern "C" void PlantStreamExecutorFault(SP_StreamExecutor* stream_executor) {
#if defined(FAULT_ROOT_SYNC_HTOD_CRASH)
  stream_executor->sync_memcpy_htod = CrashingSyncMemcpyHtoD;
#elif defined(FAULT_ROOT_USAGE_FALSE)
  stream_executor->device_memory_usage = RefusingDeviceMemoryUsage;
#elif defined(FAULT_ROOT_USAGE_THROWS)
  stream_executor->device_memory_usage = ThrowingDeviceMemoryUsage;
#else
  (void)stream_executor;
#endif
}
