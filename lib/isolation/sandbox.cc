#include "isolation/sandbox.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

#include "isolation/process_ids.h"

namespace sectl::isolation {
namespace {

SandboxOutcome last_outcome;  // in a child, what SandboxChild applied

// ---- Capabilities -------------------------------------------------------

struct CapabilitySets {
  std::array<__user_cap_data_struct, _LINUX_CAPABILITY_U32S_3> data{};
};

std::optional<CapabilitySets> ReadCapabilities() {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  CapabilitySets sets;
  if (::syscall(SYS_capget, &header, sets.data.data()) != 0) return std::nullopt;
  return sets;
}

constexpr unsigned kPtraceWord = CAP_SYS_PTRACE / 32;
constexpr uint32_t kPtraceBit = 1U << (CAP_SYS_PTRACE % 32);

bool HoldsPtrace(const CapabilitySets& sets) {
  const auto& word = sets.data[kPtraceWord];
  return ((word.effective | word.permitted | word.inheritable) & kPtraceBit) != 0;
}

bool HoldsAny(const CapabilitySets& sets) {
  return std::any_of(sets.data.begin(), sets.data.end(), [](const auto& word) {
    return (word.effective | word.permitted | word.inheritable) != 0;
  });
}

// Whether the bounding set is empty: nothing executed could gain one back.
bool BoundingSetEmpty() {
  for (int capability = 0; capability <= CAP_LAST_CAP + 32; ++capability) {
    const int held = ::prctl(PR_CAPBSET_READ, capability, 0, 0, 0);
    if (held < 0) break;  // EINVAL: past the kernel's last capability
    if (held == 1) return false;
  }
  return true;
}

// Drops every capability from every set of this process, the bounding and
// ambient sets included where it may. With them gone, a root child is held
// to the same rules as any other user: no access to the memory,
// environment or descriptors of a non-dumpable process (sectl), no mounts,
// no writes to files it does not own, and no ptrace or process_vm_* on
// anything that is not its own.
void DropEveryCapability(SandboxOutcome& outcome) {
  std::optional<CapabilitySets> sets = ReadCapabilities();
  if (!sets) {
    outcome.failures.push_back(fmt::format("capabilities: capget {}", strerrorname_np(errno)));
    return;
  }
  outcome.ptrace_capability_was_held = HoldsPtrace(*sets);
  outcome.capabilities_were_held = HoldsAny(*sets);
  // The bounding set first: dropping from it takes CAP_SETPCAP, which the
  // capset below ends. Without CAP_SETPCAP (not root) nothing can be
  // gained back through it either: no new privileges keeps exec from
  // raising the permitted set.
  for (int capability = 0; capability <= CAP_LAST_CAP + 32; ++capability) {
    if (::prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0 && errno == EINVAL) break;
  }
  ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  if (outcome.capabilities_were_held) {
    CapabilitySets none;
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    if (::syscall(SYS_capset, &header, none.data.data()) != 0) {
      outcome.failures.push_back(fmt::format("capabilities: kept ({})", strerrorname_np(errno)));
      return;
    }
  }
  const std::optional<CapabilitySets> now = ReadCapabilities();
  outcome.ptrace_capability_absent = now && !HoldsPtrace(*now);
  outcome.capabilities_absent = now && !HoldsAny(*now);
  outcome.bounding_set_empty = BoundingSetEmpty();
  if (!outcome.capabilities_absent) {
    outcome.failures.emplace_back("capabilities: some kept after capset");
  }
}

// ---- The seccomp filter -------------------------------------------------

using SeccompFilter =
    std::unique_ptr<std::remove_pointer_t<scmp_filter_ctx>, decltype(&seccomp_release)>;

// Refused outright: nothing a device plugin does needs to look into or act
// on another process this way.
constexpr std::string_view kRefusedSystemCalls[] = {
#if !defined(SECTL_SANITIZED)
    "ptrace",
#endif
    "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd", "process_madvise",
    // A pidfd also comes from opening /proc/PID, which no argument reveals.
    "pidfd_send_signal"};

#if defined(SECTL_SANITIZED)
// In a sanitizer build LeakSanitizer ptraces the process's own threads when
// it exits, so ptrace is refused only when aimed at the processes kept
// from the plugin (below); non-dumpable and the dropped CAP_SYS_PTRACE
// still keep it off sectl.
constexpr bool kRefusePtraceOutright = false;
#else
constexpr bool kRefusePtraceOutright = true;
#endif

// Refused when their first argument (a pid or thread group id) names sectl.
constexpr std::string_view kRefusedAtTheSupervisor[] = {
    "kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_open", "prlimit64"};

// Compares argument `index` as the kernel reads it: a 32-bit pid_t. A
// plugin calling syscall(2) directly may put anything in the upper half.
scmp_arg_cmp PidArgumentIs(pid_t pid, unsigned index = 0) {
  return scmp_arg_cmp{index, SCMP_CMP_MASKED_EQ, 0xFFFFFFFFU, static_cast<uint32_t>(pid)};
}

// One more rule refusing `name` with EPERM; false (and a note) if it
// cannot be added. A name this libseccomp does not know is skipped: the
// kernel it targets has no such call either.
bool Refuse(scmp_filter_ctx filter, std::string_view name, const scmp_arg_cmp* condition,
            std::vector<std::string>& notes) {
  const int number = seccomp_syscall_resolve_name(std::string(name).c_str());
  if (number == __NR_SCMP_ERROR) return true;
  const int added = condition == nullptr
                        ? seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), number, 0)
                        : seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), number, 1, *condition);
  if (added == 0) return true;
  notes.push_back(fmt::format("seccomp: cannot refuse {} ({})", name, strerrorname_np(-added)));
  return false;
}

