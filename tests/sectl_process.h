// Running the sectl executable from a test, as a user or a CI job would, and
// other programs the tests need (a JSON Schema validator).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace sectl::testing {

struct CommandResult {
  std::string out;
  std::string err;
  uint64_t peak_resident_bytes = 0;  // of the program and what it waited for
  int exit_code = -1;                // -1 when killed by a signal
  int term_signal = 0;               // the signal that killed it, 0 if none
  bool timed_out = false;            // killed at RunOptions::deadline
};

// How to run a program; the defaults run it as RunCommand does.
struct RunOptions {
  std::string directory;                       // where it runs, if not here
  std::vector<std::string> added_environment;  // "NAME=value", after ours
  // When set, the program (its whole process group, with own_process_group)
  // is continued and killed once it has run this long: a program that hung
  // or was stopped would otherwise hang the test.
  std::optional<std::chrono::milliseconds> deadline;
  // In the forked child, just before exec: for limits and capabilities that
  // only the program should have. It may _exit() to report a failure.
  std::function<void()> before_exec;
  // A process group of its own, so that the deadline also ends whatever the
  // program started.
  bool own_process_group = false;
};

// Runs `argv` (no shell): argv[0] is a path, or a name looked up on PATH.
// exit_code stays -1 when the program cannot be started.
CommandResult Run(const std::vector<std::string>& argv, const RunOptions& options);

// Runs SECTL_BINARY with `arguments` (no shell), in `directory` if given.
CommandResult RunSectl(const std::vector<std::string>& arguments,
                       const std::string& directory = {});
CommandResult RunSectl(const std::vector<std::string>& arguments, const RunOptions& options);

// Runs sectl with COLUMNS set to `columns` (the empty value stands for "not
// set": sectl ignores it) and NO_COLOR, so that the caller's environment
// cannot change a layout under test.
CommandResult RunWithColumns(const std::vector<std::string>& arguments, const std::string& columns);

// The lines of `text`, without their line ends.
std::vector<std::string> LinesOf(const std::string& text);

// Runs any program (no shell): argv[0] is a path, or a name looked up on PATH.
CommandResult RunCommand(const std::vector<std::string>& argv);

// Processes on this machine whose name (/proc/PID/comm, set with
// PR_SET_NAME) is `name` and that have not ended (zombies excluded). A
// plugin's process in its own PID namespace knows only its pid there, so a
// test finds what it left behind by a name it gave it.
std::vector<pid_t> LiveProcessesNamed(const std::string& name);

// Waits up to `patience` for LiveProcessesNamed(name) to be empty, and
// kills what is left then. True if none was left.
bool NoProcessNamedRemains(const std::string& name,
                           std::chrono::milliseconds patience = std::chrono::seconds(2));

// The path of a bundled reference plugin or of a test fixture.
std::string ReferencePlugin(const std::string& name);  // "sectl_cpu"
std::string FixturePlugin(const std::string& name);    // "crash_in_init"

// A new directory under the temporary directory, named `prefix` and six
// random characters, removed with everything in it. path() is empty when it
// could not be made.
class TemporaryDirectory {
 public:
  explicit TemporaryDirectory(const std::string& prefix = "sectl-test-");
  ~TemporaryDirectory();
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  TemporaryDirectory(TemporaryDirectory&&) = delete;
  TemporaryDirectory& operator=(TemporaryDirectory&&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace sectl::testing
