// The judge's side of a plugin server (docs/plugin-server.md): starts the
// separate `sectl-plugin-server` executable, which loads the plugin in a
// process that holds none of sectl's memory, and asks it to perform calls.
// What the server answers is input from the plugin's process: bounded,
// checked, never trusted to say more than what the plugin did.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "abi/plugin_functions.h"
#include "base/error.h"
#include "remote/arena.h"
#include "remote/call_protocol.h"

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
};

// What a judge does when it finds its server gone.
enum class WhenTheServerEnds {
  // Return an error from the call that found it (ended() says how).
  kReportIt,
  // End this process the same way (the same signal, or the same exit
  // status), at once: the judge's journal then names the call the plugin
  // died in, and sectl reads that death as it reads a plugin's in its own
  // process. Only for a judge in a confined child process of sectl's.
  kEndTheSameWay,
};

// Ends this process as `end` says: the default action of its signal (not
// this process's handlers: a backtrace of the judge shows only sectl's
// code), or its exit status.
[[noreturn]] void EndTheSameWay(const ServerEnd& end);

class PluginServer {
 public:
  // Starts the server executable at `executable` with an arena of
  // `arena_bytes`. The server inherits this process's confinement.
  static Expected<std::unique_ptr<PluginServer>> Start(
      const std::string& executable, size_t arena_bytes,
      WhenTheServerEnds when_it_ends = WhenTheServerEnds::kReportIt);
  ~PluginServer();
  PluginServer(const PluginServer&) = delete;
  PluginServer& operator=(const PluginServer&) = delete;

  Arena& arena() { return arena_; }
  pid_t pid() const { return pid_; }

  // dlopen in the server; the address of the plugin's SE_InitPlugin there
  // (0 when it exports none), or the dlopen error.
  Expected<uint64_t> Load(const std::string& plugin_path);

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

  // Set once the server has ended (a call found it gone).
  const std::optional<ServerEnd>& ended() const { return ended_; }

 private:
  PluginServer(pid_t pid, int socket, Arena arena, WhenTheServerEnds when_it_ends);
  Expected<Reply> Exchange(const Request& request);
  Error ServerGone();

  pid_t pid_;
  int socket_;
  Arena arena_;
  WhenTheServerEnds when_it_ends_;
  std::optional<ServerEnd> ended_;
};

}  // namespace sectl::remote
