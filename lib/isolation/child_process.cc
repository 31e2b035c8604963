#include "isolation/child_process.h"

#include <execinfo.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;  // NOLINT: POSIX declares it nowhere in C++

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>
#include <utility>

#include "isolation/bounded_reap.h"
#include "isolation/file_system_view.h"
#include "isolation/guard_malloc.h"
#include "isolation/interruption.h"
#include "isolation/namespaces.h"
#include "isolation/sandbox.h"
#include "isolation/secret_residue.h"
#include "isolation/stray_processes.h"
#include "isolation/supervisor.h"

namespace sectl::isolation {
namespace {

using Clock = std::chrono::steady_clock;

// How often a parent waiting on a child wakes up anyway, to see deadlines.
// The child's exit itself wakes it through a pidfd, so this bounds only how
// late a timeout is noticed (and the wait where the kernel has no pidfd).
constexpr int kPollIntervalMilliseconds = 20;

// Set in a child once confined: a check that starts probe processes of its
// own (a TVM C Device check) starts them inside its namespaces, without the
// capabilities new ones would take.
bool inside_confined_child = false;

// Reads what is available without blocking; false at end of file.
bool DrainInto(int fd, std::string& sink, size_t limit, bool* truncated) {
  std::array<char, size_t{16} * 1024> buffer{};
  while (true) {
    ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got > 0) {
      const size_t room = sink.size() < limit ? limit - sink.size() : 0;
      sink.append(buffer.data(), std::min(room, static_cast<size_t>(got)));
      if (static_cast<size_t>(got) > room && truncated != nullptr) *truncated = true;
      continue;
    }
    if (got == 0) return false;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK;
  }
}

// What the guard-page allocator saw, as a frame (isolation/guard_malloc.h).
void SendGuardPageFault(std::string_view description) {
  WriteFrame(FrameKind::kGuardPageFault, description.data(), description.size());
}

// Sends a backtrace as a frame, then dies of the same signal.
// backtrace() is not formally async-signal-safe; it was called once at
// set-up so that nothing is loaded here, which is the usual practice of
// crash handlers. The process is dying either way.
void SendBacktraceAndDie(int signal) {
  constexpr int kMaxFrames = 64;
  std::array<void*, kMaxFrames> frames{};
  const int count = ::backtrace(frames.data(), kMaxFrames);
  // backtrace_symbols_fd writes into a pipe made here (pipe2 is
  // async-signal-safe), so that the lines go out as one frame on the result
  // channel: printed to stderr, a plugin that prints could forge them.
  std::array<int, 2> staging{-1, -1};
  if (::pipe2(staging.data(), O_CLOEXEC | O_NONBLOCK) == 0) {
    ::backtrace_symbols_fd(frames.data(), count, staging[1]);
    static std::array<char, size_t{32} * 1024> lines{};
    const ssize_t got = ::read(staging[0], lines.data(), lines.size());
    if (got > 0) WriteFrame(FrameKind::kBacktrace, lines.data(), static_cast<size_t>(got));
  }
  ::signal(signal, SIG_DFL);
  ::raise(signal);
}

void InstallCrashHandlers() {
  // An alternate stack, so that a stack overflow can still be reported.
  static std::array<char, size_t{64} * 1024> alternate_stack{};
  stack_t stack{};
  stack.ss_sp = alternate_stack.data();
  stack.ss_size = alternate_stack.size();
  ::sigaltstack(&stack, nullptr);
  std::array<void*, 1> warm_up{};
  ::backtrace(warm_up.data(), 1);
  struct sigaction action {};
  action.sa_handler = SendBacktraceAndDie;
  action.sa_flags = SA_ONSTACK | SA_RESETHAND;
  for (int signal : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT})
    ::sigaction(signal, &action, nullptr);
}

// Crash signals end the child by their default action: the handlers the
// parent had (a sanitizer's, say) would turn a plugin's crash into an exit.
void RestoreDefaultCrashActions() {
  for (int signal : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) ::signal(signal, SIG_DFL);
}

