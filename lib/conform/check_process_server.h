// The plugin server a check's process drives (docs/plugin-server.md): the
// plugin runs there, in a process of its own, and the check (the judge)
// never maps it, so nothing the plugin writes can reach the verdict.
//
// One per check process, started on first use and kept until the process
// ends (it ends by _exit, isolation/child_process.cc): host buffers
// allocated in its arena may outlive the check's context, as a landing kept
// for a plugin that writes late does (check_support.h).
#pragma once

#include <string>

#include "base/error.h"
#include "remote/plugin_server.h"

namespace sectl::conform {

// Starts the server `executable` for this process, or returns the one
// started already. From then on this process's default std::pmr memory
// resource allocates in the server's arena, so that the host buffers
// checks hand the plugin (host::HostBytes, GuardedHostBuffer) are memory
// the plugin's process can reach. When the server dies, this process ends
// the same way (remote::WhenTheServerEnds::kEndTheSameWay): the journal
// then names the call the plugin died in.
// With `guard_plugin_heap`, the plugin's small heap blocks go against guard
// pages in the server (isolation/guard_malloc.h).
Expected<remote::PluginServer*> StartCheckProcessServer(const std::string& executable,
                                                        bool guard_plugin_heap);

// The server StartCheckProcessServer started, or nullptr: the plugin is in
// this process.
remote::PluginServer* CheckProcessServer();

// Ends the server, if one was started, and waits for it (briefly, then
// kills it), so that no process of the plugin's outlives the check's. For
// the check's process once its result is written: host buffers in the
// arena must not be touched after this.
void EndCheckProcessServer();

}  // namespace sectl::conform