// The rules for a child whose parent, as the child sees it, is
// `supervisor`. `notes` gets what could not be added; `complete` is false
// then. Null when libseccomp cannot start a filter.
// With `own_group`, kill(0) too: the caller's own process group, which a
// plugin server shares with its judge.
SeccompFilter BuildFilter(pid_t supervisor, std::vector<std::string>& notes, bool& complete,
                          bool own_group = false) {
  SeccompFilter filter(seccomp_init(SCMP_ACT_ALLOW), &seccomp_release);
  if (!filter) return filter;
    // The other system-call ABIs a process of this architecture can use
    // (int 0x80 on x86-64), so that none of them goes around the rules.
#if defined(__x86_64__)
  seccomp_arch_add(filter.get(), SCMP_ARCH_X86);
  seccomp_arch_add(filter.get(), SCMP_ARCH_X32);
#elif defined(__aarch64__)
  seccomp_arch_add(filter.get(), SCMP_ARCH_ARM);
#endif
  complete = true;
  for (std::string_view name : kRefusedSystemCalls) {
    complete = Refuse(filter.get(), name, nullptr, notes) && complete;
  }
  // sectl itself, the process that started it (a CI runner, a shell) and
  // init; their process groups and sessions (kill(-group)); and every
  // process (kill(-1)). Deduplicated: libseccomp rejects a repeated rule.
  std::vector<pid_t> processes{supervisor};
  const auto add = [](std::vector<pid_t>& list, pid_t pid) {
    if (std::find(list.begin(), list.end(), pid) == list.end()) list.push_back(pid);
  };
  add(processes, 1);
  if (const auto ids = ReadProcessIds(supervisor); ids && ids->parent > 1) {
    add(processes, ids->parent);
  }
  std::vector<pid_t> targets = processes;
  add(targets, -1);
  if (own_group) add(targets, 0);
  for (const pid_t process : processes) {
    for (const pid_t group : {::getpgid(process), ::getsid(process)}) {
      if (group > 1) add(targets, -group);
    }
  }
  for (std::string_view name : kRefusedAtTheSupervisor) {
    const bool signals_a_group = name == "kill";
    for (const pid_t target : targets) {
      if (target <= 0 && !signals_a_group) continue;
      const scmp_arg_cmp condition = PidArgumentIs(target);
      complete = Refuse(filter.get(), name, &condition, notes) && complete;
    }
  }
  if (!kRefusePtraceOutright) {
    for (const pid_t process : processes) {
      const scmp_arg_cmp condition = PidArgumentIs(process, 1);  // ptrace(request, pid, ...)
      complete = Refuse(filter.get(), "ptrace", &condition, notes) && complete;
    }
    // Being traced by sectl is refused as in other builds, so that a
    // plugin stops the same way in both.
    const scmp_arg_cmp trace_me{0, SCMP_CMP_EQ, PTRACE_TRACEME, 0};
    complete = Refuse(filter.get(), "ptrace", &trace_me, notes) && complete;
  }
  return filter;
}

void InstallFilter(pid_t supervisor, SandboxOutcome& outcome) {
  std::vector<std::string> notes;
  bool complete = false;
  const SeccompFilter filter = BuildFilter(supervisor, notes, complete);
  if (!filter) {
    outcome.failures.emplace_back("seccomp: unavailable (libseccomp cannot start a filter)");
    return;
  }
  if (const int loaded = seccomp_load(filter.get()); loaded != 0) {
    outcome.failures.push_back(fmt::format("seccomp: unavailable ({})", strerrorname_np(-loaded)));
    return;
  }
  outcome.seccomp = true;
  if (!complete) outcome.failures.insert(outcome.failures.end(), notes.begin(), notes.end());
}