[[noreturn]] void RunChild(const std::function<int(int)>& body, const ChildOptions& options,
                           const PluginProcessSetup& setup,
                           const std::vector<std::string>& environment, int result_fd,
                           int output_fd, const ChannelKey& key, pid_t parent,
                           const CompiledSandboxFilter* filter) {
  ForgetSupervisorEnvironment();
  // The parent's registers and dead stack came with the fork.
  ClearVectorRegisters();
  ClearDeadStack();
  // Dies with sectl; checked after, for a sectl that died before the call.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(kConfinementFailed);
  // Not dumpable, as sectl is (PrepareSupervisor): no other process of the
  // plugin's user may read its memory. It still reads its own /proc/self.
  ::prctl(PR_SET_DUMPABLE, 0);
  // The handlers of an interrupted sectl are not the child's.
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) ::signal(signal, SIG_DFL);
  ::dup2(output_fd, STDOUT_FILENO);
  ::dup2(output_fd, STDERR_FILENO);
  const int channel = AdoptResultChannel(result_fd, key);
  if (channel < 0) ::_exit(kConfinementFailed);
  SetGuardPageFaultSink(SendGuardPageFault);
  // Its own session and process group, so a plugin that forks is killed
  // with its child, and everything else of confinement.h.
  if (auto confined = ConfineChild(options.confinement, setup, environment, channel, filter);
      !confined) {
    // On the result channel, which no plugin code has touched yet, so that
    // a plugin's own exit(122) is not taken for this.
    const std::string& why = confined.error().message();
    WriteFrame(FrameKind::kSetupFailure, why.data(), why.size());
    ::_exit(kConfinementFailed);
  }
  if (options.backtrace_on_crash) {
    InstallCrashHandlers();
  } else {
    RestoreDefaultCrashActions();
  }
  ::signal(SIGPIPE, SIG_IGN);
  inside_confined_child = true;
  // From here on plugin code may run: no set-up failure of sectl's follows.
  WriteFrame(FrameKind::kConfined, nullptr, 0);
  int code = 2;
  try {
    code = body(channel);
  } catch (...) {
    code = 2;
  }
  std::fflush(nullptr);
  ::_exit(code);
}

// sectl's child in new namespaces (isolation/namespaces.h): pid 1 there, a
// reaper of sectl's own code. It sets the namespaces up, forks the process
// that runs the plugin (pid 2) and reports how that one ended.
[[noreturn]] void RunNamespaceInit(const std::function<int(int)>& body, const ChildOptions& options,
                                   const PluginProcessSetup& setup,
                                   const std::vector<std::string>& environment, int result_fd,
                                   int output_fd, const ChannelKey& key,
                                   const NamespaceSupport& support, const OuterIdentity& identity,
                                   const CompiledSandboxFilter* filter) {
  ForgetSupervisorEnvironment();
  // No check of getppid() after this, as RunChild does: the parent is
  // outside the namespace, so it reads 0. A sectl that died this early
  // leaves a child that ends with its worker.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) ::signal(signal, SIG_DFL);
  ::setsid();
  // Its stdout is not sectl's: nothing of sectl's is left for a plugin to
  // find in its parent.
  ::dup2(output_fd, STDOUT_FILENO);
  ::dup2(output_fd, STDERR_FILENO);
  const int channel = AdoptResultChannel(result_fd, key);
  if (channel < 0) ::_exit(kConfinementFailed);
  if (auto set_up = SetUpNamespaces(support, identity); !set_up) {
    const std::string why = "namespaces: " + set_up.error().message();
    WriteFrame(FrameKind::kSetupFailure, why.data(), why.size());
    ::_exit(kConfinementFailed);
  }
  // Read-only but for the plugin's own (file_system_view.h), where the
  // trial found the kernel allows it.
  if (setup.file_system_view) {
    if (auto view = PrepareFileSystemView(setup.scratch, setup.writable, setup.identity); !view) {
      const std::string why = "file system: " + view.error().message();
      WriteFrame(FrameKind::kSetupFailure, why.data(), why.size());
      ::_exit(kConfinementFailed);
    }
  }
  const pid_t worker = ::fork();
  if (worker == 0) {
    RunChild(body, options, setup, environment, channel, output_fd, key, /*parent=*/1, filter);
  }
  const int null_output = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null_output >= 0) {
    ::dup2(null_output, STDOUT_FILENO);
    ::dup2(null_output, STDERR_FILENO);
    ::close(null_output);
  }
  ::close(output_fd);
  if (worker < 0) {
    const std::string why = fmt::format("cannot fork in the namespace: {}", strerrorname_np(errno));
    WriteFrame(FrameKind::kSetupFailure, why.data(), why.size());
    ::_exit(kConfinementFailed);
  }
  RunNamespaceReaper(worker);
}

