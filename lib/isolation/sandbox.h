// Keeping a plugin's process away from sectl's own. The plugin runs as the
// same user as sectl (in CI: root), in a child sectl forked; without more,
// it could signal, trace, stop or kill sectl, read and write its memory, and
// read its environment or write into its output through /proc/PPID.
//
// Two layers, both applied in the child before any plugin code runs:
//  - capabilities: no new privileges (no setuid or file-capability gain on
//    exec), and CAP_SYS_PTRACE dropped everywhere (effective, permitted,
//    inheritable, bounding set). sectl makes itself non-dumpable
//    (isolation/supervisor.h), so /proc/PPID/{mem,fd/N} and process_vm_*
//    are refused to the child even as root, which otherwise passes that
//    check through CAP_SYS_PTRACE (sectl's /proc/PPID/environ, which some
//    kernels still show, was emptied by PrepareSupervisor);
//  - a seccomp filter that refuses (EPERM) what no plugin needs and what
//    non-dumpable does not cover: ptrace, process_vm_readv/writev, kcmp,
//    pidfd_getfd, process_madvise, pidfd_send_signal, and kill, tkill,
//    tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_open and prlimit64
//    aimed at sectl, at the process that started sectl (a CI runner) or at
//    init (their pids, process groups and sessions), or at every process
//    (-1).
//
// Where the kernel or a container refuses a layer, the run goes on with
// what could be applied, and DescribeSandbox says what that was.
//
// Not covered here: signals to other processes by pid (sibling checks under
// -j, unrelated processes of the same user). The PID namespace
// (isolation/namespaces.h) covers those where the kernel allows it. Nor
// what root keeps besides CAP_SYS_PTRACE.
#pragma once

#include <linux/filter.h>
#include <sys/types.h>

#include <string>
#include <vector>

namespace sectl::isolation {

// What SandboxChild could apply in this child.
struct SandboxOutcome {
  bool no_new_privileges = false;
  // CAP_SYS_PTRACE is now in no set of this process: dropped, or never held.
  bool ptrace_capability_absent = false;
  bool ptrace_capability_was_held = false;
  // No capability in the effective, permitted or inheritable set now; and
  // whether there was one before.
  bool capabilities_absent = false;
  bool capabilities_were_held = false;
  bool bounding_set_empty = false;
  bool seccomp = false;  // the filter is installed
  // Why a layer is missing ("seccomp: EINVAL"), one entry per layer.
  std::vector<std::string> failures;
};

// The seccomp program for children whose parent, as they see it, is
// `supervisor` (sectl's pid; 1 for the reaper of their own namespaces),
// compiled once in sectl: building it with libseccomp in every child cost
// about 0.5 ms per check. An empty program means it could not be compiled
// here; the child then builds its own.
struct CompiledSandboxFilter {
  std::vector<sock_filter> program;
  std::vector<std::string> notes;  // rules that could not be added
};

// In sectl, where forking is safe: the compiled filter for `supervisor`,
// built on first use and kept for the run.
const CompiledSandboxFilter* CompileSandboxFilter(pid_t supervisor);

// The seccomp program a plugin server (remote/plugin_server.h) loads before
// it runs any plugin code, against its judge: the rules CompileSandboxFilter
// makes for a supervisor, for `judge` (its pid, its parent, their groups and
// sessions), and kill(0) besides, as the server shares its judge's process
// group. Empty when it cannot be compiled.
std::vector<sock_filter> CompileJudgeProtection(pid_t judge);

// In a child, before any plugin code: confines this process against
// `supervisor` (sectl's pid, or 1 in its own namespaces), loading
// `compiled` when given. True when every layer is in force; otherwise false
// with `failure` saying what is missing. A missing layer does not stop the
// run: the caller goes on. Also records the outcome for
// LastSandboxOutcome().
bool SandboxChild(pid_t supervisor, std::string* failure,
                  const CompiledSandboxFilter* compiled = nullptr);

// What the last SandboxChild in this process applied.
const SandboxOutcome& LastSandboxOutcome();

// What a plugin's child gets here and now, for the reports.
struct ConfinementInForce {
  bool seccomp = false;                   // the filter loads in a child
  bool ptrace_capability_absent = false;  // the child holds no CAP_SYS_PTRACE
  bool no_new_privileges = false;         // exec cannot raise privileges
  bool capabilities_absent = false;       // the child holds none at all
  bool bounding_set_empty = false;        // nor can gain one by exec
  // Short lines for a report, e.g. "seccomp: ptrace, process_vm_*, kcmp,
  // pidfd_getfd and signals to sectl, its parent and init refused", "capabilities: CAP_SYS_PTRACE
  // dropped", "seccomp: unavailable (EINVAL)".
  std::vector<std::string> lines;
};

// In sectl: probes once, in a short-lived child, what SandboxChild applies
// on this machine (and that the filter does refuse a signal to sectl), and
// returns the cached answer from then on. Call it first from one thread,
// where forking is safe (as for ChildProcess::Start).
ConfinementInForce DescribeSandbox();

}  // namespace sectl::isolation
