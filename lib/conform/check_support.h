// Tools that checks share: recognisable data, host buffers fenced by
// inaccessible pages, and counts of the process's threads and memory.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <memory_resource>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "abi/plugin_functions.h"
#include "base/error.h"

namespace sectl::host {
class Stream;
}

namespace sectl::remote {
class PluginServer;
}  // namespace sectl::remote

namespace sectl::conform {

class CheckContext;

// Skips the check when the plugin lacks any of `needed`. A missing required
// member is reported once, by registration.required_callbacks; the checks
// that would need it step aside rather than fail a second time.
void SkipUnlessProvided(CheckContext& check, std::initializer_list<abi::PluginFunction> needed);

// Polls `done` until it holds or `limit` passes; returns whether it held.
// For checks waiting on what a plugin does on its own threads.
template <typename Condition>
bool WaitUntil(Condition done, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return true;
}

// Whether a check may watch streams through host callbacks: the plugin
// provides host_callback, the check has not found it broken, and no earlier
// run of the check crashed or hung in it (CheckContext::Avoids).
bool HostCallbacksUsable(CheckContext& check);

// The copy route's size (BusyWork): long enough that an asynchronous plugin
// is still copying while the check looks (milliseconds), small enough for
// any device.
inline constexpr size_t kBusyCopyBytes = size_t{16} << 20;

// Waits until `stream` has run everything enqueued on it, by a way the
// check does not avoid: block_host_until_done (or TensorFlow's event
// fallback where the plugin has none), else synchronize_all_activity. An
// error when both are avoided (blamed on block_host_until_done).
Expected<void> WaitForStream(CheckContext& check, host::Stream& stream);

// Why a stream was left idle (BusyWork's route kIdle), kept beyond the
// BusyWork for the check's verdict.
struct IdleStream {
  abi::PluginFunction because = abi::PluginFunction::kHostCallback;
  std::string why;
};

// Work that keeps a stream busy for a while and lets the host see when the
// stream has got past it, by one of two routes:
//  - a host callback that sleeps `duration` (the usual route), or
//  - when host_callback is broken or avoided (many real plugins return
//    false from it and never run the callback), a long memcpy_htod then
//    memcpy_dtoh of a large buffer, whose bytes the host watches arrive.
// Either way a check observes order and completion without the other
// route, so that only the checks testing host_callback fail when it is
// broken. A synchronous plugin finishes the work before enqueueing returns;
// a check must conclude only from what no correct plugin can produce (for
// instance: a wait returned, and the work finished only later).
//
// When neither route works (host_callback and allocate or the copies are
// broken or avoided), a check that can still learn something from an idle
// stream asks for kLeaveIdle: nothing is enqueued (route kIdle), the work
// counts as finished, and the check reports what it finds there; where an
// idle stream cannot show all it establishes, it ends blocked by
// the function Idle() names (see BlockBecauseIdle). Otherwise the check is blocked at
// once. Destroy it before its stream: it waits for the stream when the work
// has not finished.
class BusyWork {
 public:
  enum class Route { kHostCallback, kCopy, kIdle };
  enum class WithoutRoute { kBlock, kLeaveIdle };

  BusyWork(CheckContext& check, host::Stream& stream, std::chrono::milliseconds duration,
           WithoutRoute without_route = WithoutRoute::kBlock);
  ~BusyWork();
  BusyWork(const BusyWork&) = delete;
  BusyWork& operator=(const BusyWork&) = delete;

  // Whether the stream has got past the work (the callback returned, or
  // every byte of the copy arrived; always, on an idle stream).
  bool finished() const;
  // Waits up to `limit` for finished(); returns it.
  bool Await(std::chrono::milliseconds limit) const;

  Route route() const;
  // "a host callback sleeping 50 ms", "a copy of 16 MiB to the device and
  // back", or "nothing (an idle stream: ...why...)"
  std::string Describe() const;
  // The function to blame when the work never finishes: host_callback when
  // callbacks never run, memcpy_dtoh when the copy never lands.
  abi::PluginFunction StalledFunction() const;
  // On route kIdle: the function that ruled the busy routes out (the first
  // route's), and why none was usable.
  IdleStream Idle() const;

  struct State;

 private:
  CheckContext& check_;
  host::Stream& stream_;
  std::shared_ptr<State> state_;
};

// Stops a check that found no defect on an idle stream (`what_was_seen`)
// but needs busy work for the rest of what it establishes
// (`needs_busy_work_to`): blocked by the function that ruled busy work out.
[[noreturn]] void BlockBecauseIdle(CheckContext& check, const IdleStream& idle,
                                   std::string_view what_was_seen,
                                   std::string_view needs_busy_work_to);

// Host memory sectl hands the plugin, such as the host side of a copy:
// from the default std::pmr resource, which in a check's process that
// drives a plugin server is the server's arena, so that the plugin's
// process reads and writes the same bytes (conform/check_process_server.h).
// A plain std::vector would be at an address that means nothing there.
using HostBytes = std::pmr::vector<unsigned char>;

// Bytes that differ from position to position and from `seed` to `seed`, so
// that a copy from the wrong offset or a stale buffer is visible.
HostBytes TestPattern(size_t size, unsigned seed = 0);

// "" when equal; else "byte 12 reads back as 0x00, 0x5a was written".
std::string FirstDifference(const unsigned char* expected, const unsigned char* actual,
                            size_t size);

// Host memory that ends exactly where a PROT_NONE page begins, with another
// inaccessible page in front of its first page: a plugin that reads or
// writes past the end of the buffer it was given (or far before it)
// crashes on the spot, and the crash is attributed to its call. With a
// plugin server (check_process_server.h), the memory is in its arena and
// the guard pages are inaccessible in the server's view of it, where the
// plugin runs.
class GuardedHostBuffer {
 public:
  explicit GuardedHostBuffer(size_t size);
  ~GuardedHostBuffer();
  GuardedHostBuffer(const GuardedHostBuffer&) = delete;
  GuardedHostBuffer& operator=(const GuardedHostBuffer&) = delete;

  unsigned char* data() const { return data_; }
  size_t size() const { return size_; }
  // False if the mapping failed (the check should report an error).
  bool ok() const { return mapping_ != nullptr; }

 private:
  void* mapping_ = nullptr;  // the mapping, or the first guard page in the arena
  size_t mapping_size_ = 0;
  remote::PluginServer* server_ = nullptr;  // whose arena holds the buffer
  void* arena_block_ = nullptr;
  unsigned char* data_ = nullptr;
  size_t size_;
};

// The number of threads of the plugin's process (from /proc): this
// process, or the plugin server's (check_process_server.h) less the one
// thread each of its lanes adds, so that counts taken with different
// numbers of lanes open compare. A server this process cannot see in /proc
// (both are non-dumpable, and /proc has hidepid=2) says its own count:
// self-reported, like its heap (remote/call_protocol.h). 0 if unknown.
int ThreadCount();

// The plugin process's resident memory in bytes (from /proc, or reported
// as ThreadCount says); 0 if unknown.
uint64_t ResidentBytes();

// The plugin process's heap in use: glibc's bytes (mallinfo2), and what the
// guard-page allocator holds for the plugin (isolation/guard_malloc.h). From
// the plugin server, when there is one: self-reported there. All zero when
// unknown.
struct PluginHeap {
  uint64_t bytes = 0;  // glibc's, and the guarded blocks' bytes
  uint64_t guarded_allocations = 0;
  uint64_t guarded_live_blocks = 0;
  uint64_t guard_fallbacks = 0;
};
PluginHeap PluginHeapNow();

}  // namespace sectl::conform
