// The end of a plugin's life in TensorFlow's process: the plugin stays
// loaded while the process lives, and its library destructors run when the
// process exits. What goes wrong there (a thread of the plugin's that
// crashes some time after SE_InitPlugin, a destructor that crashes or
// hangs) happens after every other check has ended its process with
// _exit, so only this check lets the plugin's process live on and end.
#include <fmt/format.h>

#include <chrono>
#include <string>
#include <thread>

#include "conform/check.h"
#include "conform/check_support.h"
#include "host/stream.h"
#include "isolation/child_process.h"
#include "remote/plugin_server.h"

namespace sectl::checks {
namespace {

using abi::PluginFunction;
using conform::SkipUnlessProvided;
using std::chrono::milliseconds;

// How long the plugin's process lives on after SE_InitPlugin before it is
// asked to exit: a thread of the plugin's that crashes within this window
// is seen. Later ones are not; the window is short because every conform
// run pays it once.
constexpr milliseconds kLateCrashWindow{500};
// How long exit() may take before the process is taken to hang in it:
// TensorFlow waits for ever, and a driver's teardown may take a second or
// two, so only what no teardown needs is a hang.
constexpr milliseconds kExitPatience{5000};

// "died of SIGSEGV", "exited with status 3".
std::string DescribeEnd(const remote::ServerEnd& end) {
  if (end.stopped) return fmt::format("stopped itself with {}", isolation::SignalName(end.value));
  if (end.broke_protocol) return "wrote over its channel to sectl";
  if (end.stopped_answering) return "closed its channel to sectl";
  return end.signaled ? fmt::format("died of {}", isolation::SignalName(end.value))
                      : fmt::format("exited with status {}", end.value);
}

// The server's own account of its crash, for the report: a detail, never
// the finding (the plugin's process wrote it).
void NoteCrashReport(conform::CheckContext& check, const remote::PluginServer& server) {
  const remote::CrashReport report = server.crash_report();
  if (!report.backtrace.empty()) check.details()["backtrace"] = report.backtrace;
  if (report.guard_page_fault) check.details()["guard_page_fault"] = *report.guard_page_fault;
}

// A little of what TensorFlow does with a device, so that the plugin has
// started whatever it starts on first use (worker threads, driver state)
// before its process lives on and exits.
void UseTheDevice(conform::CheckContext& check) {
  constexpr size_t kBytes = 4096;
  const host::Device& device = check.device();
  auto memory = check.Require(device.Allocate(kBytes), "allocate");
  auto stream = check.Require(device.CreateStream(), "create_stream");
  const conform::HostBytes written = conform::TestPattern(kBytes, 3);
  conform::HostBytes read(kBytes);
  check.Require(stream->MemcpyHtoD(memory.base(), written.data(), kBytes), "memcpy_htod");
  check.Require(stream->MemcpyDtoH(read.data(), memory.base(), kBytes), "memcpy_dtoh");
  check.Require(conform::WaitForStream(check, *stream), "waiting for the stream");
}

}  // namespace

SECTL_CHECK("lifecycle.process_exit", kRequired,
            "The plugin's process lives on and exits cleanly: no thread of the plugin's crashes "
            "after the work, and its library destructors neither crash nor hang",
            // What starts the plugin's process-lifetime state and what should
            // stop it; a failure names neither (the message says where it
            // happened), and the calls made to get there only block it.
            .tests = {kInitPlugin, kDestroyPlatform},
            .severity_reason =
                "TensorFlow 2.5 and later keep a plugin loaded for the life of the process and "
                "run its library destructors when the process exits: a plugin thread that "
                "crashes kills the job, and a destructor that crashes or hangs turns every "
                "finished run into a crash or a hang at exit",
            .establishes =
                "after SE_InitPlugin, a device, a stream and two copies, the plugin's process "
                "lives on for 0.5 s after registration without dying, then calls exit(0) as a "
                "finished TensorFlow process does (devices and streams still alive, the plugin's "
                "threads still running) and ends within 5 s with status 0",
            .common_mistakes =
                "A background thread (a poller, a watchdog) that crashes some time after start; "
                "a static object whose destructor frees what a still-running thread uses, or "
                "talks to a driver already torn down; a destructor that joins a thread nothing "
                "tells to stop; an atexit handler that calls _exit with a status of its own.",
            .how_to_fix =
                "Tell background threads to stop and join them in `destroy_platform`, not in a "
                "static destructor; make library destructors safe to run with devices and "
                "streams still alive (TensorFlow never destroys them before exit), or leave "
                "process-lifetime state to the operating system.",
            .proven_by =
                "`THREAD_CRASHES_LATE`, `DESTRUCTOR_CRASHES`, `DESTRUCTOR_HANGS`, "
                "`DESTRUCTOR_CHANGES_EXIT_STATUS`") {
  remote::PluginServer* server = check.server();
  if (server == nullptr) {
    check.Skip(
        "the plugin runs in the check's own process (--isolation none), whose exit is sectl's");
  }
  SkipUnlessProvided(check, {PluginFunction::kAllocate, PluginFunction::kCreateStream,
                             PluginFunction::kMemcpyHtoD, PluginFunction::kMemcpyDtoH});
  if (check.settings().plugin_reports_no_devices) {
    check.Skip(std::string(conform::kNoDevicesReason));
  }
  (void)check.platform();  // SE_InitPlugin has returned by now
  const auto registered = std::chrono::steady_clock::now();
  UseTheDevice(check);

  // From here the server's end is this check's finding, not a crash of the
  // call in flight: there is none.
  server->ReportItsEnd();
  while (std::chrono::steady_clock::now() < registered + kLateCrashWindow && !server->ended()) {
    std::this_thread::sleep_for(milliseconds(5));
  }
  check.details() = {{"late_crash_window_ms", kLateCrashWindow.count()},
                     {"exit_patience_ms", kExitPatience.count()}};
  if (const auto end = server->ended()) {
    const auto after =
        std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - registered);
    NoteCrashReport(check, *server);
    check.Fail(fmt::format(
        "the plugin's process {} within {} ms of SE_InitPlugin, after its last call had "
        "returned: a thread of the plugin's ended it. In TensorFlow that kills the job in the "
        "middle of its work",
        DescribeEnd(*end), after.count()));
    return;
  }

  const remote::ServerExit exit =
      check.Require(server->ExitProcess(kExitPatience), "asking the plugin's process to exit");
  check.details()["exit_took_ms"] = exit.took.count();
  if (exit.hung) {
    check.Fail(fmt::format(
        "exit(0) had not ended the plugin's process after {} ms: a library destructor or "
        "atexit handler of the plugin's hangs (joining a thread nothing told to stop, waiting "
        "for a device or a lock). TensorFlow's process would hang as it exits",
        kExitPatience.count()));
    return;
  }
  if (exit.end.signaled) {
    NoteCrashReport(check, *server);
    check.Fail(fmt::format(
        "exit(0) crashed the plugin's process: it {} in a library destructor or atexit handler "
        "of the plugin's. TensorFlow's process would crash the same way after finishing its work",
        DescribeEnd(exit.end)));
  } else if (exit.end.value != 0) {
    check.Fail(fmt::format(
        "exit(0) ended the plugin's process with status {}: a destructor or atexit handler of "
        "the plugin's ended it with a status of its own, which TensorFlow's process would then "
        "report after finishing its work",
        exit.end.value));
  }
}

}  // namespace sectl::checks
