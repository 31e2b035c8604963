// Namespaces for a plugin's process: the kernel's own wall between the
// plugin and every other process on the machine.
//
// Where the kernel allows it (root, or unprivileged user namespaces), each
// child sectl starts is created in new PID and mount namespaces (and a user
// namespace when sectl lacks CAP_SYS_ADMIN):
//  - sectl's child becomes pid 1 of the new PID namespace: a small reaper of
//    sectl's own code (no plugin code) that forks the process that runs the
//    plugin (pid 2). The plugin sees only its own namespace: sectl, sibling
//    checks under -j and every other process of the user have no pid it can
//    name, so no signal, ptrace or /proc access reaches them;
//  - /proc is mounted afresh in the new mount namespace (after making every
//    mount private, so nothing propagates back), so that /proc lists only
//    the namespace's processes;
//  - when pid 1 of a PID namespace exits, the kernel kills everything left
//    in it: nothing a plugin starts can outlive its check.
//
// Why a reaper at pid 1 instead of the plugin itself: the kernel ignores
// signals that pid 1 sends itself without a handler, so a plugin running as
// pid 1 would survive its own raise(SIGABRT) and fault later with SIGSEGV,
// and orphans would pile up as zombies. The reaper waits for the plugin's
// process, kills and counts what it left behind, and sends how the plugin's
// process ended on the result channel (FrameKind::kWorkerEnded).
//
// Where the kernel refuses (a container without CAP_SYS_ADMIN and with user
// namespaces disabled), the child is a plain fork as before, the seccomp
// filter (isolation/sandbox.h) is what keeps sectl safe, and the report
// says so.
#pragma once

#include <sys/types.h>

#include <string>

#include "base/error.h"

namespace sectl::isolation {

struct NamespaceSupport {
  bool pid = false;         // new PID and mount namespaces can be created
  bool fresh_proc = false;  // and /proc can be mounted afresh in them
  bool user = false;        // a user namespace is needed for it (not root)
  std::string why_not;      // "EPERM", when !pid
};

// Probes once, with a short-lived trial child, and caches the answer. Call
// it first from one thread, where forking is safe.
const NamespaceSupport& ProbeNamespaces();

// A line for the report: "namespaces: pid, mount (own /proc)[, user]", or
// why there are none ("namespaces: unavailable (EPERM): ...", "namespaces:
// off (--no-namespaces): ...").
std::string DescribeNamespaces(bool requested);

// The identity of sectl's user, taken before the clone: inside a new user
// namespace the process is nobody until its maps are written.
struct OuterIdentity {
  uid_t uid = 0;
  gid_t gid = 0;
};
OuterIdentity CurrentIdentity();

// Like fork(), into new namespaces as ProbeNamespaces found possible: 0 in
// the child (pid 1 of the new PID namespace), its pid in the parent, -1 with
// errno. The child is a child of the calling thread, made by a go-between
// glibc fork()ed, so no lock another thread of the caller held comes with
// it. Its glibc still believes it has the go-between's thread id, so until
// it forks again it must not use raise(), abort() or pthread calls
// (SetUpNamespaces and RunNamespaceReaper use none).
pid_t CloneIntoNamespaces(const NamespaceSupport& support);

// In the child of CloneIntoNamespaces, first: maps sectl's user (in a user
// namespace), makes every mount private and mounts a fresh /proc. In a user
// namespace it also drops the capabilities that namespace gave (a plugin
// run by a plain user holds none). An error says what failed.
Expected<void> SetUpNamespaces(const NamespaceSupport& support, const OuterIdentity& identity);

// In the child of CloneIntoNamespaces, once `worker` (the plugin's process)
// is forked: reaps until the worker ends, kills and reaps whatever it left
// in the namespace, sends a FrameKind::kWorkerEnded frame on the adopted
// result channel, and exits with the worker's exit status (or
// kWorkerEndedBySignal). Never returns.
[[noreturn]] void RunNamespaceReaper(pid_t worker);

}  // namespace sectl::isolation
