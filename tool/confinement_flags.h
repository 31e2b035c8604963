// The flags that confine a plugin's processes, shared by `probe` and
// `conform`: --memory-limit, --cpu-limit, --pass-env, --plugin-writes and
// --no-namespaces.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "base/error.h"
#include "isolation/confinement.h"

namespace sectl::tool {

struct ConfinementFlags {
  std::string memory_limit;  // "512MiB"; empty: no limit
  int cpu_limit_seconds = 0;
  std::vector<std::string> pass_env;
  std::vector<std::string> plugin_writes;
  bool no_namespaces = false;
};

void AddConfinementFlags(CLI::App& command, ConfinementFlags& flags);

// The confinement the flags ask for; an error names a malformed value.
// `plugin_files`: what the plugin's process must read (the plugin, a TVM
// core), absolute; who it runs as depends on them (isolation/plugin_identity.h).
Expected<isolation::Confinement> ConfinementFromFlags(const ConfinementFlags& flags,
                                                      std::vector<std::string> plugin_files);

}  // namespace sectl::tool
