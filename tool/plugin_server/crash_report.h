// The plugin server's crash report (remote/call_protocol.h): on a crash
// signal, the server sends its judge a backtrace, symbolised here where the
// plugin is mapped, and what the guard-page allocator saw, each as a packet
// on a channel of their own; then it dies of the signal by its default
// action. The judge keeps them as details of the crash (the journal, not
// this report, says which call the plugin died in).
#pragma once

#include <cstddef>

namespace sectl::plugin_server {

// Installs the handlers of SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT and
// the guard-page allocator's sink, both sending on `channel`. Before any
// plugin code runs.
void InstallCrashReport(int channel);

// An alternate signal stack for the calling thread while this lives, so
// that a plugin that overflows the stack is still reported. Each server
// thread that calls into the plugin holds one; a thread without (the
// plugin's own) is reported from its own stack where there is room.
class AlternateSignalStack {
 public:
  AlternateSignalStack();
  ~AlternateSignalStack();
  AlternateSignalStack(const AlternateSignalStack&) = delete;
  AlternateSignalStack& operator=(const AlternateSignalStack&) = delete;

 private:
  void* memory_ = nullptr;
};

}  // namespace sectl::plugin_server