// How long a fork that fails for want of processes is tried again: a
// plugin that forks thousands (in a check running beside this one, under
// -j) is usually ended within that, and its processes with it.
constexpr std::chrono::milliseconds kForkPatience{3000};

// Calls `fork_once` until it succeeds, fails for another reason than
// EAGAIN, or kForkPatience has passed, pausing between tries.
template <typename ForkOnce>
pid_t ForkPatiently(ForkOnce fork_once) {
  const auto deadline = Clock::now() + kForkPatience;
  while (true) {
    const pid_t pid = fork_once();
    if (pid >= 0 || errno != EAGAIN || Clock::now() >= deadline || InterruptedBy() != 0) {
      return pid;
    }
    const timespec pause{0, 20'000'000};
    ::nanosleep(&pause, nullptr);
  }
}

double SecondsOf(const timeval& time) {
  return static_cast<double>(time.tv_sec) + static_cast<double>(time.tv_usec) / 1e6;
}

}  // namespace

bool WriteAll(int fd, const std::string& text) {
  const char* data = text.data();
  size_t remaining = text.size();
  while (remaining > 0) {
    ssize_t written = ::write(fd, data, remaining);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return false;
    data += written;
    remaining -= static_cast<size_t>(written);
  }
  return true;
}

std::string SignalName(int signal) {
  if (const char* abbreviation = ::sigabbrev_np(signal)) return fmt::format("SIG{}", abbreviation);
  return fmt::format("signal {}", signal);
}

