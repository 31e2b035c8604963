// SE_InitPlugin and the platform: the plugin's front door.
//
// The host (TensorFlow, or sectl) calls SE_InitPlugin once after dlopen. The
// CUDA runtime is linked statically, so dlopen succeeds on any Linux machine;
// SE_InitPlugin then asks CUDA for devices and, where there are none, fails
// with a TF_Status that says why ("no CUDA driver: ...", "no CUDA device: ...")
// rather than registering a platform nobody can use.

#include <memory>
#include <string>

#include "../common/entry_guard.h"
#include "../common/host_struct.h"
#include "cuda_devices.h"
#include "device_state.h"
#include "plugin_fns.h"
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

namespace sectl_plugin::cuda {
namespace {

// Both must match [A-Z][A-Z_]*, and outlive SE_InitPlugin: string literals
// do. The type is not "GPU": a TensorFlow built with CUDA registers its own
// GPU device type, and two platforms may not share one.
constexpr char kPlatformName[] = "SECTL_CUDA";
constexpr char kPlatformType[] = "SECTL_CUDA";

// ---------------------------------------------------------------------------
// SP_PlatformFns
// ---------------------------------------------------------------------------

void GetDeviceCount(const SP_Platform* /*platform*/, int* device_count,
                    TF_Status* status) noexcept {
  if (device_count == nullptr) {
    SetError(status, TF_INVALID_ARGUMENT, "sectl_cuda: null device_count");
    return;
  }
  GuardedCall(status, [&] { CountDevices(device_count, status); });
}

void CreateDevice(const SP_Platform* /*platform*/, SE_CreateDeviceParams* params,
                  TF_Status* status) noexcept {
  GuardedCall(status, [&] {
    if (params == nullptr ||
        !HostStruct(params, SE_CREATE_DEVICE_PARAMS_STRUCT_SIZE)
             .Has(&SE_CreateDeviceParams::device) ||
        params->device == nullptr) {
      SetError(status, TF_INVALID_ARGUMENT, "sectl_cuda: create_device needs params->device");
      return;
    }
    int count = 0;
    if (!CountDevices(&count, status)) return;
    const int ordinal = params->ordinal;
    if (ordinal < 0 || ordinal >= count) {
      SetError(status, TF_OUT_OF_RANGE,
               "sectl_cuda: device ordinal " + std::to_string(ordinal) + " is outside [0, " +
                   std::to_string(count) + ")");
      return;
    }
    HostStruct device(params->device, SP_DEVICE_STRUCT_SIZE);
    if (!device.Has(&SP_Device::device_handle)) {
      SetError(status, TF_FAILED_PRECONDITION,
               "sectl_cuda: the host's SP_Device (struct_size " +
                   std::to_string(device.host_size()) + ") has no device_handle");
      return;
    }
    std::unique_ptr<DeviceState> state = DeviceState::Create(ordinal, status);
    if (state == nullptr) return;  // `status` says why.
    device.Set(&SP_Device::ordinal, ordinal);
    // The strings live in the DeviceState, as long as the device does.
    device.Set(&SP_Device::hardware_name, state->description().hardware_name.c_str());
    device.Set(&SP_Device::device_vendor, "NVIDIA");
    device.Set(&SP_Device::pci_bus_id, state->description().pci_bus_id.c_str());
    // The host copies this SP_Device; the handle travels with every copy and
    // is the only thing later calls may rely on. destroy_device re-owns it.
    device.Set(&SP_Device::device_handle, state.release());
    device.WriteBackSize();
    SetOk(status);
  });
}

void DestroyDevice(const SP_Platform* /*platform*/, SP_Device* device) noexcept {
  if (device == nullptr) return;
  GuardedCall(nullptr, [&] {
    std::unique_ptr<DeviceState> owned(static_cast<DeviceState*>(device->device_handle));
    device->device_handle = nullptr;
  });
}

void CreateDeviceFns(const SP_Platform* /*platform*/, SE_CreateDeviceFnsParams* params,
                     TF_Status* status) noexcept {
  GuardedCall(status, [&] {
    if (params == nullptr ||
        !HostStruct(params, SE_CREATE_DEVICE_FNS_PARAMS_STRUCT_SIZE)
             .Has(&SE_CreateDeviceFnsParams::device_fns) ||
        params->device_fns == nullptr) {
      SetError(status, TF_INVALID_ARGUMENT,
               "sectl_cuda: create_device_fns needs params->device_fns");
      return;
    }
    FillDeviceFns(params->device_fns);
    SetOk(status);
  });
}

// The function tables hold only pointers to functions; nothing to free.
void DestroyDeviceFns(const SP_Platform* /*platform*/, SP_DeviceFns* /*device_fns*/) noexcept {}

void CreateStreamExecutor(const SP_Platform* /*platform*/, SE_CreateStreamExecutorParams* params,
                          TF_Status* status) noexcept {
  GuardedCall(status, [&] {
    if (params == nullptr ||
        !HostStruct(params, SE_CREATE_STREAM_EXECUTOR_PARAMS_STRUCT_SIZE)
             .Has(&SE_CreateStreamExecutorParams::stream_executor) ||
        params->stream_executor == nullptr) {
      SetError(status, TF_INVALID_ARGUMENT,
               "sectl_cuda: create_stream_executor needs params->stream_executor");
      return;
    }
    FillStreamExecutor(params->stream_executor);
    SetOk(status);
  });
}

void DestroyStreamExecutor(const SP_Platform* /*platform*/,
                           SP_StreamExecutor* /*stream_executor*/) noexcept {}

void CreateTimerFns(const SP_Platform* /*platform*/, SP_TimerFns* timer_fns,
                    TF_Status* status) noexcept {
  GuardedCall(status, [&] {
    if (timer_fns == nullptr) {
      SetError(status, TF_INVALID_ARGUMENT, "sectl_cuda: null SP_TimerFns");
      return;
    }
    FillTimerFns(timer_fns);
    SetOk(status);
  });
}

void DestroyTimerFns(const SP_Platform* /*platform*/, SP_TimerFns* /*timer_fns*/) noexcept {}

// ---------------------------------------------------------------------------
// The platform itself
// ---------------------------------------------------------------------------

// The platform's strings are literals and its tables static functions:
// nothing was allocated, so there is nothing to release. The CUDA runtime
// tears itself down when the process exits or the plugin is unloaded.
void DestroyPlatform(SP_Platform* /*platform*/) noexcept {}
void DestroyPlatformFns(SP_PlatformFns* /*platform_fns*/) noexcept {}

void FillPlatform(SP_Platform* platform, bool supports_unified_memory) {
  HostStruct<SP_Platform> out(platform, SP_PLATFORM_STRUCT_SIZE);
  out.Set(&SP_Platform::name, kPlatformName);
  out.Set(&SP_Platform::type, kPlatformType);
  // Each flag was appended in a later TensorFlow (33, 34, 35 bytes): set
  // only those the host's struct has room for.
  out.Set(&SP_Platform::supports_unified_memory, supports_unified_memory);
  // cudaMalloc is slow and synchronises the device: TensorFlow should take
  // large regions and sub-allocate them with its BFC allocator.
  out.Set(&SP_Platform::use_bfc_allocator, true);
  out.Set(&SP_Platform::force_memory_growth, false);
  out.WriteBackSize();
}

void FillPlatformFns(SP_PlatformFns* platform_fns) {
  HostStruct<SP_PlatformFns> fns(platform_fns, SP_PLATFORM_FNS_STRUCT_SIZE);
  fns.Set(&SP_PlatformFns::get_device_count, GetDeviceCount);
  fns.Set(&SP_PlatformFns::create_device, CreateDevice);
  fns.Set(&SP_PlatformFns::destroy_device, DestroyDevice);
  fns.Set(&SP_PlatformFns::create_device_fns, CreateDeviceFns);
  fns.Set(&SP_PlatformFns::destroy_device_fns, DestroyDeviceFns);
  fns.Set(&SP_PlatformFns::create_stream_executor, CreateStreamExecutor);
  fns.Set(&SP_PlatformFns::destroy_stream_executor, DestroyStreamExecutor);
  fns.Set(&SP_PlatformFns::create_timer_fns, CreateTimerFns);
  fns.Set(&SP_PlatformFns::destroy_timer_fns, DestroyTimerFns);
  fns.WriteBackSize();
}

void InitPlugin(SE_PlatformRegistrationParams* params, TF_Status* status) {
  if (params == nullptr) {
    SetError(status, TF_INVALID_ARGUMENT, "sectl_cuda: null SE_PlatformRegistrationParams");
    return;
  }
  // The version fields are the host's: we read them and never write them.
  if (params->major_version != SE_MAJOR) {
    SetError(status, TF_FAILED_PRECONDITION,
             "sectl_cuda implements StreamExecutor C API major version " +
                 std::to_string(SE_MAJOR) + ", but the host announced major version " +
                 std::to_string(params->major_version));
    return;
  }
  HostStruct<SE_PlatformRegistrationParams> registration(
      params, SE_PLATFORM_REGISTRATION_PARAMS_STRUCT_SIZE);
  if (!registration.Has(&SE_PlatformRegistrationParams::platform_fns) ||
      params->platform == nullptr || params->platform_fns == nullptr) {
    SetError(status, TF_INVALID_ARGUMENT,
             "sectl_cuda: SE_PlatformRegistrationParams lacks platform or platform_fns");
    return;
  }
  // No devices, no platform: the status names the cause.
  int device_count = 0;
  if (!CountDevices(&device_count, status)) return;
  FillPlatform(params->platform, AllSupportManagedMemory(device_count));
  FillPlatformFns(params->platform_fns);
  registration.Set(&SE_PlatformRegistrationParams::destroy_platform, DestroyPlatform);
  registration.Set(&SE_PlatformRegistrationParams::destroy_platform_fns, DestroyPlatformFns);
  SetOk(status);
}

}  // namespace
}  // namespace sectl_plugin::cuda

// The plugin's only exported symbol; everything else has hidden visibility.
extern "C" TF_CAPI_EXPORT void SE_InitPlugin(SE_PlatformRegistrationParams* params,
                                             TF_Status* status) {
  sectl_plugin::GuardedCall(status, [&] { sectl_plugin::cuda::InitPlugin(params, status); });
}
