// A fault in devices that needs C++ (checks/device_checks.cc): a plugin
// written in C++ whose create_device validates the ordinal by throwing, as
// std::vector::at does, instead of setting an error status. Inside
// TensorFlow the exception reaches C++ code compiled without a handler for
// it, and the process ends in std::terminate.
#include <stdexcept>
#include <string>

#include "fault_hooks.h"

namespace {

void (*base_get_device_count)(const SP_Platform*, int*, TF_Status*) = nullptr;
void (*base_create_device)(const SP_Platform*, SE_CreateDeviceParams*, TF_Status*) = nullptr;

#if defined(FAULT_THROWS_FROM_CREATE_DEVICE)
void CreateDeviceThrowingOnBadOrdinal(const SP_Platform* platform, SE_CreateDeviceParams* params,
                                      TF_Status* status) {
  int count = 0;
  base_get_device_count(platform, &count, status);
  if (TF_GetCode(status) == TF_OK && (params->ordinal < 0 || params->ordinal >= count)) {
    throw std::out_of_range("faulty: no device with ordinal " + std::to_string(params->ordinal));
  }
  base_create_device(platform, params, status);
}
#endif

}  // namespace

extern "C" void PlantRegistrationFault(SE_PlatformRegistrationParams* params, TF_Status* status) {
  (void)status;
  SP_PlatformFns* fns = params->platform_fns;
  base_get_device_count = fns->get_device_count;
  base_create_device = fns->create_device;
#if defined(FAULT_THROWS_FROM_CREATE_DEVICE)
  fns->create_device = CreateDeviceThrowingOnBadOrdinal;
#endif
}

extern "C" void PlantStreamExecutorFault(SP_StreamExecutor* stream_executor) {
  (void)stream_executor;
}
