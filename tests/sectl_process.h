// Running the sectl executable from a test, as a user or a CI job would.
#pragma once

#include <string>
#include <vector>

namespace sectl::testing {

struct CommandResult {
  int exit_code = -1;  // -1 when killed by a signal
  std::string out;
  std::string err;
};

// Runs SECTL_BINARY with `arguments` (no shell), in `directory` if given.
CommandResult RunSectl(const std::vector<std::string>& arguments,
                       const std::string& directory = {});

// The path of a bundled reference plugin or of a test fixture.
std::string ReferencePlugin(const std::string& name);  // "sectl_cpu"
std::string FixturePlugin(const std::string& name);    // "crash_in_init"

}  // namespace sectl::testing