Expected<ChildProcess> ChildProcess::Start(const std::function<int(int result_fd)>& body,
                                           const ChildOptions& options) {
  std::array<int, 2> result_pipe{-1, -1};
  std::array<int, 2> output_pipe{-1, -1};
  if (::pipe2(result_pipe.data(), O_CLOEXEC) != 0) {
    return Fail(ErrorCode::kInternal,
                fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  }
  if (::pipe2(output_pipe.data(), O_CLOEXEC) != 0) {
    ::close(result_pipe[0]);
    ::close(result_pipe[1]);
    return Fail(ErrorCode::kInternal,
                fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  }
  auto key = NewChannelKey();
  if (!key) {
    for (int fd : {result_pipe[0], result_pipe[1], output_pipe[0], output_pipe[1]}) ::close(fd);
    return tl::unexpected(key.error());
  }
  const pid_t parent = ::getpid();
  // Chosen here, where sectl's environment is known to be intact.
  const std::vector<std::string> environment =
      PluginEnvironment(environ, options.confinement.passed_environment);
  const bool namespaced =
      options.confinement.namespaces && !inside_confined_child && ProbeNamespaces().pid;
  const NamespaceSupport support = namespaced ? ProbeNamespaces() : NamespaceSupport{};
  const OuterIdentity identity = CurrentIdentity();
  // The plugin's process sees sectl, or the reaper at pid 1, as its parent.
  const CompiledSandboxFilter* filter = CompileSandboxFilter(namespaced ? 1 : parent);
  PluginProcessSetup setup{.identity = PluginIdentityFor(options.confinement), .scratch = {}};
  auto scratch = ScratchDirectory::Create(setup.identity);
  if (!scratch) {
    for (int fd : {result_pipe[0], result_pipe[1], output_pipe[0], output_pipe[1]}) ::close(fd);
    return tl::unexpected(scratch.error());
  }
  setup.scratch = scratch->path();
  setup.writable = PluginWrites(options.confinement);
  setup.file_system_view = namespaced && FileSystemViewTrialFailure().empty();
  // Where the plugin stays root, which RLIMIT_NPROC never bounds; as
  // nobody, RLIMIT_NPROC does, and a group would cost each check a
  // migration (about 10 ms: the kernel waits out an RCU grace period).
  // None where the kernel offers none: the report's confinement says so.
  std::optional<ProcessLimitGroup> limit_group;
  if (::geteuid() == 0 && !setup.identity.switch_user) {
    if (auto created = ProcessLimitGroup::Create(kMaxPluginProcesses)) {
      limit_group.emplace(std::move(*created));
    }
  }
  std::fflush(nullptr);  // nothing buffered may be written twice
  const pid_t pid =
      ForkPatiently([&] { return namespaced ? CloneIntoNamespaces(support) : ::fork(); });
  if (pid == 0) {
    // First, before it forks anything: all it starts is counted.
    if (limit_group) (void)limit_group->Join();
    ::close(result_pipe[0]);
    ::close(output_pipe[0]);
    if (namespaced) {
      RunNamespaceInit(body, options, setup, environment, result_pipe[1], output_pipe[1], *key,
                       support, identity, filter);
    }
    RunChild(body, options, setup, environment, result_pipe[1], output_pipe[1], *key, parent,
             filter);
  }
  ::close(result_pipe[1]);
  ::close(output_pipe[1]);
  if (pid < 0) {
    ::close(result_pipe[0]);
    ::close(output_pipe[0]);
    if (errno == EAGAIN) {
      return Fail(ErrorCode::kInternal,
                  fmt::format("cannot fork for {:.0f} s: the machine's limit on processes is "
                              "reached (EAGAIN); a plugin process that is still running may "
                              "hold them",
                              std::chrono::duration<double>(kForkPatience).count()));
    }
    return Fail(ErrorCode::kInternal, fmt::format("cannot fork: {}", std::strerror(errno)));
  }
  RegisterLiveChild(pid);
  ::fcntl(result_pipe[0], F_SETFL, O_NONBLOCK);
  ::fcntl(output_pipe[0], F_SETFL, O_NONBLOCK);
  ChildProcess child(pid, result_pipe[0], output_pipe[0], options, *key, namespaced);
  child.scratch_.emplace(std::move(*scratch));
  if (limit_group) child.limit_group_.emplace(std::move(*limit_group));
  return child;
}

ChildProcess::ChildProcess(pid_t pid, int result_fd, int output_fd, ChildOptions options,
                           ChannelKey key, bool namespaced)
    : pid_(pid),
      result_fd_(result_fd),
      output_fd_(output_fd),
      // A pidfd makes the child's exit wake poll(2) at once: waiting on the
      // pipes alone, an exit after the pipes close would wait out an interval.
      pid_fd_(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0))),
      options_(std::move(options)),
      key_(key),
      namespaced_(namespaced),
      started_(Clock::now()) {
  result_.timeout = options_.timeout;
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      result_fd_(std::exchange(other.result_fd_, -1)),
      output_fd_(std::exchange(other.output_fd_, -1)),
      pid_fd_(std::exchange(other.pid_fd_, -1)),
      options_(std::move(other.options_)),
      key_(other.key_),
      namespaced_(other.namespaced_),
      channel_bytes_(std::move(other.channel_bytes_)),
      channel_overflowed_(other.channel_overflowed_),
      started_(other.started_),
      finished_(std::exchange(other.finished_, true)),
      result_(std::move(other.result_)),
      scratch_(std::move(other.scratch_)),
      limit_group_(std::move(other.limit_group_)) {}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !finished_) {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    (void)ReapKilled(pid_, InterruptedBy() != 0 ? kInterruptedProcessGrace : kKilledProcessGrace);
    UnregisterLiveChild(pid_);
    EndStrayProcesses(pid_);
  }
  CloseDescriptors();
}

