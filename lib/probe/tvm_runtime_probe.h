// `sectl probe` for a TVM runtime library: which route reaches its DeviceAPI
// (the C API up to v0.20, or tvm-ffi from v0.21), the device types it can
// reach (kExist for each device type TVM names) and every attribute
// runtime.GetDeviceAttr gives for their devices. The runtime runs in a
// child process, so a crash or hang is reported, not suffered.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "base/error.h"
#include "isolation/confinement.h"

namespace sectl::probe {

struct TvmRuntimeProbeOptions {
  std::string path;
  std::string tvm_core;  // --tvm-core (loader::LoadOptions::tvm_core)
  bool lazy = false;
  bool isolate = true;
  std::chrono::milliseconds timeout{std::chrono::seconds(30)};
  isolation::Confinement confinement;
};

// The probe as JSON (docs/tvm-profiles.md shows its shape): "route",
// "device_types": [{"type", "name", "devices": [{"id", "attributes"}],
// "more_ids", "registered"}], and where they apply "signal_handlers" (what
// the runtime did to sectl's at load), "backend" (a backend library: its
// "core" and the "device_types_added" it registers that the core alone
// lacks) and "backends_beside" (a core: the backend libraries in its
// directory, whose devices need them). A kExist that crashes is that type's
// "kExist_error", and the other types are probed again without it.
Expected<nlohmann::json> ProbeTvmRuntime(const TvmRuntimeProbeOptions& options);

// The probe for people: answered attributes one per row, those left None on
// one row, a device with the same attributes as the one before in one line;
// wrapped to `width` columns (0: not wrapped).
std::string RenderTvmRuntimeProbeTable(const nlohmann::json& probe, size_t width);

}  // namespace sectl::probe
