// Every exit status a child process of sectl's own making uses. A plugin can
// call exit() with any of these, so none of them is believed alone: the
// parent also asks for a framed message on the result channel
// (isolation/result_channel.h), which plugin code cannot write by accident.
#pragma once

namespace sectl::isolation {

// The child wrote its answer (an outcome, a report) to the result channel.
inline constexpr int kChildReported = 0;
// The child wrote sectl's own error about the plugin (child_error.h).
inline constexpr int kChildFailed = 3;
// The reaper at pid 1 of the plugin's namespaces (namespaces.h) saw the
// plugin's process end by a signal, or stop; its frame says which.
inline constexpr int kWorkerEndedBySignal = 120;
// The child found its result channel closed or replaced when it came to
// report: the plugin took sectl's descriptor.
inline constexpr int kResultChannelLost = 121;
// sectl could not set up the child's confinement (a resource limit
// refused, /dev/null missing) before any plugin code ran.
inline constexpr int kConfinementFailed = 122;
// A check's process found its plugin server alive but no longer talking:
// the plugin closed or replaced the server's descriptors to sectl
// (remote/plugin_server.h). The check's process ends with this status.
inline constexpr int kServerChannelLost = 123;
// A check's process got from its plugin server what no server sends
// (answers of the wrong size or version): the plugin wrote to the server's
// channel to sectl. sectl ended the server; the check's process ends with
// this status.
inline constexpr int kServerBrokeProtocol = 124;

}  // namespace sectl::isolation