void ChildProcess::CloseDescriptor(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

void ChildProcess::CloseDescriptors() {
  CloseDescriptor(result_fd_);
  CloseDescriptor(output_fd_);
  CloseDescriptor(pid_fd_);
}

std::vector<pollfd> ChildProcess::PollDescriptors() const {
  std::vector<pollfd> descriptors;
  if (result_fd_ >= 0) descriptors.push_back({result_fd_, POLLIN, 0});
  if (output_fd_ >= 0) descriptors.push_back({output_fd_, POLLIN, 0});
  if (pid_fd_ >= 0) descriptors.push_back({pid_fd_, POLLIN, 0});
  if (InterruptionDescriptor() >= 0) descriptors.push_back({InterruptionDescriptor(), POLLIN, 0});
  return descriptors;
}

void ChildProcess::Drain() {
  if (result_fd_ >= 0) {
    const bool open = DrainInto(result_fd_, channel_bytes_, kMaxResultChannelBytes + 1, nullptr);
    // Past the cap the plugin is flooding the channel: stop reading, so
    // that sectl's memory stays bounded; its writes now fail.
    if (channel_bytes_.size() > kMaxResultChannelBytes) channel_overflowed_ = true;
    if (!open || channel_overflowed_) CloseDescriptor(result_fd_);
  }
  if (output_fd_ >= 0 && !DrainInto(output_fd_, result_.output, options_.max_captured_output,
                                    &result_.output_truncated)) {
    CloseDescriptor(output_fd_);
  }
}

bool ChildProcess::Poll() {
  if (finished_) return true;
  Drain();
  int status = 0;
  rusage usage{};
  // WUNTRACED: a child that stopped itself (raise(SIGSTOP)) is seen at once,
  // not at its deadline; a traced one is reported stopped either way.
  const pid_t waited = ::wait4(pid_, &status, WNOHANG | WUNTRACED, &usage);
  if (waited == pid_ && WIFSTOPPED(status)) {
    // Stopped, or stopped while traced (PTRACE_TRACEME): nothing in the
    // child will continue it, and it reports nothing more; it is the
    // plugin's doing. SIGKILL ends a stopped process too.
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    const int stop_signal = WSTOPSIG(status);
    ReapAfterKill(status, usage);
    Drain();
    result_.end = ChildEnd::kStopped;
    result_.signal = stop_signal;
    finished_ = true;
  } else if (waited == pid_) {
    Drain();  // whatever the child wrote before exiting is still in the pipes
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL && InterruptedBy() != 0) {
      // Killed by sectl's interrupt handler before this Poll saw it.
      result_.end = ChildEnd::kInterrupted;
      result_.signal = InterruptedBy();
    } else if (WIFSIGNALED(status)) {
      result_.end = ChildEnd::kSignaled;
      result_.signal = WTERMSIG(status);
    } else {
      result_.end = ChildEnd::kExited;
      result_.exit_code = WEXITSTATUS(status);
    }
    finished_ = true;
  } else if (InterruptedBy() != 0 || Clock::now() - started_ >= options_.timeout) {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    ReapAfterKill(status, usage);
    Drain();
    if (InterruptedBy() != 0) {
      result_.end = ChildEnd::kInterrupted;
      result_.signal = InterruptedBy();
    } else {
      result_.end = ChildEnd::kTimedOut;
    }
    finished_ = true;
  }
  if (finished_) Finish(usage);
  return finished_;
}

void ChildProcess::ReapAfterKill(int& status, rusage& usage) {
  const auto grace = InterruptedBy() != 0 ? kInterruptedProcessGrace : kKilledProcessGrace;
  if (ReapKilled(pid_, grace, &status, &usage) == Reaping::kStuck) {
    result_.stuck_after_kill = true;
  }
}

