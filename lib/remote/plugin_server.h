// The judge's side of a plugin server (docs/plugin-server.md): starts the
// separate `sectl-plugin-server` executable, which loads the plugin in a
// process that holds none of sectl's memory, and asks it to perform calls.
// What the server answers is input from the plugin's process: bounded,
// checked, never trusted to say more than what the plugin did.
//
// Thread-safe: calls from different judge threads run concurrently in the
// server, each on a lane of its own (up to kMaxLanes at once; beyond, they
// share the main channel one at a time).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "abi/plugin_functions.h"
#include "base/error.h"
#include "remote/arena.h"
#include "remote/call_protocol.h"
#include "remote/host_callbacks.h"
#include "remote/owned_descriptor.h"

namespace sectl::remote {

// What one call answered.
struct CallAnswer {
  Outcome outcome = Outcome::kReturned;
  uint64_t result = 0;
  int32_t status_code = 0;
  std::string text;  // the status message, or why the server failed
};

// How the server process ended, once it has.
struct ServerEnd {
  bool signaled = false;
  int value = 0;  // the signal, or the exit status
  // The server stopped answering without ending (the plugin closed or
  // replaced its descriptors), and the judge killed it.
  bool stopped_answering = false;
  // The server answered what no server sends (the plugin wrote to its
  // channels), and the judge killed it.
  bool broke_protocol = false;
  // The server stopped (value: the signal), and the judge killed it.
  bool stopped = false;
};

// How a server asked to exit (PluginServer::ExitProcess) ended.
struct ServerExit {
  ServerEnd end;
  // Still there after the patience given: killed by the judge (end then
  // says SIGKILL).
  bool hung = false;
  std::chrono::milliseconds took{0};  // from the request to its end
};

// What the server said of its own crash (remote/call_protocol.h), kept by
// the judge once the server has died of a crash signal; empty otherwise.
// Text from the plugin's process: a detail of the crash, never its proof.
struct CrashReport {
  std::string backtrace;  // backtrace_symbols_fd lines, symbolised in the server
  std::optional<std::string> guard_page_fault;  // isolation/guard_malloc.h, after the marker
};

// Whether the server puts the plugin's small heap blocks against guard
// pages (isolation/guard_malloc.h), from the moment it loads the plugin.
enum class PluginHeap {
  kPlain,
  // A check's process: an overrun of a heap block crashes at the faulty
  // write, and the crash report says which block and how far.
  kGuarded,
};

// What a judge does when it finds its server gone.
enum class WhenTheServerEnds {
  // Return an error from the call that found it (ended() says how).
  kReportIt,
  // End this process the same way (the same signal, or the same exit
  // status), at once: the judge's journal then names the call the plugin
  // died in, and sectl reads that death as it reads a plugin's in its own
  // process. Only for a judge in a confined child process of sectl's.
  // The server's crash report goes first on this process's result channel,
  // as the frames a crash in this process would have sent
  // (isolation/result_channel.h).
  kEndTheSameWay,
};

// Ends this process as `end` says: the default action of its signal (not
// this process's handlers: a backtrace of the judge shows only sectl's
// code), or its exit status; a server that stopped, by stopping this
// process with the same signal; a server that stopped answering, with
// isolation::kServerChannelLost, and one that broke the protocol, with
// isolation::kServerBrokeProtocol.
[[noreturn]] void EndTheSameWay(const ServerEnd& end);

class PluginServer {
 public:
  // Starts the server executable at `executable` with an arena of
  // `arena_bytes`. The server inherits this process's confinement.
  static Expected<std::unique_ptr<PluginServer>> Start(
      const std::string& executable, size_t arena_bytes,
      WhenTheServerEnds when_it_ends = WhenTheServerEnds::kReportIt,
      PluginHeap heap = PluginHeap::kPlain);
  ~PluginServer();
  PluginServer(const PluginServer&) = delete;
  PluginServer& operator=(const PluginServer&) = delete;

  Arena& arena() { return arena_; }
  pid_t pid() const { return pid_; }

  // dlopen in the server (with lazy binding for `lazy`, sectl's --lazy);
  // the address of the plugin's SE_InitPlugin there (0 when it exports
  // none), or the dlopen error.
  Expected<uint64_t> Load(const std::string& plugin_path, bool lazy = false);
  // Loads one of sectl's stand-ins for a host library into the server
  // (kLoadHostLibrary), before Load; kInternal when it cannot be loaded.
  Expected<void> LoadHostLibrary(const std::string& path);
  // The address of a module entry point the loaded plugin exports
  // (kEntryPoint: one of kModuleEntryPointNames), 0 when it does not.
  Expected<uint64_t> EntryPoint(std::string_view name);
  // What the plugin registered through sectl's TensorFlow C API so far, as
  // the JSON tf_c_api::RecordingFromJson reads; refused when the server says
  // it is longer than `limit` bytes.
  Expected<std::string> ReadRecording(size_t limit);

  // Calls `function` at `target` in the server with `words` (pointers into
  // the arena, or the plugin's own values), its TF_Status holding
  // `status_code` and `status_text` going in. An error when the server
  // died (ended() then says how) or broke the protocol.
  Expected<CallAnswer> Call(abi::PluginFunction function, uint64_t target,
                            std::span<const uint64_t> words, int32_t status_code = 0,
                            const std::string& status_text = {});

