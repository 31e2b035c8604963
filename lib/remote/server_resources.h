// What a plugin server process holds, read by the judge from /proc rather
// than asked of the server: the plugin runs in the server and could make
// it answer anything, and a leak check must not take its word.
//
// What the judge can read (proc(5)): /proc/PID/status is world-readable,
// even for a non-dumpable process, so resident memory and threads can be
// read wherever the judge can see the server's pid at all (a /proc mounted
// with hidepid=invisible hides another user's processes). /proc/PID/fd of
// a non-dumpable process belongs to root and is 0500: a judge that is not
// root (or lacks CAP_DAC_READ_SEARCH) cannot count the server's
// descriptors. Each count is an error, never a guess, when it is
// unreadable.
#pragma once

#include <sys/types.h>

#include <cstdint>

#include "base/error.h"

namespace sectl::remote {

// VmRSS of `pid`, in bytes.
Expected<uint64_t> ResidentBytesOf(pid_t pid);
// Threads of `pid` (the server's own: its main thread, the event reader,
// and one per lane opened; the rest are the plugin's).
Expected<uint64_t> ThreadCountOf(pid_t pid);
// Open descriptors of `pid` (the server's own: its channels, the arena,
// a pipe and one per lane; the rest are the plugin's).
Expected<uint64_t> OpenDescriptorCountOf(pid_t pid);

}  // namespace sectl::remote
