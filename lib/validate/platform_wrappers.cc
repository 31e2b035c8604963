// Wrappers for the platform's functions: registration-time tables (wrapped
// in turn), devices, device properties, teardown.
#include <fmt/format.h>

#include <array>

#include "validate/forward.h"
#include "validate/table_wrapping.h"
#include "validate/wrapper_support.h"
#include "validate/wrappers.h"

namespace sectl::validate::wrappers {
namespace {

using abi::PluginFunction;

// Live allocations of `device` when it is destroyed: the host's leak.
void CheckNoLeaks(Call& call) {
  const std::vector<AllocationRecord> live = call.layer().objects().LiveAllocations(call.device());
  if (live.empty()) return;
  uint64_t bytes = 0;
  std::string sites;
  for (size_t i = 0; i < live.size(); ++i) {
    bytes += live[i].size;
    if (i < 5) {
      sites += fmt::format("{}{} allocation {} ({} bytes, call {}, from {})", i == 0 ? "" : "; ",
                           live[i].host ? "host" : "device", live[i].id, live[i].size,
                           live[i].sequence, DescribeCallSite(live[i].call_site));
    }
  }
  call.Raise(FindingKind::kLeakedAtTeardown,
             fmt::format("{} allocations ({} bytes) still live when device {} was destroyed: {}{}",
                         live.size(), bytes, call.device(), sites, live.size() > 5 ? "; ..." : ""));
}

// Streams, events and timers of `device` still live when it is destroyed:
// the plugin may free what they hold with the device.
void CheckNoLiveHandles(Call& call) {
  const std::array<size_t, 3> live = call.layer().objects().LiveHandlesOn(call.device());
  if (live[0] + live[1] + live[2] == 0) return;
  call.Raise(FindingKind::kHandleOutlivedDevice,
             fmt::format("device {} destroyed while {} streams, {} events and {} timers created "
                         "on it were live",
                         call.device(), live[0], live[1], live[2]));
}

}  // namespace

void DestroyPlatform(SP_Platform* platform) {
  Call call(PluginFunction::kDestroyPlatform, nullptr);
  Forward<&SE_PlatformRegistrationParams::destroy_platform>(call, platform);
}

void DestroyPlatformFns(SP_PlatformFns* platform_fns) {
  {
    Call call(PluginFunction::kDestroyPlatformFns, nullptr);
    Forward<&SE_PlatformRegistrationParams::destroy_platform_fns>(call, platform_fns);
  }
  // The end of the platform's life: the trace's end, and the report as it
  // stands (a process may end with _exit, running no exit handler).
  Layer::Get().EndTrace();
  Layer::Get().WriteReport("teardown");
}

void GetDeviceCount(const SP_Platform* platform, int* device_count, TF_Status* status) {
  Call call(PluginFunction::kGetDeviceCount, nullptr);
  Forward<&SP_PlatformFns::get_device_count>(call, platform, device_count, status);
  call.record().status = CodeOf(status);
  if (device_count != nullptr) call.record().result = *device_count;
}

void CreateDevice(const SP_Platform* platform, SE_CreateDeviceParams* params, TF_Status* status) {
  Call call(PluginFunction::kCreateDevice, nullptr);
  if (params != nullptr) call.record().device = params->ordinal;
  const size_t host_device_size =
      params != nullptr && params->device != nullptr ? params->device->struct_size : 0;
  Forward<&SP_PlatformFns::create_device>(call, platform, params, status);
  call.record().status = CodeOf(status);
  if (CodeOf(status) == TF_OK && params != nullptr) {
    CompareStructSize(call, abi::StructKind::kDevice, params->device, host_device_size);
    if (params->device != nullptr) call.layer().objects().DeviceCreated(params->device->ordinal);
  }
}

void DestroyDevice(const SP_Platform* platform, SP_Device* device) {
  {
    Call call(PluginFunction::kDestroyDevice, device);
    if (!call.withheld()) {
      CheckNoLeaks(call);
      CheckNoLiveHandles(call);
    }
    Forward<&SP_PlatformFns::destroy_device>(call, platform, device);
    if (!call.withheld()) call.layer().objects().DeviceDestroyed(device, call.device());
  }
  Layer::Get().WriteReport("teardown");
}

void CreateDeviceFns(const SP_Platform* platform, SE_CreateDeviceFnsParams* params,
                     TF_Status* status) {
  Call call(PluginFunction::kCreateDeviceFns, nullptr);
  SP_DeviceFns* table = params != nullptr ? params->device_fns : nullptr;
  const size_t host_size = table != nullptr ? table->struct_size : 0;
  Forward<&SP_PlatformFns::create_device_fns>(call, platform, params, status);
  call.record().status = CodeOf(status);
  if (CodeOf(status) == TF_OK) WrapTable(call, abi::StructKind::kDeviceFns, table, host_size);
}

void DestroyDeviceFns(const SP_Platform* platform, SP_DeviceFns* device_fns) {
  Call call(PluginFunction::kDestroyDeviceFns, nullptr);
  Forward<&SP_PlatformFns::destroy_device_fns>(call, platform, device_fns);
}

void CreateStreamExecutor(const SP_Platform* platform, SE_CreateStreamExecutorParams* params,
                          TF_Status* status) {
  Call call(PluginFunction::kCreateStreamExecutor, nullptr);
  SP_StreamExecutor* table = params != nullptr ? params->stream_executor : nullptr;
  const size_t host_size = table != nullptr ? table->struct_size : 0;
  Forward<&SP_PlatformFns::create_stream_executor>(call, platform, params, status);
  call.record().status = CodeOf(status);
  if (CodeOf(status) == TF_OK) {
    WrapTable(call, abi::StructKind::kStreamExecutor, table, host_size);
  }
}

void DestroyStreamExecutor(const SP_Platform* platform, SP_StreamExecutor* stream_executor) {
  Call call(PluginFunction::kDestroyStreamExecutor, nullptr);
  Forward<&SP_PlatformFns::destroy_stream_executor>(call, platform, stream_executor);
}

void CreateTimerFns(const SP_Platform* platform, SP_TimerFns* timer_fns, TF_Status* status) {
  Call call(PluginFunction::kCreateTimerFns, nullptr);
  const size_t host_size = timer_fns != nullptr ? timer_fns->struct_size : 0;
  Forward<&SP_PlatformFns::create_timer_fns>(call, platform, timer_fns, status);
  call.record().status = CodeOf(status);
  if (CodeOf(status) == TF_OK) WrapTable(call, abi::StructKind::kTimerFns, timer_fns, host_size);
}

void DestroyTimerFns(const SP_Platform* platform, SP_TimerFns* timer_fns) {
  Call call(PluginFunction::kDestroyTimerFns, nullptr);
  Forward<&SP_PlatformFns::destroy_timer_fns>(call, platform, timer_fns);
}

int32_t GetNumaNode(const SP_Device* device) {
  Call call(PluginFunction::kGetNumaNode, device);
  const int32_t node = Forward<&SP_DeviceFns::get_numa_node>(call, device);
  call.record().result = node;
  return node;
}

int64_t GetMemoryBandwidth(const SP_Device* device) {
  Call call(PluginFunction::kGetMemoryBandwidth, device);
  const int64_t bandwidth = Forward<&SP_DeviceFns::get_memory_bandwidth>(call, device);
  call.record().result = bandwidth;
  return bandwidth;
}

double GetGflops(const SP_Device* device) {
  Call call(PluginFunction::kGetGflops, device);
  const double gflops = Forward<&SP_DeviceFns::get_gflops>(call, device);
  call.record().result = static_cast<int64_t>(gflops);
  return gflops;
}

}  // namespace sectl::validate::wrappers
