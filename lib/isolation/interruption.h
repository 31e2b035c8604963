// sectl interrupted (Ctrl-C, a cancelled CI job): every child's process
// group is killed at once from the signal handler, pollers wake, and the
// runners stop starting new children, so that sectl can still write a
// report marked incomplete and leave nothing running.
#pragma once

#include <sys/types.h>

namespace sectl::isolation {

// Installs handlers for SIGINT, SIGTERM and SIGHUP in sectl (once, at
// start). The handler records the signal, kills the process group of every
// live child and wakes every poll(2) waiting on InterruptionDescriptor();
// sectl then finishes what it can report. A second such signal ends sectl
// at once by its default action (Ctrl-C twice: no report).
void InstallInterruptHandlers();

// The signal that interrupted sectl, or 0.
int InterruptedBy();

// A descriptor that becomes readable once sectl is interrupted (-1 before
// InstallInterruptHandlers). ChildProcess::PollDescriptors includes it.
int InterruptionDescriptor();

// The table of live children the handler kills (fixed size, lock-free, so
// the handler may read it). ChildProcess registers and unregisters itself.
void RegisterLiveChild(pid_t pid);
void UnregisterLiveChild(pid_t pid);
bool IsLiveChild(pid_t pid);

// For tests: forget an interruption, as if none had come.
void ResetInterruptionForTesting();

}  // namespace sectl::isolation
