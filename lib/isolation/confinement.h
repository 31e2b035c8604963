// What a plugin's child process may use and see. sectl runs code it did not
// write and cannot trust; the confinement bounds what that code can take
// (memory, CPU time) and what it is shown (environment, descriptors, a
// terminal), so that a greedy or nosy plugin ends in a clear result instead
// of taking the machine, the run or its secrets with it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "isolation/child_exit_codes.h"
#include "isolation/plugin_identity.h"

namespace sectl::isolation {

struct ChildResult;
struct CompiledSandboxFilter;

struct Confinement {
  // The child's private writable memory: heap, anonymous mappings, thread
  // stacks (RLIMIT_DATA); an allocation beyond it fails. Not the address
  // space (RLIMIT_AS): device runtimes reserve vast inaccessible ranges that
  // use no memory, and mapped libraries are shared. 0: no limit.
  // `memory_limit_label` is how the user wrote it ("512MiB"), for messages.
  uint64_t memory_limit_bytes = 0;
  std::string memory_limit_label;
  // The child's CPU time (RLIMIT_CPU): SIGXCPU at this many seconds, SIGKILL
  // a second later. 0: no limit.
  int cpu_limit_seconds = 0;
  // Variables the plugin sees besides kAllowedEnvironment (--pass-env NAME).
  std::vector<std::string> passed_environment;
  // New PID and mount namespaces where the kernel allows them
  // (isolation/namespaces.h); false (--no-namespaces): sectl's own.
  bool namespaces = true;
  // Files the plugin's process must be able to read (the plugin, a TVM
  // core), absolute: who it runs as depends on them (plugin_identity.h).
  std::vector<std::string> plugin_files;
  // Files (or new files' directories) it must be able to write
  // (--plugin-writes), absolute.
  std::vector<std::string> plugin_writes;
};

// Who one plugin process runs as and where it may write, chosen by sectl
// for each child (plugin_identity.h).
struct PluginProcessSetup {
  PluginIdentity identity;
  std::string scratch;  // its working directory and TMPDIR; empty: none
  // What must stay writable (PluginWrites), and whether the rest of the
  // file system is made read-only for it (file_system_view.h).
  std::vector<std::string> writable;
  bool file_system_view = false;
};

// What the plugin's process must be able to write: --plugin-writes, and
// the validation layer's report and trace.
std::vector<std::string> PluginWrites(const Confinement& confinement);

// The identity for plugin processes under `confinement`: its plugin_files
// and the validation layer's files are reachable by it.
PluginIdentity PluginIdentityFor(const Confinement& confinement);

// The environment variables a plugin sees when sectl has them set: enough to
// find programs, a home and temporary directory, and the locale and time
// zone. Everything else (tokens, credentials, CI secrets) stays with sectl
// unless passed by name. "LC_*" stands for every locale category.
// "SECTL_VALIDATE_*" configures the validation layer (libsectl_validate.so)
// when it is the plugin under test: the plugin it wraps, where its report
// and trace go. They name files, never secrets.
inline constexpr std::string_view kAllowedEnvironment[] = {
    "PATH", "HOME", "TMPDIR", "LANG", "LANGUAGE", "LC_*", "TZ", "SECTL_VALIDATE_*"};

// "NAME=value" for every variable of `environment` (a null-terminated array
// like `environ`) that is allowed or passed.
std::vector<std::string> PluginEnvironment(const char* const* environment,
                                           const std::vector<std::string>& passed);

// In the child, before any plugin code runs: a session of its own (so no
// controlling terminal, and one process group to kill), stdin from
// /dev/null, no descriptor but 0-2 and `result_fd`, the plugin's
// environment (the original environment's bytes overwritten, so that
// /proc/self/environ shows none of sectl's), the scratch directory as its
// working directory and TMPDIR, the plugin's user, and the limits. An
// error says what sectl could not set up (a limit refused, no /dev/null).
// `filter` is the sandbox's program compiled in sectl (sandbox.h), or null.
Expected<void> ConfineChild(const Confinement& confinement, const PluginProcessSetup& setup,
                            const std::vector<std::string>& environment, int result_fd,
                            const CompiledSandboxFilter* filter = nullptr);

// Writes a check's answer to the result channel as a framed message
// (isolation/result_channel.h), if it is still the channel sectl made. A
// plugin may have closed it, or opened something else in its place; then
// the child exits with kResultChannelLost rather than write its answer
// somewhere else.
bool WriteResult(int result_fd, const std::string& text);

// Whether the child was killed for using more CPU time than the limit.
bool ExceededCpuLimit(const ChildResult& child, const Confinement& confinement);

// Why a finished child ended, when a limit explains it: "exceeded
// --cpu-limit 2 s of CPU time (killed by SIGXCPU)", "exceeded --memory-limit
// 512MiB: an allocation failed (peak resident memory 498 MiB)". Empty when
// no limit was reached.
std::optional<std::string> DescribeExhaustion(const ChildResult& child,
                                              const Confinement& confinement);

// What keeps a plugin's process from sectl and the rest of the machine here
// and now, for the reports: the namespaces (isolation/namespaces.h), then
// the sandbox's layers (isolation/sandbox.h). Call it where forking is safe.
std::vector<std::string> DescribeConfinementInForce(const Confinement& confinement);

// A confined child sends a FrameKind::kAllocationFailed frame when an
// allocation fails under the memory limit, so the parent can tell memory
// exhaustion from other failures (ChildResult::allocation_failed).

}  // namespace sectl::isolation
