#include "isolation/namespaces.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/capability.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <ctime>
#include <mutex>

#include "isolation/bounded_reap.h"
#include "isolation/child_exit_codes.h"
#include "isolation/result_channel.h"

namespace sectl::isolation {
namespace {

// The trial child's answers (ProbeNamespaces).
constexpr int kTrialWorked = 0;
constexpr int kTrialWithoutFreshProc = 10;
constexpr int kTrialSetUpFailed = 11;

Expected<void> WriteProcFile(const char* path, const std::string& text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    return Fail(ErrorCode::kInternal,
                fmt::format("cannot open {}: {}", path, strerrorname_np(errno)));
  }
  const ssize_t written = ::write(fd, text.data(), text.size());
  const int error = errno;
  ::close(fd);
  if (written != static_cast<ssize_t>(text.size())) {
    return Fail(ErrorCode::kInternal,
                fmt::format("cannot write {}: {}", path, strerrorname_np(error)));
  }
  return {};
}

// A user namespace hands its first process every capability within it; a
// plugin run by a plain user holds none, and gets none here.
Expected<void> DropEveryCapability() {
  // The bounding set first, while CAP_SETPCAP is held: nothing the
  // plugin's process executes can gain a capability back.
  for (int capability = 0; capability <= CAP_LAST_CAP + 32; ++capability) {
    if (::prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0 && errno != EINVAL) {
      return Fail(ErrorCode::kInternal, fmt::format("cannot empty the capability bounding set: {}",
                                                    strerrorname_np(errno)));
    }
  }
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  std::array<__user_cap_data_struct, _LINUX_CAPABILITY_U32S_3> none{};
  if (::syscall(SYS_capset, &header, none.data()) != 0) {
    return Fail(
        ErrorCode::kInternal,
        fmt::format("cannot drop the user namespace's capabilities: {}", strerrorname_np(errno)));
  }
  return {};
}

Expected<void> MapOuterIdentity(const OuterIdentity& identity) {
  if (auto denied = WriteProcFile("/proc/self/setgroups", "deny"); !denied) return denied;
  if (auto mapped = WriteProcFile("/proc/self/uid_map", fmt::format("{0} {0} 1\n", identity.uid));
      !mapped) {
    return mapped;
  }
  return WriteProcFile("/proc/self/gid_map", fmt::format("{0} {0} 1\n", identity.gid));
}

// In the trial child: sets up, then forks once as a real child would.
[[noreturn]] void RunTrial(const NamespaceSupport& support, const OuterIdentity& identity) {
  if (!SetUpNamespaces(support, identity)) {
    if (!support.fresh_proc) ::_exit(kTrialSetUpFailed);
    NamespaceSupport without_proc = support;
    without_proc.fresh_proc = false;
    ::_exit(SetUpNamespaces(without_proc, identity) ? kTrialWithoutFreshProc : kTrialSetUpFailed);
  }
  // Cloned raw: the worker only asks who its parent is, and needs none of
  // what glibc's fork() sets up.
  const auto worker =
      static_cast<pid_t>(::syscall(SYS_clone, SIGCHLD, nullptr, nullptr, nullptr, nullptr));
  if (worker == 0) ::_exit(::getppid() == 1 ? kTrialWorked : kTrialSetUpFailed);
  int status = 0;
  if (worker < 0 || ::waitpid(worker, &status, 0) != worker || !WIFEXITED(status)) {
    ::_exit(kTrialSetUpFailed);
  }
  ::_exit(WEXITSTATUS(status));
}

// How long a trial child may take; it normally takes a few milliseconds.
constexpr std::chrono::seconds kTrialPatience{5};

// One trial: 0 on success (with `support` filled in), else errno or -1.
int Try(NamespaceSupport& support) {
  const OuterIdentity identity = CurrentIdentity();
  const pid_t pid = CloneIntoNamespaces(support);
  if (pid == 0) RunTrial(support, identity);
  if (pid < 0) return errno;
  // Waited for a bounded time: a trial child that hangs (a lock it
  // inherited held, see RunTrial) means no namespaces this run, never a
  // sectl that waits for ever.
  const auto deadline = std::chrono::steady_clock::now() + kTrialPatience;
  int status = 0;
  pid_t reaped = 0;
  while ((reaped = ::waitpid(pid, &status, WNOHANG)) == 0 &&
         std::chrono::steady_clock::now() < deadline) {
    const timespec pause{0, 1'000'000};
    ::nanosleep(&pause, nullptr);
  }
  if (reaped == 0) {
    ::kill(pid, SIGKILL);
    (void)ReapKilled(pid, kKilledProcessGrace);
    return -1;
  }
  if (reaped < 0 || !WIFEXITED(status)) return -1;
  if (WEXITSTATUS(status) == kTrialWithoutFreshProc) {
    support.fresh_proc = false;
    return 0;
  }
  return WEXITSTATUS(status) == kTrialWorked ? 0 : -1;
}

NamespaceSupport Probe() {
  // Without a user namespace first: root needs none, and one would change
  // how the plugin's process sees itself (its capabilities, its groups).
  NamespaceSupport support{.pid = true, .fresh_proc = true, .user = false, .why_not = {}};
  int error = Try(support);
  if (error != 0) {
    support = {.pid = true, .fresh_proc = true, .user = true, .why_not = {}};
    const int with_user = Try(support);
    if (with_user == 0) return support;
    if (error == -1) error = with_user;
    support = {};
    support.why_not = error > 0 ? strerrorname_np(error) : "the trial child failed";
  }
  return support;
}

}  // namespace

