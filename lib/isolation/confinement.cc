#include "isolation/confinement.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <new>

#include "isolation/child_process.h"
#include "isolation/file_system_view.h"
#include "isolation/namespaces.h"
#include "isolation/process_limit_group.h"
#include "isolation/result_channel.h"
#include "isolation/sandbox.h"
#include "isolation/secret_residue.h"

extern char** environ;  // NOLINT: POSIX declares it nowhere in C++

namespace sectl::isolation {
namespace {

bool IsAllowed(std::string_view name, const std::vector<std::string>& passed) {
  for (std::string_view allowed : kAllowedEnvironment) {
    if (allowed.ends_with('*') ? name.starts_with(allowed.substr(0, allowed.size() - 1))
                               : name == allowed) {
      return true;
    }
  }
  return std::find(passed.begin(), passed.end(), name) != passed.end();
}

// Called by operator new when an allocation fails, in a child with a memory
// limit: it says so where the parent will look, then lets the allocation
// fail as it would have (std::bad_alloc). write(2) only: the heap is full.
void OnAllocationFailure() {
  WriteFrame(FrameKind::kAllocationFailed, nullptr, 0);
  std::set_new_handler(nullptr);
}

// Closes every descriptor from `first` on except `keep`. The plugin must not
// inherit sectl's files, sockets or the other children's pipes.
void CloseDescriptorsFrom(int first, int keep) {
  const auto close_range = [](unsigned low, unsigned high) {
    if (low > high) return;
    if (::close_range(low, high, 0) == 0) return;
    const long open_max = ::sysconf(_SC_OPEN_MAX);  // kernels before 5.9
    for (long fd = low; fd <= std::min<long>(high, open_max); ++fd) ::close(static_cast<int>(fd));
  };
  if (keep >= first) {
    close_range(static_cast<unsigned>(first), static_cast<unsigned>(keep) - 1);
    close_range(static_cast<unsigned>(keep) + 1, ~0U);
  } else {
    close_range(static_cast<unsigned>(first), ~0U);
  }
}

void ReplaceEnvironment(const std::vector<std::string>& environment) {
  // clearenv() forgets the variables but leaves their bytes, and the
  // initial ones live in the block the kernel shows as /proc/self/environ:
  // overwrite them all. `environment` was copied before the fork.
  for (char** variable = environ; variable != nullptr && *variable != nullptr; ++variable) {
    std::memset(*variable, 0, std::strlen(*variable));
  }
  ::clearenv();
  for (const std::string& variable : environment) {
    const auto equals = variable.find('=');
    if (equals == std::string::npos) continue;
    ::setenv(variable.substr(0, equals).c_str(), variable.c_str() + equals + 1, 1);
  }
}

// "NAME=value", with the value made absolute for the validation layer's
// path variables: the plugin's process works in its scratch directory.
std::string WithAbsolutePath(std::string_view name, std::string_view value) {
  const bool path = name == "SECTL_VALIDATE_PLUGIN" || name == "SECTL_VALIDATE_REPORT" ||
                    name == "SECTL_VALIDATE_TRACE";
  std::string text = fmt::format("{}=", name);
  if (path && !value.empty() && value.front() != '/') {
    std::error_code error;
    const auto absolute = std::filesystem::absolute(std::string(value), error);
    text += error ? std::string(value) : absolute.string();
  } else {
    text += value;
  }
  return text;
}

std::string Mebibytes(uint64_t bytes) {
  return fmt::format("{:.0f} MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

}  // namespace

std::vector<std::string> PluginEnvironment(const char* const* environment,
                                           const std::vector<std::string>& passed) {
  std::vector<std::string> kept;
  for (const char* const* variable = environment; variable != nullptr && *variable != nullptr;
       ++variable) {
    const std::string_view text(*variable);
    const auto equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    if (!IsAllowed(text.substr(0, equals), passed)) continue;
    kept.emplace_back(WithAbsolutePath(text.substr(0, equals), text.substr(equals + 1)));
  }
  // Reading every variable left some in vector registers, which a child
  // forked next would start with (secret_residue.h).
  ClearVectorRegisters();
  return kept;
}

PluginIdentity PluginIdentityFor(const Confinement& confinement) {
  // Not knowing what the plugin's process must read, nobody might not
  // reach it: the process stays sectl's user, without capabilities.
  if (confinement.plugin_files.empty() && ::geteuid() == 0) {
    return {.why_root = "sectl was not told which files the plugin needs"};
  }
  std::vector<std::string> readable = confinement.plugin_files;
  std::vector<std::string> writable = confinement.plugin_writes;
  AddValidationLayerFiles(readable, writable);
  return ChoosePluginIdentity(readable, writable);
}

std::vector<std::string> PluginWrites(const Confinement& confinement) {
  std::vector<std::string> readable;
  std::vector<std::string> writable = confinement.plugin_writes;
  AddValidationLayerFiles(readable, writable);
  return writable;
}

Expected<void> ConfineChild(const Confinement& confinement, const PluginProcessSetup& setup,
                            const std::vector<std::string>& environment, int result_fd,
                            const CompiledSandboxFilter* filter) {
  // A new session: its own process group, which sectl kills as a whole, and
  // no controlling terminal, so /dev/tty cannot reach the user's screen.
  ::setsid();
  const int null_input = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_input < 0) {
    return Fail(ErrorCode::kInternal,
                fmt::format("cannot open /dev/null for its stdin: {}", std::strerror(errno)));
  }
  ::dup2(null_input, STDIN_FILENO);
  if (null_input != STDIN_FILENO) ::close(null_input);
  CloseDescriptorsFrom(STDERR_FILENO + 1, result_fd);
  ReplaceEnvironment(environment);

  if (confinement.memory_limit_bytes > 0) {
    const rlimit memory{confinement.memory_limit_bytes, confinement.memory_limit_bytes};
    if (::setrlimit(RLIMIT_DATA, &memory) != 0) {
      return Fail(ErrorCode::kInternal,
                  fmt::format("cannot set --memory-limit {} (setrlimit RLIMIT_DATA): {}",
                              confinement.memory_limit_label, std::strerror(errno)));
    }
    std::set_new_handler(OnAllocationFailure);
  }
  if (confinement.cpu_limit_seconds > 0) {
    const auto seconds = static_cast<rlim_t>(confinement.cpu_limit_seconds);
    const rlimit cpu{seconds, seconds + 1};
    if (::setrlimit(RLIMIT_CPU, &cpu) != 0) {
      const int error = errno;
      rlimit hard{};
      ::getrlimit(RLIMIT_CPU, &hard);
      return Fail(ErrorCode::kInternal,
                  fmt::format("cannot set --cpu-limit {} s (setrlimit RLIMIT_CPU): {}{}",
                              confinement.cpu_limit_seconds, std::strerror(error),
                              hard.rlim_max == RLIM_INFINITY
                                  ? ""
                                  : fmt::format("; the hard limit is {} s", hard.rlim_max)));
    }
  }
  if (!setup.scratch.empty()) {
    if (auto entered = EnterScratch(setup.scratch); !entered) return entered;
  }
  if (auto assumed = AssumePluginIdentity(setup.identity); !assumed) return assumed;
  // Last: keep the plugin away from sectl's process (isolation/sandbox.h).
  // A layer the kernel refuses is said in the report (DescribeSandbox), not
  // a reason to stop.
  SandboxChild(::getppid(), nullptr, filter);
  return {};
}

bool WriteResult(int result_fd, const std::string& text) {
  if (!IsAdoptedChannelIntact(result_fd) ||
      !WriteFrame(FrameKind::kResult, text.data(), text.size())) {
    ::_exit(kResultChannelLost);
  }
  return true;
}

bool ExceededCpuLimit(const ChildResult& child, const Confinement& confinement) {
  // SIGXCPU at the soft limit; SIGKILL at the hard one, a second later, if
  // the plugin ignored SIGXCPU.
  return confinement.cpu_limit_seconds > 0 && child.end == ChildEnd::kSignaled &&
         (child.signal == SIGXCPU ||
          (child.signal == SIGKILL && child.cpu_seconds >= confinement.cpu_limit_seconds));
}

std::optional<std::string> DescribeExhaustion(const ChildResult& child,
                                              const Confinement& confinement) {
  if (ExceededCpuLimit(child, confinement)) {
    return fmt::format("exceeded --cpu-limit {} s of CPU time (killed by {} after {:.1f} s)",
                       confinement.cpu_limit_seconds, SignalName(child.signal), child.cpu_seconds);
  }
  if (confinement.memory_limit_bytes > 0) {
    const bool allocation_failed = child.allocation_failed;
    // Private memory in use is at most the limit, and resident memory is
    // mostly that; this close to the limit, the next allocation had nowhere
    // to go.
    const bool at_the_limit = static_cast<double>(child.peak_resident_bytes) >=
                              0.9 * static_cast<double>(confinement.memory_limit_bytes);
    if (allocation_failed || at_the_limit) {
      return fmt::format(
          "exceeded --memory-limit {}{} (peak resident memory {})", confinement.memory_limit_label,
          allocation_failed ? ": an allocation failed" : "", Mebibytes(child.peak_resident_bytes));
    }
  }
  return std::nullopt;
}

std::vector<std::string> DescribeConfinementInForce(const Confinement& confinement) {
  std::vector<std::string> lines{DescribeNamespaces(confinement.namespaces),
                                 DescribePluginIdentity(PluginIdentityFor(confinement))};
  lines.push_back(DescribeFileSystemView(confinement.namespaces && ProbeNamespaces().pid));
  // Where the plugin stays root, its processes are bounded by the group
  // alone; as nobody, RLIMIT_NPROC bounds them (DescribePluginIdentity).
  if (::geteuid() == 0 && !PluginIdentityFor(confinement).switch_user) {
    lines.push_back(ProcessLimitGroup::Describe(kMaxPluginProcesses));
  }
  const std::vector<std::string> sandbox = DescribeSandbox().lines;
  lines.insert(lines.end(), sandbox.begin(), sandbox.end());
  return lines;
}

}  // namespace sectl::isolation
