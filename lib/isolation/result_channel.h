// The channel a child process answers its parent on, made so that plugin
// code running in the child cannot write on it by accident.
//
// The descriptor sits at a random high number (not 3, where a plugin that
// writes to "the next descriptor" or to every descriptor would find it);
// every message is a frame that begins with a key drawn from getrandom(2)
// for this child alone, then its kind and length. The parent caps what it
// reads and believes only well-formed frames with the key; any other byte
// on the channel is the plugin's doing. What sectl's own code in the child
// says about a crash (the backtrace, an allocation that failed under the
// memory limit, a fault on a guard page) travels as frames too, so a plugin
// cannot forge it by printing.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"

namespace sectl::isolation {

enum class FrameKind : uint32_t {
  kResult = 1,            // the child's answer
  kSetupFailure = 2,      // sectl could not confine the child (child_exit_codes.h)
  kBacktrace = 3,         // backtrace_symbols_fd lines of a crash
  kAllocationFailed = 4,  // operator new failed under --memory-limit
  kGuardPageFault = 5,    // what the guard-page allocator saw (guard_malloc.h)
  kWorkerEnded = 6,       // how the plugin's process ended, from the reaper (namespaces.h)
  // Confinement is in place and plugin code may run from now on: a
  // kSetupFailure after it cannot be sectl's, whose set-up is over.
  kConfined = 7,
};

// How the plugin's process ended, as the reaper at pid 1 of its namespace
// saw it (isolation/namespaces.h): sectl's direct child is the reaper, so
// its own exit status cannot carry a signal.
struct WorkerEnd {
  enum class How : int32_t { kExited = 0, kSignaled = 1, kStopped = 2 };
  How how = How::kExited;
  int32_t value = 0;            // the exit status, or the signal
  int32_t stray_processes = 0;  // processes left in the namespace, killed by the reaper
};

using ChannelKey = std::array<uint8_t, 16>;

// A fresh key from getrandom(2).
Expected<ChannelKey> NewChannelKey();

// The most bytes the parent reads from one child's result channel; beyond
// it the channel counts as flooded by the plugin and is closed.
inline constexpr size_t kMaxResultChannelBytes = size_t{16} * 1024 * 1024;

// In the child, before plugin code runs: moves `fd` to a random descriptor
// number of at least 64 (close-on-exec) and remembers it, the file it
// refers to and `key`, for WriteFrame. Returns the new descriptor, or -1.
int AdoptResultChannel(int fd, const ChannelKey& key);

// The descriptor AdoptResultChannel chose, or -1 outside a child.
int AdoptedResultChannel();

// Writes one frame on the adopted channel. Async-signal-safe (writev only).
// False when there is no channel or the write failed.
bool WriteFrame(FrameKind kind, const char* data, size_t size) noexcept;

// Whether `fd` is still the channel AdoptResultChannel set up: a plugin
// may have closed it or opened something else in its place.
bool IsAdoptedChannelIntact(int fd);

// What the parent found on a child's channel.
struct ChannelMessages {
  std::string result;     // the payloads of the kResult frames, in order
  bool reported = false;  // whether there was a kResult frame (perhaps empty)
  std::optional<std::string> setup_failure;
  std::vector<std::string> backtrace;  // one frame line each, demangled
  bool allocation_failed = false;
  std::optional<std::string> guard_page_fault;
  std::optional<WorkerEnd> worker_end;
  // Bytes that were no frame with the key, or more than the cap, or a frame
  // sectl never writes where it stands (a set-up failure after kConfined, a
  // frame after the reaper's kWorkerEnded, which is always the last): the
  // plugin wrote on sectl's channel. Frames before the first such byte
  // still count.
  bool foreign_bytes = false;
};

ChannelMessages ReadFrames(std::string_view bytes, const ChannelKey& key, bool overflowed);

// "lib.so(_ZN5sectl4host...+0x93)[0x55c0]" with the C++ name demangled.
std::string DemangleFrame(const std::string& frame);

}  // namespace sectl::isolation
