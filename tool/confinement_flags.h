// The flags that confine a plugin's processes, shared by `probe` and
// `conform`: --memory-limit, --cpu-limit, --pass-env and --no-namespaces.
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
  bool no_namespaces = false;
};

void AddConfinementFlags(CLI::App& command, ConfinementFlags& flags);

// The confinement the flags ask for; an error names a malformed value.
Expected<isolation::Confinement> ConfinementFromFlags(const ConfinementFlags& flags);

}  // namespace sectl::tool
