// Running plugin code in a child process, so that a plugin that crashes,
// hangs, calls exit() or prints never takes sectl down or spoils its output.
//
// The child gets a result channel (a pipe) for its answer; its stdout and
// stderr go to a second pipe and come back as captured text. The parent
// waits with a deadline and kills the child's whole process group when it
// passes.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "base/error.h"

namespace sectl::isolation {

struct ChildOptions {
  std::chrono::milliseconds timeout{30'000};
  size_t max_captured_output = size_t{64} * 1024;  // of the child's stdout + stderr
};

enum class ChildEnd {
  kExited,    // returned from its body or called exit()
  kSignaled,  // killed by a signal: a crash, or an abort()
  kTimedOut,  // killed by sectl at the deadline
};

struct ChildResult {
  ChildEnd end = ChildEnd::kExited;
  int exit_code = 0;   // for kExited
  int signal = 0;      // for kSignaled
  std::string result;  // what the child wrote to its result channel
  std::string output;  // its stdout and stderr, interleaved, truncated
  bool output_truncated = false;
  double seconds = 0;
};

// Forks; the child runs `body(result_fd)` and exits with its return value
// without running atexit handlers or static destructors (the process may be
// damaged). The parent never runs plugin code.
Expected<ChildResult> RunInChildProcess(const std::function<int(int result_fd)>& body,
                                        const ChildOptions& options);

// Writes all of `text` to `fd`, retrying short writes.
bool WriteAll(int fd, const std::string& text);

// "SIGSEGV", "SIGABRT", ...
std::string SignalName(int signal);

}  // namespace sectl::isolation
