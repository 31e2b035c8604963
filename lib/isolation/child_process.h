// Running plugin code in a child process, so that a plugin that crashes,
// hangs, calls exit() or prints never takes sectl down or spoils its output.
//
// The child gets a result channel (a pipe) for its answer; its stdout and
// stderr go to a second pipe and come back as captured text. The parent
// watches with a deadline and kills the child's whole process group when it
// passes. One thread can supervise many children (ChildProcess::Poll), so
// sectl never forks from a process with other threads running.
#pragma once

#include <poll.h>
#include <sys/resource.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "isolation/child_exit_codes.h"
#include "isolation/confinement.h"
#include "isolation/plugin_identity.h"
#include "isolation/process_limit_group.h"
#include "isolation/result_channel.h"

namespace sectl::isolation {

struct ChildOptions {
  std::chrono::milliseconds timeout{30'000};
  size_t max_captured_output = size_t{64} * 1024;  // of the child's stdout + stderr
  // On a crash signal, the child sends a backtrace over its result channel
  // (isolation/result_channel.h), then dies of the same signal.
  bool backtrace_on_crash = true;
  // Limits, environment and descriptors of the child (isolation/confinement.h).
  Confinement confinement;
};

enum class ChildEnd {
  kExited,       // returned from its body or called exit()
  kSignaled,     // killed by a signal: a crash, or an abort()
  kTimedOut,     // killed by sectl at the deadline
  kStopped,      // stopped or traced (PTRACE_TRACEME): killed by sectl; `signal` stopped it
  kInterrupted,  // killed because sectl itself got `signal` (isolation/interruption.h)
};

struct ChildResult {
  ChildEnd end = ChildEnd::kExited;
  int exit_code = 0;  // for kExited
  int signal = 0;     // for kSignaled, kStopped and kInterrupted
  // Processes the child left behind (its process group and session, and
  // orphans reparented to sectl as subreaper), killed and reaped by sectl.
  int stray_processes = 0;
  std::chrono::milliseconds timeout{0};  // the deadline it ran under
  // What sectl's code in the child sent as framed messages on the result
  // channel (isolation/result_channel.h); nothing here comes from printing.
  std::string result;                           // the child's answer
  std::optional<std::string> setup_failure;     // sectl could not confine the child
  std::vector<std::string> backtrace;           // of a crash, demangled
  std::optional<std::string> guard_page_fault;  // isolation/guard_malloc.h
  std::string output;                           // its stdout and stderr, interleaved, truncated
  double seconds = 0;
  // What the child (and any children it waited for) used, from wait4(2).
  double cpu_seconds = 0;
  uint64_t peak_resident_bytes = 0;
  bool reported = false;           // whether it sent an answer (perhaps empty)
  bool allocation_failed = false;  // under --memory-limit
  // Bytes on the channel that were no frame of sectl's, or more than
  // kMaxResultChannelBytes: the plugin wrote on sectl's channel.
  bool result_channel_foreign = false;
  // More than kMaxResultChannelBytes arrived: sectl stopped reading.
  bool answer_too_large = false;
  bool output_truncated = false;
  // Killed by sectl, it did not end within isolation/bounded_reap.h's grace
  // (a thread asleep in the kernel): abandoned, its usage unknown.
  bool stuck_after_kill = false;
};

// A running child. Destroying one that has not finished kills it.
class ChildProcess {
 public:
  // Forks; the child runs `body(result_fd)` and exits with its return value
  // without running atexit handlers or static destructors (the process may
  // be damaged). The parent never runs plugin code.
  static Expected<ChildProcess> Start(const std::function<int(int result_fd)>& body,
                                      const ChildOptions& options);

  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&&) = delete;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();

  // The descriptors to wait on with poll(2) until the child finishes.
  std::vector<pollfd> PollDescriptors() const;

  // Collects available output, reaps the child if it has ended and kills it
  // if its deadline has passed. True once the child has finished.
  bool Poll();

  bool finished() const { return finished_; }
  const ChildResult& result() const { return result_; }
  ChildResult TakeResult() { return std::move(result_); }

 private:
  ChildProcess(pid_t pid, int result_fd, int output_fd, ChildOptions options, ChannelKey key,
               bool namespaced);
  void CloseDescriptor(int& fd);
  void Drain();
  void CloseDescriptors();
  // After SIGKILL: reaps the child within a bounded grace, or marks it
  // stuck (isolation/bounded_reap.h).
  void ReapAfterKill(int& status, rusage& usage);
  void Finish(const rusage& usage);
  // How the plugin's process ended, as the reaper in its namespace says.
  void AdoptWorkerEnd(const WorkerEnd& end);

  pid_t pid_;
  int result_fd_;
  int output_fd_;
  int pid_fd_;  // readable once the child has exited; -1 where the kernel has no pidfd
  ChildOptions options_;
  ChannelKey key_;
  bool namespaced_;            // the child is pid 1 of new namespaces (isolation/namespaces.h)
  std::string channel_bytes_;  // raw, until the child has ended
  bool channel_overflowed_ = false;
  std::chrono::steady_clock::time_point started_;
  bool finished_ = false;
  ChildResult result_;
  // The plugin process's working directory (plugin_identity.h).
  std::optional<ScratchDirectory> scratch_;
  // The pids cgroup its whole tree runs in, where there is one
  // (process_limit_group.h).
  std::optional<ProcessLimitGroup> limit_group_;
};

// Starts a child and supervises it to the end.
Expected<ChildResult> RunInChildProcess(const std::function<int(int result_fd)>& body,
                                        const ChildOptions& options);

// Writes all of `text` to `fd`, retrying short writes.
bool WriteAll(int fd, const std::string& text);

// "SIGSEGV", "SIGABRT", ...
std::string SignalName(int signal);

}  // namespace sectl::isolation
