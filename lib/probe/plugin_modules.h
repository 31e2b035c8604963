// The modules of a PluggableDevice plugin, as TensorFlow's loader finds them
// (pluggable_device_plugin_init.cc; docs/tf-module-c-api-facts.md §10): it
// looks up six entry points and initialises each module it finds, in order.
// Read from the plugin's exported symbols and needed libraries on disk, so
// nothing of the plugin runs. sectl checks the StreamExecutor module; the
// others are recognised (docs/plugin-modules.md says what comes next).
#pragma once

#include <string>
#include <vector>

#include "base/error.h"
#include "probe/probe_report.h"

namespace sectl::probe {

struct PluginModules {
  std::vector<PluginModule> modules;
  // TensorFlow's own libraries the plugin names as needed (DT_NEEDED), which
  // sectl meets with its stand-ins (loader/tensorflow_stand_ins.h).
  std::vector<std::string> tensorflow_libraries_needed;
  // What the entry points alone show: a graph module under a name no
  // released TensorFlow looks up.
  std::vector<Finding> findings;
};

// An error only when the file cannot be read as a shared library, which
// loading it would have found first.
Expected<PluginModules> ScanPluginModules(const std::string& path);

}  // namespace sectl::probe
