// Which TVM C Device API devices a plugin file provides, read from its
// exported functions (no plugin code runs): each device's C name and which
// of its six hooks are exported with C linkage, and which were found only
// with C++ linkage (mangled names generated C code cannot call).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "base/error.h"
#include "tvm/c_device_names.h"

namespace sectl::tvm {

struct CDeviceEntry {
  std::string c_name;  // "Woofles"
  std::array<bool, kAllHooks.size()> exported{};
  std::vector<Hook> cxx_linkage_only;  // exported, but only as a mangled C++ name

  bool Exports(Hook hook) const { return exported[static_cast<size_t>(hook)]; }
  // The generated-code hooks it lacks with C linkage.
  std::vector<Hook> MissingGeneratedCodeHooks() const;
};

struct CDeviceCatalog {
  std::vector<CDeviceEntry> devices;  // sorted by C name

  const CDeviceEntry* Find(std::string_view c_name) const;
};

// The catalogue from a list of exported function names.
CDeviceCatalog CatalogFromSymbols(const std::vector<std::string>& functions);

// The catalogue of the plugin file at `path`.
Expected<CDeviceCatalog> ReadCDeviceCatalog(const std::string& path);

// The devices a conformance run drives: the device under test and, when the
// plugin has another, a second one for interleaved runs.
struct DevicesUnderTest {
  std::string device;
  std::optional<std::string> second;
};

// Resolves --tvm-device (a target name such as "ethos-u", or the C name
// "EthosU"; empty: the only device, or the first by name). An error names
// the devices the plugin does provide.
Expected<DevicesUnderTest> ChooseDevicesUnderTest(const CDeviceCatalog& catalog,
                                                  const std::string& requested);

}  // namespace sectl::tvm