const NamespaceSupport& ProbeNamespaces() {
  static std::once_flag probed;
  static NamespaceSupport support;
  std::call_once(probed, [] { support = Probe(); });
  return support;
}

std::string DescribeNamespaces(bool requested) {
  if (!requested) {
    return "namespaces: off (--no-namespaces): the plugin shares sectl's PID namespace";
  }
  const NamespaceSupport& support = ProbeNamespaces();
  if (!support.pid) {
    return fmt::format(
        "namespaces: unavailable ({}): a plugin can signal other processes of its user by pid",
        support.why_not);
  }
  return fmt::format(
      "namespaces: pid, mount{}{}",
      support.fresh_proc ? " (own /proc, hidepid=2)" : " (the host's /proc still shown)",
      support.user ? ", user" : "");
}

OuterIdentity CurrentIdentity() { return {::geteuid(), ::getegid()}; }

pid_t CloneIntoNamespaces(const NamespaceSupport& support) {
  // Two steps, because the namespaces need the raw clone system call (glibc's
  // fork() takes no flags) and a raw clone of a process with other threads
  // copies whatever lock another thread held at that instant, malloc's
  // included, held for good: a check process would then hang in its first
  // allocation, and the hang would be blamed on the plugin. So glibc's
  // fork() first, which makes malloc safe in its child; that child has one
  // thread, and its raw clone, made a child of this process (CLONE_PARENT),
  // is the process returned. The go-between says the clone's pid and exits.
  std::array<int, 2> answer{-1, -1};
  if (::pipe2(answer.data(), O_CLOEXEC) != 0) return -1;
  const pid_t go_between = ::fork();
  if (go_between < 0) {
    const int error = errno;
    ::close(answer[0]);
    ::close(answer[1]);
    errno = error;
    return -1;
  }
  if (go_between == 0) {
    ::close(answer[0]);
    uint64_t flags = CLONE_PARENT | CLONE_NEWPID | CLONE_NEWNS;
    if (support.user) flags |= CLONE_NEWUSER;
    // With no stack given, the raw call returns twice, like fork().
    const auto cloned =
        static_cast<pid_t>(::syscall(SYS_clone, flags, nullptr, nullptr, nullptr, nullptr));
    if (cloned == 0) {
      ::close(answer[1]);
      return 0;
    }
    const int told = cloned > 0 ? cloned : -errno;
    (void)!::write(answer[1], &told, sizeof(told));
    ::_exit(0);
  }
  ::close(answer[1]);
  int told = -EAGAIN;
  ssize_t got = 0;
  while ((got = ::read(answer[0], &told, sizeof(told))) < 0 && errno == EINTR) {
  }
  ::close(answer[0]);
  // The go-between runs no code but the above: it has exited or is about to.
  int status = 0;
  while (::waitpid(go_between, &status, 0) < 0 && errno == EINTR) {
  }
  if (got != sizeof(told)) {
    errno = EAGAIN;
    return -1;
  }
  if (told < 0) {
    errno = -told;
    return -1;
  }
  return told;
}

