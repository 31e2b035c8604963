// What a CUDA device is, as the host shows it: SP_Device's strings and the
// answers of SP_DeviceFns.

#ifndef SECTL_REFERENCE_PLUGINS_CUDA_DEVICE_DESCRIPTION_H_
#define SECTL_REFERENCE_PLUGINS_CUDA_DEVICE_DESCRIPTION_H_

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

namespace sectl_plugin::cuda {

struct DeviceDescription {
  std::string hardware_name;  // "NVIDIA H100 80GB HBM3"
  std::string pci_bus_id;     // "0000:3b:00.0", lower case as in /sys/bus/pci/devices
  int32_t numa_node = -1;     // -1: the system does not say
  // Peak memory bandwidth in bytes per second: memory clock × 2 (double data
  // rate) × bus width in bytes. -1 where the device does not report both.
  int64_t memory_bandwidth = -1;
  int64_t total_memory = 0;  // bytes
  bool managed_memory = false;
};

// Reads the description of device `ordinal` from the CUDA runtime and, for
// the NUMA node, from /sys/bus/pci/devices/<pci_bus_id>/numa_node.
cudaError_t DescribeDevice(int ordinal, DeviceDescription& description);

}  // namespace sectl_plugin::cuda

#endif  // SECTL_REFERENCE_PLUGINS_CUDA_DEVICE_DESCRIPTION_H_