void ChildProcess::Finish(const rusage& usage) {
  UnregisterLiveChild(pid_);
  // Anything the plugin left running: in the group, in the session, or
  // reparented to sectl. Nothing leaves a PID namespace, and the kernel
  // killed what was left in it when its pid 1 (the child) ended; the child
  // counted those itself (kWorkerEnded below). Its pid is reaped by now and
  // may already name another process: nothing is sent to it.
  if (!namespaced_) result_.stray_processes = EndStrayProcesses(pid_);
  Drain();
  CloseDescriptors();
  // Nothing of the plugin's is left running to write in it.
  scratch_.reset();
  limit_group_.reset();
  ChannelMessages messages = ReadFrames(channel_bytes_, key_, channel_overflowed_);
  channel_bytes_ = std::string();
  result_.result = std::move(messages.result);
  result_.reported = messages.reported;
  result_.setup_failure = std::move(messages.setup_failure);
  result_.backtrace = std::move(messages.backtrace);
  result_.allocation_failed = messages.allocation_failed;
  result_.guard_page_fault = std::move(messages.guard_page_fault);
  result_.result_channel_foreign = messages.foreign_bytes;
  result_.answer_too_large = channel_overflowed_;
  if (messages.worker_end && result_.end == ChildEnd::kExited) AdoptWorkerEnd(*messages.worker_end);
  result_.seconds = std::chrono::duration<double>(Clock::now() - started_).count();
  result_.cpu_seconds = SecondsOf(usage.ru_utime) + SecondsOf(usage.ru_stime);
  result_.peak_resident_bytes = static_cast<uint64_t>(usage.ru_maxrss) * 1024;  // KiB
}

void ChildProcess::AdoptWorkerEnd(const WorkerEnd& end) {
  switch (end.how) {
    case WorkerEnd::How::kExited:
      result_.exit_code = end.value;
      break;
    case WorkerEnd::How::kSignaled:
      result_.end = ChildEnd::kSignaled;
      result_.signal = end.value;
      break;
    case WorkerEnd::How::kStopped:
      result_.end = ChildEnd::kStopped;
      result_.signal = end.value;
      break;
  }
  result_.stray_processes += end.stray_processes;
}

Expected<ChildResult> RunInChildProcess(const std::function<int(int result_fd)>& body,
                                        const ChildOptions& options) {
  auto child = ChildProcess::Start(body, options);
  if (!child) return tl::unexpected(child.error());
  while (!child->Poll()) {
    auto descriptors = child->PollDescriptors();
    ::poll(descriptors.data(), descriptors.size(), kPollIntervalMilliseconds);
  }
  return child->TakeResult();
}

}  // namespace sectl::isolation

// Sanitized builds (CMakePresets.json: asan, tsan). A sanitizer's own
// handler for SIGSEGV and friends prints its report and exits with status 1,
// which would make a plugin's crash look like exit(1) and hide the signal.
// sectl reports plugin crashes itself (with a backtrace), so the sanitizers
// leave crash signals alone; their other findings still fail the run.
// ASAN_OPTIONS / TSAN_OPTIONS in the environment still override these.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SECTL_ADDRESS_SANITIZER 1
#endif
#if __has_feature(thread_sanitizer)
#define SECTL_THREAD_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SECTL_ADDRESS_SANITIZER 1
#endif
#if defined(__SANITIZE_THREAD__)
#define SECTL_THREAD_SANITIZER 1
#endif

#if defined(SECTL_ADDRESS_SANITIZER)
extern "C" const char* __asan_default_options() {  // NOLINT(bugprone-reserved-identifier)
  return "handle_segv=0:handle_sigbus=0:handle_sigill=0:handle_sigfpe=0:handle_abort=0";
}
#endif
#if defined(SECTL_THREAD_SANITIZER)
extern "C" const char* __tsan_default_options() {  // NOLINT(bugprone-reserved-identifier)
  return "handle_segv=0:handle_sigbus=0:handle_sigill=0:handle_sigfpe=0:handle_abort=0";
}
#endif