// Loads a program compiled in sectl. The kernel checks it; libseccomp is
// not needed in the child at all.
void InstallCompiledFilter(const CompiledSandboxFilter& compiled, SandboxOutcome& outcome) {
  sock_fprog program{static_cast<unsigned short>(compiled.program.size()),
                     const_cast<sock_filter*>(compiled.program.data())};  // NOLINT: the API's type
  if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0) != 0) {
    outcome.failures.push_back(fmt::format("seccomp: unavailable ({})", strerrorname_np(errno)));
    return;
  }
  outcome.seccomp = true;
  outcome.failures.insert(outcome.failures.end(), compiled.notes.begin(), compiled.notes.end());
}

// ---- Probing from the parent --------------------------------------------

// How long sectl waits for the probe child: it only sets up a filter.
constexpr int kProbeTimeoutMilliseconds = 5000;

// In the probe child: sandboxes itself against sectl, checks that a signal
// to sectl (signal 0: nothing is sent) is refused, and writes the outcome
// as "key=value" lines.
[[noreturn]] void ProbeInChild(int answer_fd, const CompiledSandboxFilter* compiled) {
  const pid_t supervisor = ::getppid();
  std::string failure;
  SandboxChild(supervisor, &failure, compiled);
  SandboxOutcome outcome = LastSandboxOutcome();
  if (outcome.seccomp && (::kill(supervisor, 0) == 0 || errno != EPERM)) {
    outcome.seccomp = false;
    outcome.failures.emplace_back("seccomp: loaded, yet a signal to sectl was not refused");
  }
  std::string answer = fmt::format(
      "nnp={}\nptrace_absent={}\nptrace_held={}\nseccomp={}\ncaps_absent={}\n"
      "caps_held={}\nbounding_empty={}\n",
      outcome.no_new_privileges ? 1 : 0, outcome.ptrace_capability_absent ? 1 : 0,
      outcome.ptrace_capability_was_held ? 1 : 0, outcome.seccomp ? 1 : 0,
      outcome.capabilities_absent ? 1 : 0, outcome.capabilities_were_held ? 1 : 0,
      outcome.bounding_set_empty ? 1 : 0);
  for (const std::string& line : outcome.failures) answer += "failure=" + line + "\n";
  const char* data = answer.data();
  size_t left = answer.size();
  while (left > 0) {
    const ssize_t written = ::write(answer_fd, data, left);
    if (written <= 0 && errno == EINTR) continue;
    if (written <= 0) break;
    data += written;
    left -= static_cast<size_t>(written);
  }
  ::_exit(0);
}

// Reads the probe child's answer until end of file or the deadline.
std::string ReadAnswer(int fd) {
  std::string answer;
  std::array<char, 4096> buffer{};
  pollfd readable{fd, POLLIN, 0};
  while (::poll(&readable, 1, kProbeTimeoutMilliseconds) > 0) {
    const ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    answer.append(buffer.data(), static_cast<size_t>(got));
  }
  return answer;
}

ConfinementInForce Summarize(const std::string& answer) {
  ConfinementInForce in_force;
  bool held = false;
  bool any_held = false;
  std::vector<std::string> failures;
  size_t start = 0;
  while (start < answer.size()) {
    size_t end = answer.find('\n', start);
    if (end == std::string::npos) end = answer.size();
    const std::string_view line(answer.data() + start, end - start);
    start = end + 1;
    if (line == "nnp=1") in_force.no_new_privileges = true;
    if (line == "ptrace_absent=1") in_force.ptrace_capability_absent = true;
    if (line == "ptrace_held=1") held = true;
    if (line == "seccomp=1") in_force.seccomp = true;
    if (line == "caps_absent=1") in_force.capabilities_absent = true;
    if (line == "caps_held=1") any_held = true;
    if (line == "bounding_empty=1") in_force.bounding_set_empty = true;
    if (line.starts_with("failure=")) failures.emplace_back(line.substr(8));
  }
  if (answer.empty()) failures.emplace_back("sandbox: the probe child gave no answer");

  const auto failure_about = [&](std::string_view layer) -> std::string {
    for (const std::string& failure : failures) {
      if (failure.starts_with(layer)) return failure;
    }
    return {};
  };
  if (in_force.seccomp) {
    in_force.lines.emplace_back(
        "seccomp: ptrace, process_vm_*, kcmp, pidfd_getfd and signals to sectl, its parent and "
        "init refused");
  } else {
    const std::string why = failure_about("seccomp:");
    in_force.lines.push_back(why.empty() ? "seccomp: unavailable" : why);
  }
  if (in_force.capabilities_absent) {
    in_force.lines.push_back(
        fmt::format("capabilities: none in any set ({}){}", any_held ? "dropped" : "none held",
                    in_force.bounding_set_empty ? ", the bounding set empty"
                                                : "; the bounding set is not sectl's to empty, and "
                                                  "no_new_privs keeps exec from using it"));
  } else if (in_force.ptrace_capability_absent) {
    in_force.lines.emplace_back(held ? "capabilities: CAP_SYS_PTRACE dropped"
                                     : "capabilities: CAP_SYS_PTRACE not held");
  } else {
    const std::string why = failure_about("capabilities:");
    in_force.lines.push_back(why.empty() ? "capabilities: CAP_SYS_PTRACE kept" : why);
  }
  in_force.lines.emplace_back(in_force.no_new_privileges ? "no_new_privs: set"
                                                         : failure_about("no_new_privs:"));
  for (const std::string& failure : failures) {
    if (std::find(in_force.lines.begin(), in_force.lines.end(), failure) == in_force.lines.end()) {
      in_force.lines.push_back(failure);
    }
  }
  return in_force;
}

