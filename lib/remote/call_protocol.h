// The messages between a judge and its plugin server (docs/plugin-server.md):
// fixed-size, versioned, and bounded, one per SOCK_SEQPACKET packet, so
// that neither side ever parses more than it expects. Pointers in a call's
// arguments point into the arena (remote/arena.h) or are the plugin's own
// values (handles), never into the judge's memory.
//
// Three kinds of channel carry them:
//  - the main channel (descriptor 3 in the server): loading, opening lanes,
//    and calls of judge threads beyond kMaxLanes;
//  - lanes, one per judge thread, each served by a server thread of its
//    own, so that calls from different judge threads run concurrently;
//  - the event channel (descriptor 5): the server's Events (a host callback
//    the plugin called) and the judge's EventAnswers.
// A fourth, the crash report channel (descriptor 6), carries only what the
// server's crash handler says as it dies (CrashReportHeader below).
#pragma once

#include <cstddef>
#include <cstdint>

namespace sectl::remote {

// 2: lanes, host callbacks as events, ReadBytes/WriteBytes.
// 3: the crash report channel, and the guard-page allocator at start.
// 4: kProtectArena, for guard pages around the checks' host buffers;
//    kResourcesInUse, for the leak checks; a status message's whole length.
// 5: kExitProcess, so that the plugin's library destructors run as they do
//    when TensorFlow's process exits.
// 6: kLoadHostLibrary, for sectl's stand-ins of TensorFlow's libraries.
// 7: kEntryPoint and kReadRecording, for the plugin's other modules.
inline constexpr uint32_t kProtocolVersion = 7;
inline constexpr size_t kMaxCallArguments = 12;
// A plugin's status message, a dlerror text, a path, a plugin string, or
// one chunk of plugin memory read or written.
inline constexpr size_t kMaxMessageText = 4096;
// Lanes a server serves at most; a judge's threads beyond these share the
// main channel, one call at a time.
inline constexpr size_t kMaxLanes = 64;

enum class RequestKind : uint32_t {
  // text: the plugin's path; arguments[0]: 1 for lazy binding; answer:
  // SE_InitPlugin's address.
  kLoad = 1,
  kCall = 2,        // function, target, arguments; status code and text in
  kReadString = 3,  // target: a string of the plugin's; answer: its text
  // Main channel only, with the server's end of a new lane attached
  // (SCM_RIGHTS); answer: kReturned once a server thread serves it.
  kOpenLane = 4,
  // target: an address of the plugin's; arguments[0]: at most
  // kMaxMessageText bytes; answer: the bytes, or kFailed when any of them
  // is not readable in the server.
  kReadBytes = 5,
  // target: an address of the plugin's; text: the bytes to put there;
  // answer: kFailed when any of them is not writable in the server.
  kWriteBytes = 6,
  // target: a page-aligned address in the arena; arguments[0]: a length in
  // bytes, a multiple of the page size; arguments[1]: 1 to make the pages
  // readable and writable in the server, 0 to make them inaccessible there
  // (guard pages around a host buffer the judge hands the plugin). Only
  // the server's view changes; answer: kFailed for a range outside the
  // arena.
  kProtectArena = 7,
  // No arguments; answer: a ResourceReport in text. What the plugin's
  // process holds, for the leak checks: self-reported, so a plugin could
  // understate it (as it could its heap by bringing its own allocator);
  // the judge reads threads and resident memory from /proc itself where it
  // can see the server (remote/server_resources.h).
  kResourcesInUse = 8,
  // Main channel only; no arguments; answer: kReturned, after which the
  // server calls exit(0) as a process that is done does: atexit handlers
  // and library destructors run (the plugin's among them), with whatever
  // threads the plugin started still running. The judge learns how that
  // went from how the server ends.
  kExitProcess = 9,
  // text: the path of one of sectl's own libraries that stands in for the
  // host's (loader/tensorflow_stand_ins.h), loaded before the plugin so that
  // a plugin naming it as needed finds it loaded; answer: kFailed with
  // dlerror's text when it cannot be loaded.
  kLoadHostLibrary = 10,
  // text: the name of one of a plugin's module entry points
  // (kModuleEntryPointNames); answer: its address in the plugin kLoad
  // loaded, 0 when the plugin does not export it; kFailed for any other
  // name, or before kLoad.
  kEntryPoint = 11,
  // arguments[0]: an offset; answer: text, the JSON of what the plugin
  // registered through sectl's TensorFlow C API (tf_c_api/module_recording.h)
  // from that offset on, at most kMaxMessageText bytes; result: the whole
  // document's length. The document is made at offset 0 and kept, so the
  // judge reads one consistent text in chunks.
  kReadRecording = 12,
};

// The names kEntryPoint answers: the entry points TensorFlow's loader looks
// up (pluggable_device_plugin_init.cc), and nothing else.
inline constexpr const char* kModuleEntryPointNames[] = {"SE_InitPlugin", "TFNPD_InitPlugin",
                                                         "GetPjrtApi",    "TF_InitKernel",
                                                         "TF_InitGraph",  "TF_InitProfiler"};

// The plugin process's resources (kResourcesInUse): its threads and
// resident bytes (from its /proc/self), glibc's heap bytes in use
// (mallinfo2: uordblks + hblkhd), and the guard-page allocator's counters
// (isolation/guard_malloc.h), zero where it is off.
struct ResourceReport {
  uint64_t threads = 0;
  uint64_t resident_bytes = 0;
  uint64_t malloc_bytes = 0;
  uint64_t guarded_allocations = 0;
  uint64_t guarded_live_blocks = 0;
  uint64_t guarded_live_bytes = 0;
  uint64_t guard_fallbacks = 0;
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
  // The status message's whole length, of which text holds the first
  // text_length bytes (kCall).
  uint64_t full_text_length = 0;
  char text[kMaxMessageText] = {};
};

// The plugin called a host callback (host_callback's callback_fn): the
// server's trampoline stands in for the judge's function, and the plugin's
// callback_arg is the id the judge gave it. The trampoline waits for the
// EventAnswer with the same sequence number.
struct Event {
  uint32_t version = kProtocolVersion;
  uint32_t reserved = 0;
  uint64_t sequence = 0;    // the server's, unique among events in flight
  uint64_t callback = 0;    // the id as the plugin passed it back: untrusted
  int32_t status_code = 0;  // the TF_Status the plugin handed the callback
  uint32_t text_length = 0;
  char text[kMaxMessageText] = {};
};

// What the judge's callback left in its TF_Status, for the trampoline to
// copy into the plugin's before it returns.
struct EventAnswer {
  uint32_t version = kProtocolVersion;
  uint32_t reserved = 0;
  uint64_t sequence = 0;
  int32_t status_code = 0;
  uint32_t text_length = 0;
  char text[kMaxMessageText] = {};
};

// What the server's crash handler sends as it dies of a signal, one packet
// each, never waiting (a full channel loses the report, never hangs the
// crash): the header, then at most kMaxCrashReportText bytes of text. The
// judge believes it only of a server that did die of a crash signal, and
// only as a detail of that crash.
enum class CrashReportKind : uint32_t {
  kBacktrace = 1,       // backtrace_symbols_fd lines, symbolised in the server
  kGuardPageFault = 2,  // the guard-page allocator's description (isolation/guard_malloc.h)
};

struct CrashReportHeader {
  uint32_t version = kProtocolVersion;
  CrashReportKind kind = CrashReportKind::kBacktrace;
};

inline constexpr size_t kMaxCrashReportText = size_t{32} * 1024;

}  // namespace sectl::remote
