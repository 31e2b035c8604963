// SP_DeviceFns: optional properties that describe a device to the host,
// read once when the device was created (device_description.cc).
//
// get_gflops is left unset: peak FLOP/s needs the number of FP32 units per
// multiprocessor, which CUDA does not report and which differs by
// architecture, and TensorFlow never reads it.

#include "../common/host_struct.h"
#include "argument_checks.h"
#include "plugin_fns.h"

namespace sectl_plugin::cuda {
namespace {

int32_t GetNumaNode(const SP_Device* device) noexcept {
  const DeviceState* state = StateOf(device);
  return state != nullptr ? state->description().numa_node : -1;
}

int64_t GetMemoryBandwidth(const SP_Device* device) noexcept {
  const DeviceState* state = StateOf(device);
  return state != nullptr ? state->description().memory_bandwidth : -1;
}

}  // namespace

void FillDeviceFns(SP_DeviceFns* device_fns) {
  HostStruct<SP_DeviceFns> fns(device_fns, SP_DEVICE_FNS_STRUCT_SIZE);
  fns.Set(&SP_DeviceFns::get_numa_node, GetNumaNode);
  fns.Set(&SP_DeviceFns::get_memory_bandwidth, GetMemoryBandwidth);
  fns.Set(&SP_DeviceFns::get_gflops, nullptr);
  fns.WriteBackSize();
}

}  // namespace sectl_plugin::cuda