Expected<void> SetUpNamespaces(const NamespaceSupport& support, const OuterIdentity& identity) {
  if (support.user) {
    // The process is nobody until mapped; map sectl's user onto itself, so
    // that files and devices see the same user as without the namespace.
    // The files of a non-dumpable process (sectl is one) belong to root,
    // so it is dumpable while it writes its own (no plugin code runs yet),
    // and not again after.
    ::prctl(PR_SET_DUMPABLE, 1);
    auto mapped = MapOuterIdentity(identity);
    ::prctl(PR_SET_DUMPABLE, 0);
    if (!mapped) return mapped;
  }
  if (support.fresh_proc) {
    // Private first: a mount in a copied namespace whose mounts are shared
    // (systemd's default) would propagate back to the host's /proc.
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
      return Fail(ErrorCode::kInternal,
                  fmt::format("cannot make the mounts private: {}", strerrorname_np(errno)));
    }
    // hidepid=2: a process sees no other user's processes (the reaper at
    // pid 1 is root's where the plugin runs as nobody). A kernel that
    // refuses the option still gets a /proc of the namespace alone.
    if (::mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=2") != 0 &&
        ::mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) {
      return Fail(ErrorCode::kInternal,
                  fmt::format("cannot mount /proc: {}", strerrorname_np(errno)));
    }
  }
  if (support.user) return DropEveryCapability();
  return {};
}

void RunNamespaceReaper(pid_t worker) {
  WorkerEnd end;
  bool worker_reaped = false;
  bool ending = false;  // the worker has ended or stopped: the rest is killed
  while (true) {
    int status = 0;
    const pid_t reaped = ::waitpid(-1, &status, __WALL | WUNTRACED);
    if (reaped < 0) {
      if (errno == EINTR) continue;
      break;  // ECHILD: the namespace is empty
    }
    if (reaped == worker && !worker_reaped) {
      if (WIFSTOPPED(status)) {
        // Stopped, or traced (PTRACE_TRACEME): nothing will continue it.
        // Killed below; that death is not how it ended.
        if (!ending) end = {WorkerEnd::How::kStopped, WSTOPSIG(status), 0};
      } else {
        worker_reaped = true;
        if (!ending) {
          end.how = WIFSIGNALED(status) ? WorkerEnd::How::kSignaled : WorkerEnd::How::kExited;
          end.value = WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status);
        }
      }
      ending = true;
    } else if (ending && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) {
      // Still running when the worker ended, and killed here: a stray. One
      // that had exited on its own by then was not left running.
      ++end.stray_processes;
    }
    // From pid 1 of a PID namespace, -1 is everything else in it. Again
    // after every reap: a stray may have forked while it was being killed.
    if (ending) ::kill(-1, SIGKILL);
  }
  WriteFrame(FrameKind::kWorkerEnded, reinterpret_cast<const char*>(&end),  // NOLINT: bytes
             sizeof(end));
  ::_exit(end.how == WorkerEnd::How::kExited ? end.value : kWorkerEndedBySignal);
}

}  // namespace sectl::isolation
