#include "host/unusual_calls.h"

#include <utility>

#include "abi/struct_layouts.h"
#include "host/dispatcher.h"

namespace sectl::host {

UnusualCalls::CreatedDevice UnusualCalls::CreateDevice(Platform& platform, int ordinal) {
  auto device = platform.HandOver<SP_Device>(abi::StructKind::kDevice);
  auto params = platform.HandOver<SE_CreateDeviceParams>(abi::StructKind::kCreateDeviceParams);
  params->ordinal = ordinal;
  params->device = device.get();
  auto status = platform.dispatcher().CallWithStatus<&SP_PlatformFns::create_device>(
      platform.platform_fns({}), platform.plugin_platform(), params.get());
  return {std::move(status), *device.get()};
}

void UnusualCalls::DestroyDevice(const Platform& platform, SP_Device device) {
  (void)platform.dispatcher().Call<&SP_PlatformFns::destroy_device>(
      platform.platform_fns({}), platform.plugin_platform(), &device);
}

Expected<SP_DeviceMemoryBase> UnusualCalls::Allocate(const Device& device, uint64_t size,
                                                     int64_t memory_space) {
  SP_DeviceMemoryBase memory{};
  memory.struct_size = SP_DEVICE_MEMORY_BASE_STRUCT_SIZE;
  auto called = device.dispatcher().Call<&SP_StreamExecutor::allocate>(
      device.fns({}), device.plugin_device(), size, memory_space, &memory);
  if (!called) return tl::unexpected(called.error());
  return memory;
}

void UnusualCalls::Deallocate(const Device& device, SP_DeviceMemoryBase memory) {
  (void)device.dispatcher().Call<&SP_StreamExecutor::deallocate>(device.fns({}),
                                                                 device.plugin_device(), &memory);
}

Expected<void*> UnusualCalls::AllocateHost(const Device& device, HostMemoryKind kind,
                                           uint64_t size) {
  if (kind == HostMemoryKind::kPinned) {
    return device.dispatcher().Call<&SP_StreamExecutor::host_memory_allocate>(
        device.fns({}), device.plugin_device(), size);
  }
  return device.dispatcher().Call<&SP_StreamExecutor::unified_memory_allocate>(
      device.fns({}), device.plugin_device(), size);
}

InitOnlyRegistration::InitOnlyRegistration(Journal& journal, loader::InitPluginFunction init_plugin,
                                           const VersionFields& offered,
                                           remote::PluginServer* server)
    : dispatcher_(journal),
      offered_(offered),
      params_(SE_PLATFORM_REGISTRATION_PARAMS_STRUCT_SIZE, sizeof(SE_PlatformRegistrationParams),
              server ? &server->arena() : nullptr),
      platform_(SP_PLATFORM_STRUCT_SIZE, sizeof(SP_Platform), server ? &server->arena() : nullptr),
      platform_fns_(SP_PLATFORM_FNS_STRUCT_SIZE, sizeof(SP_PlatformFns),
                    server ? &server->arena() : nullptr) {
  dispatcher_.UseServer(server);
  params_->major_version = offered.major;
  params_->minor_version = offered.minor;
  params_->patch_version = offered.patch;
  params_->platform = platform_.get();
  params_->platform_fns = platform_fns_.get();
  result_ = dispatcher_.CallInitPlugin(init_plugin, params_.get());
}

InitOnlyRegistration::~InitOnlyRegistration() {
  if (!succeeded()) return;  // TensorFlow destroys nothing it failed to register
  (void)dispatcher_.Call<&SE_PlatformRegistrationParams::destroy_platform>(*params_.get(),
                                                                           platform_.get());
  (void)dispatcher_.Call<&SE_PlatformRegistrationParams::destroy_platform_fns>(*params_.get(),
                                                                               platform_fns_.get());
}

std::vector<std::string> InitOnlyRegistration::RegisteredMembers() const {
  std::vector<std::string> members;
  if (platform_.get()->name != nullptr) members.emplace_back("name");
  if (platform_.get()->type != nullptr) members.emplace_back("type");
  if (params_.get()->destroy_platform != nullptr) members.emplace_back("destroy_platform");
  if (params_.get()->destroy_platform_fns != nullptr) members.emplace_back("destroy_platform_fns");
  return members;
}

}  // namespace sectl::host