  // The plugin's string at `address`, read in the server, at most `limit`
  // bytes.
  Expected<std::string> ReadString(uint64_t address, size_t limit);

  // `size` bytes of the plugin's memory at `address` (a host_memory_allocate
  // or unified_memory_allocate result the host reads directly), in chunks
  // of kMaxMessageText. The server copies without faulting: memory it
  // cannot read is a kFailedPrecondition error that says so, never a
  // server that dies as if the plugin had crashed.
  Expected<std::vector<std::byte>> ReadBytes(uint64_t address, size_t size);
  // Writes `bytes` to the plugin's memory at `address`, in chunks, as
  // ReadBytes reads. On an error, chunks before the unwritable one (and
  // bytes of it before the fault) may have been written.
  Expected<void> WriteBytes(uint64_t address, std::span<const std::byte> bytes);

  // Makes whole pages of the arena, [address, address + bytes), accessible
  // (readable and writable) or inaccessible in the server's mapping only:
  // guard pages around a host buffer, so that a plugin reading or writing
  // past it crashes in its own call, as it would in TensorFlow's process.
  Expected<void> ProtectArena(const void* address, size_t bytes, bool accessible);

  // The id to pass the server for the host callback `function(argument,
  // status)` (host/remote_arguments.h does it for host_callback); 0 when no
  // more can be registered. The server hands the plugin a trampoline of
  // its own and the id; when the plugin calls it, `function` runs here, on
  // a judge thread, and the status it sets goes back to the plugin.
  uint64_t RegisterHostCallback(StatusCallback function, void* argument) {
    return callbacks_->Register(function, argument);
  }
  // Callback events that named no registered id (answered with an error,
  // never run): for a check to report.
  uint64_t unknown_callback_events() const { return callbacks_->unknown_events(); }

  // Lanes open now (for tests and benchmarks).
  size_t lanes_open() const;

  // The server process's own resources, read by the judge
  // (remote/server_resources.h says what a judge can read and when).
  Expected<uint64_t> ResidentBytes() const;
  Expected<uint64_t> ThreadCount() const;
  Expected<uint64_t> OpenDescriptorCount() const;
  // The server's resources, as the server reports them (call_protocol.h
  // says why a plugin could understate them).
  Expected<ResourceReport> ResourcesInUse();

  // From now on a server found gone is reported (kReportIt), whatever
  // Start was told: for a judge about to make the server's end its finding.
  void ReportItsEnd() { when_it_ends_ = WhenTheServerEnds::kReportIt; }

  // Asks the server to exit as a process that is done does (kExitProcess:
  // the plugin's library destructors and atexit handlers run) and waits up
  // to `patience` for it to end; one still there then is killed, and the
  // answer says it hung. Reports its end from now on (ReportItsEnd). An
  // error when the server was gone before it could be asked (ended() says
  // how), or broke the protocol.
  Expected<ServerExit> ExitProcess(std::chrono::milliseconds patience);

  // Whether the server is known to have ended: ended() is then set.
  bool gone() const { return gone_; }
  // Set once the server has ended (a call, or the event listener, found it
  // gone).
  std::optional<ServerEnd> ended() const;
  // What the server reported of its crash, once it has died of SIGSEGV,
  // SIGBUS, SIGILL, SIGFPE or SIGABRT; empty before, and for any other end.
  CrashReport crash_report() const;

 private:
  struct Lane {
    OwnedDescriptor socket;
  };
  // A lane for one call: an idle one, a new one, or (kMaxLanes busy) the
  // main channel, held until the call is answered.
  class LaneLease;

  PluginServer(pid_t pid, OwnedDescriptor main, OwnedDescriptor events,
               OwnedDescriptor crash_reports, Arena arena, WhenTheServerEnds when_it_ends);
  Expected<Reply> Exchange(const Request& request);
  Expected<Reply> ExchangeOn(int socket, const Request& request, int attached = -1);
  std::unique_ptr<Lane> OpenLane();
  void ListenForEvents(const std::stop_token& stop);
  Error ServerGone();
  // Ends a server that broke the protocol; then as ServerGone.
  Error ServerBrokeProtocol();
  // Whether the server is stopped (stopped_by_ then says by what signal).
  bool ServerStopped();
  static constexpr int kStopCheckMilliseconds = 50;
  void ReadCrashReport();

  pid_t pid_;
  OwnedDescriptor main_;
  std::mutex main_mutex_;  // one call at a time on the main channel
  OwnedDescriptor events_;
  OwnedDescriptor crash_reports_;  // read once the server has died of a crash
  Arena arena_;
  std::atomic<WhenTheServerEnds> when_it_ends_;

  mutable std::mutex lanes_mutex_;
  std::vector<std::unique_ptr<Lane>> idle_lanes_;
  size_t lanes_open_ = 0;

  std::unique_ptr<HostCallbacks> callbacks_;
  std::atomic<bool> stopping_{false};
  std::jthread listener_;

  mutable std::mutex end_mutex_;
  std::atomic<bool> gone_{false};
  std::atomic<bool> broke_protocol_{false};
  std::atomic<int> stopped_by_{0};
  std::optional<ServerEnd> ended_;
  CrashReport crash_report_;
};

}  // namespace sectl::remote
