// Running the sectl executable from a test, as a user or a CI job would, and
// other programs the tests need (a JSON Schema validator).
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

// Runs any program (no shell): argv[0] is a path, or a name looked up on PATH.
CommandResult RunCommand(const std::vector<std::string>& argv);

// The path of a bundled reference plugin or of a test fixture.
std::string ReferencePlugin(const std::string& name);  // "sectl_cpu"
std::string FixturePlugin(const std::string& name);    // "crash_in_init"

}  // namespace sectl::testing
