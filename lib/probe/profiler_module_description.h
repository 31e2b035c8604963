// What probe says of a plugin's profiler module: what TF_InitProfiler left
// in TensorFlow's pre-filled structs (host/profiler_module.h), judged by the
// checks TensorFlow's loader makes after it (pluggable_profiler.cc;
// docs/tf-module-c-api-facts.md §8.2).
#pragma once

#include <string>
#include <vector>

#include "host/profiler_module.h"
#include "probe/probe_report.h"

namespace sectl::probe {

// `platform_type` is the device type the plugin's platform registers.
ProfilerModuleDescription DescribeProfilerModule(const host::ProfilerModuleRun& run,
                                                 const std::string& platform_type,
                                                 std::vector<Finding>& findings);

}  // namespace sectl::probe
