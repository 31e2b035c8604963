// The messages between a judge and its plugin server (docs/plugin-server.md):
// fixed-size, versioned, and bounded, one per SOCK_SEQPACKET packet, so
// that neither side ever parses more than it expects. Pointers in a call's
// arguments point into the arena (remote/arena.h) or are the plugin's own
// values (handles), never into the judge's memory.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sectl::remote {

inline constexpr uint32_t kProtocolVersion = 1;
inline constexpr size_t kMaxCallArguments = 12;
// A plugin's status message, a dlerror text, a path or a plugin string.
inline constexpr size_t kMaxMessageText = 4096;

enum class RequestKind : uint32_t {
  kLoad = 1,        // text: the plugin's path; answer: SE_InitPlugin's address
  kCall = 2,        // function, target, arguments; status code and text in
  kReadString = 3,  // target: a string of the plugin's; answer: its text
};

struct Request {
  uint32_t version = kProtocolVersion;
  RequestKind kind = RequestKind::kCall;
  uint32_t function = 0;  // an abi::PluginFunction
  uint32_t argument_count = 0;
  uint64_t target = 0;  // the plugin's function, or the string's address
  uint64_t arguments[kMaxCallArguments] = {};
  int32_t status_code = 0;  // what the call's TF_Status holds going in
  uint32_t text_length = 0;
  char text[kMaxMessageText] = {};
};

enum class Outcome : uint32_t {
  kReturned = 1,  // the call returned; result and status below
  kThrew = 2,     // a C++ exception left the plugin's function
  kFailed = 3,    // the server could not do it (text says why)
};

struct Reply {
  uint32_t version = kProtocolVersion;
  Outcome outcome = Outcome::kReturned;
  uint64_t result = 0;      // the function's result as a word
  int32_t status_code = 0;  // the TF_Status after the call
  uint32_t text_length = 0;
  char text[kMaxMessageText] = {};
};

}  // namespace sectl::remote