ConfinementInForce Probe() {
  std::array<int, 2> answer_pipe{-1, -1};
  if (::pipe2(answer_pipe.data(), O_CLOEXEC) != 0) {
    return Summarize(fmt::format("failure=sandbox: cannot probe ({})\n", strerrorname_np(errno)));
  }
  // The program the children will load, so that the probe tests it.
  const CompiledSandboxFilter* compiled = CompileSandboxFilter(::getpid());
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(answer_pipe[0]);
    ProbeInChild(answer_pipe[1], compiled);
  }
  ::close(answer_pipe[1]);
  if (pid < 0) {
    ::close(answer_pipe[0]);
    return Summarize(fmt::format("failure=sandbox: cannot probe ({})\n", strerrorname_np(errno)));
  }
  const std::string answer = ReadAnswer(answer_pipe[0]);
  ::close(answer_pipe[0]);
  ::kill(pid, SIGKILL);  // a probe past its deadline; harmless once it has exited
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  return Summarize(answer);
}

}  // namespace

bool SandboxChild(pid_t supervisor, std::string* failure, const CompiledSandboxFilter* compiled) {
  SandboxOutcome outcome;
  // First: seccomp needs it from a process without CAP_SYS_ADMIN, and it
  // keeps exec from regaining what is dropped below.
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0) {
    outcome.no_new_privileges = true;
  } else {
    outcome.failures.push_back(
        fmt::format("no_new_privs: unavailable ({})", strerrorname_np(errno)));
  }
  DropEveryCapability(outcome);
  if (compiled != nullptr && !compiled->program.empty()) {
    InstallCompiledFilter(*compiled, outcome);
  } else {
    InstallFilter(supervisor, outcome);
  }
  last_outcome = outcome;
  if (outcome.failures.empty()) return true;
  if (failure != nullptr) {
    failure->clear();
    for (const std::string& line : outcome.failures) {
      if (!failure->empty()) *failure += "; ";
      *failure += line;
    }
  }
  return false;
}

const SandboxOutcome& LastSandboxOutcome() { return last_outcome; }

namespace {

std::unique_ptr<CompiledSandboxFilter> Compile(pid_t supervisor, bool own_group) {
  auto result = std::make_unique<CompiledSandboxFilter>();
  bool complete = false;
  const SeccompFilter filter = BuildFilter(supervisor, result->notes, complete, own_group);
  // The program, through a memory file: libseccomp writes it to a descriptor.
  const int memory = filter ? ::memfd_create("sectl-seccomp", MFD_CLOEXEC) : -1;
  if (memory >= 0) {
    if (seccomp_export_bpf(filter.get(), memory) == 0) {
      const off_t size = ::lseek(memory, 0, SEEK_END);
      if (size > 0 && size % static_cast<off_t>(sizeof(sock_filter)) == 0) {
        result->program.resize(static_cast<size_t>(size) / sizeof(sock_filter));
        if (::pread(memory, result->program.data(), static_cast<size_t>(size), 0) != size) {
          result->program.clear();
        }
      }
    }
    ::close(memory);
  }
  return result;
}

}  // namespace

const CompiledSandboxFilter* CompileSandboxFilter(pid_t supervisor) {
  // Few keys: sectl's own pid, and 1 for children in their own namespaces.
  static std::mutex lock;
  static std::map<pid_t, std::unique_ptr<CompiledSandboxFilter>> compiled;
  const std::lock_guard<std::mutex> held(lock);
  if (auto found = compiled.find(supervisor); found != compiled.end()) return found->second.get();
  // Without a program the child builds the filter itself, as before.
  return compiled.emplace(supervisor, Compile(supervisor, false)).first->second.get();
}

std::vector<sock_filter> CompileJudgeProtection(pid_t judge) {
  return Compile(judge, true)->program;
}

ConfinementInForce DescribeSandbox() {
  static std::once_flag probed;
  static ConfinementInForce in_force;
  std::call_once(probed, [] { in_force = Probe(); });
  return in_force;
}

}  // namespace sectl::isolation
