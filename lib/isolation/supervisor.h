// What sectl does to its own process, once at start, before it runs any
// plugin: the parent side of isolation (sandbox.h is the child side).
#pragma once

namespace sectl::isolation {

// Call once, first thing in main, before any thread or child exists:
//  - sectl becomes the subreaper of what its children leave, so orphans that
//    changed session are reparented to it, found and ended
//    (stray_processes.h) rather than outliving the run;
//  - sectl becomes non-dumpable, so a plugin's process (same user, no
//    CAP_SYS_PTRACE: sandbox.h) cannot open /proc/<sectl>/{mem,fd/N};
//  - sectl's environment moves off the block the kernel shows as
//    /proc/<sectl>/environ, which some kernels let the same user read even
//    from a non-dumpable process, into a mapping that forked children do
//    not inherit: a CI token in sectl's environment is neither in
//    /proc/<sectl>/environ nor anywhere in a plugin's process memory.
//    getenv and setenv work as before, in sectl.
void PrepareSupervisor();

// In a child forked from a prepared sectl, first thing: its environment
// was not inherited, so `environ` becomes empty until the child sets the
// plugin's own (ConfineChild). Does nothing elsewhere.
void ForgetSupervisorEnvironment();

}  // namespace sectl::isolation
