// `sectl probe` for a TVM C Device API plugin: every device the file
// exports, which of its six hooks it has (and which only with C++ linkage),
// Read from the file's dynamic symbol table alone: the probe runs no plugin
// code (conform's checks are what call the hooks).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "base/error.h"
#include "tvm/c_device_catalog.h"

namespace sectl::probe {

struct TvmCDeviceProbe {
  std::string plugin_path;
  std::string sha256;
  tvm::CDeviceCatalog catalog;

  // True when some device lacks a hook generated code calls.
  bool HasErrors() const;
};

Expected<TvmCDeviceProbe> ProbeTvmCDevicePlugin(const std::string& path);

std::string TvmCDeviceProbeToJson(const TvmCDeviceProbe& probe);
// The table for people, wrapped at `width` columns (0: not wrapped).
std::string RenderTvmCDeviceProbeTable(const TvmCDeviceProbe& probe, size_t width);

}  // namespace sectl::probe
