#include "device_description.h"

#include <array>
#include <cctype>
#include <fstream>

namespace sectl_plugin::cuda {
namespace {

// The NUMA node the kernel reports for a PCI device; -1 when it has none
// (a single-node machine says -1 itself) or the file cannot be read.
int32_t ReadNumaNode(const std::string& pci_bus_id) {
  std::ifstream file("/sys/bus/pci/devices/" + pci_bus_id + "/numa_node");
  int32_t node = -1;
  if (!(file >> node) || node < 0) return -1;
  return node;
}

// Peak bandwidth from two attributes. CUDA 13 removed memoryClockRate from
// cudaDeviceProp; the attribute remains. Both are 0 on some virtual devices.
int64_t PeakMemoryBandwidth(int ordinal) {
  int memory_clock_khz = 0;
  int bus_width_bits = 0;
  if (cudaDeviceGetAttribute(&memory_clock_khz, cudaDevAttrMemoryClockRate, ordinal) !=
          cudaSuccess ||
      cudaDeviceGetAttribute(&bus_width_bits, cudaDevAttrGlobalMemoryBusWidth, ordinal) !=
          cudaSuccess ||
      memory_clock_khz <= 0 || bus_width_bits <= 0) {
    return -1;
  }
  constexpr int64_t kTransfersPerClock = 2;  // double data rate
  return int64_t{memory_clock_khz} * 1000 * kTransfersPerClock * (bus_width_bits / 8);
}

}  // namespace

cudaError_t DescribeDevice(int ordinal, DeviceDescription& description) {
  cudaDeviceProp properties{};
  if (cudaError_t error = cudaGetDeviceProperties(&properties, ordinal); error != cudaSuccess) {
    return error;
  }
  description.hardware_name = properties.name;
  description.total_memory = static_cast<int64_t>(properties.totalGlobalMem);
  description.managed_memory = properties.managedMemory != 0;

  // "0000:3B:00.0" from CUDA; sysfs spells the hexadecimal digits in lower case.
  std::array<char, 64> bus_id{};
  if (cudaError_t error = cudaDeviceGetPCIBusId(bus_id.data(), bus_id.size(), ordinal);
      error != cudaSuccess) {
    return error;
  }
  description.pci_bus_id = bus_id.data();
  for (char& c : description.pci_bus_id) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  description.numa_node = ReadNumaNode(description.pci_bus_id);
  description.memory_bandwidth = PeakMemoryBandwidth(ordinal);
  return cudaSuccess;
}

}  // namespace sectl_plugin::cuda
