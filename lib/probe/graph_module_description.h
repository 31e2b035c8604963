// What probe says of a plugin's graph-optimizer module: what TF_InitGraph
// left in TensorFlow's pre-filled structs (host/graph_module.h), and what
// TensorFlow's loader would make of it (grappler.cc's checks, and what it
// registers; docs/tf-module-c-api-facts.md §7.5).
#pragma once

#include <string>
#include <vector>

#include "host/graph_module.h"
#include "probe/probe_report.h"

namespace sectl::probe {

// `platform_type` is the device type the plugin's platform registers.
GraphModuleDescription DescribeGraphModule(const host::GraphModuleRun& run,
                                           const std::string& platform_type,
                                           std::vector<Finding>& findings);

}  // namespace sectl::probe
