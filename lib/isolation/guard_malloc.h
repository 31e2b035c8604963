// A guard-page allocator for what a plugin allocates in a check's child
// process, so that a plugin writing past the end of a small heap block
// crashes at the faulty write instead of silently corrupting a neighbour.
//
// The sectl executable's malloc and friends (lib/tvm/allocation_interposer.cc)
// ask this allocator first. Once EnableGuardMalloc has run, a call whose
// return address lies outside the code that was mapped at that moment
// (sectl, libc, libstdc++, ...) comes from code loaded later: the plugin and
// the libraries it brought. Those small blocks get their own pages, placed
// flush against an inaccessible guard page:
//
//   [ ...slack... | block ][ guard page (PROT_NONE) ]
//
// Trade-off on alignment: the block ends exactly at the guard, so it starts
// at (guard - size). That address is aligned to the largest power of two
// dividing the size (capped at the page), which is the alignment any object
// of that size needs; a 1-byte block gets 1-byte alignment, so that a write
// of 4 bytes into it crashes. A 0-byte block (malloc(0), calloc(n, 0)) is the
// first byte of its guard page, unique and never dereferenceable: the first
// byte written into it crashes as an overrun of a 0-byte block. Only an
// odd-sized block holding a type that needs 16-byte alignment (SSE aligned moves)
// could fault where glibc would not (run with --no-guard-malloc to rule the
// guard out). memalign and friends honour the alignment asked for, leaving up
// to (alignment - 1) bytes between the block and its guard; those hold a
// canary, checked at the thread's next allocator call and when the block is
// freed.
//
// Freed blocks become inaccessible and their addresses are never reused
// within a child, so a use after free crashes too. Limits: blocks up to
// kLargestGuardedBlock, at most kMaxLiveGuardedBlocks alive at once (each
// costs two kernel mappings; vm.max_map_count is 65530) and
// kGuardedReservationBytes of address space in all; beyond them the real
// allocator serves the plugin. Not active under sanitizers (their runtimes
// own malloc) nor in executables without the interposer.
//
// A library of its own (sectl_guard_malloc), which knows nothing of result
// channels, so that the plugin server links it without the rest of
// isolation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sectl::isolation {

inline constexpr size_t kLargestGuardedBlock = size_t{64} * 1024;
inline constexpr size_t kMaxLiveGuardedBlocks = 8192;
inline constexpr size_t kGuardedReservationBytes = size_t{1} << 30;

// Begins each line the crash handler writes about a fault on a guard page,
// in the child's output before the backtrace marker.
inline constexpr std::string_view kGuardPageFaultMarker = "sectl: guard page: ";

// Where the guard sends the description of each fault it saw (the text
// after kGuardPageFaultMarker), besides the marked line on stderr: in a
// check's child, a frame on the result channel (child_process.cc sets it);
// in the plugin server, its crash report to the judge. Called from signal
// handlers and from inside malloc: it must be async-signal-safe.
using GuardPageFaultSink = void (*)(std::string_view description);
void SetGuardPageFaultSink(GuardPageFaultSink sink);

// Turns the guard on in this process (a check's child): snapshots the code
// mapped now as sectl's, reserves the address space and chains a SIGSEGV
// handler that describes faults on guard pages before the crash handler
// already installed runs. `plugin_path`, when given and already loaded,
// is not counted as sectl's code. False (and nothing changes) when it cannot.
bool EnableGuardMalloc(const char* plugin_path = nullptr);

// Whether the guard is on in this process.
bool GuardMallocEnabled();

// Counters of this process's guarded allocations.
struct GuardMallocCounters {
  uint64_t guarded_allocations = 0;  // blocks placed against a guard page
  uint64_t live_blocks = 0;          // of them, not yet freed
  uint64_t live_bytes = 0;           // bytes requested by the live blocks
  uint64_t fallbacks = 0;            // plugin blocks the real allocator served (limits)
};
GuardMallocCounters GuardMallocCountersNow();

// The description of a guard-page fault in a child's output: "the plugin
// wrote 3 bytes past the end of a 1-byte block it allocated ...", or
// nullopt when the output has none.
std::optional<std::string> FindGuardPageFault(std::string_view output);

// Checks the padding after the aligned blocks this thread allocated since
// the last check (an aligned block ends up to alignment - 1 bytes before its
// guard page; that padding holds a canary) and crashes, describing the
// overrun, where one was written. The allocator calls it on every call; the
// Dispatcher may call it when a plugin call returns, to pin an overrun on
// that call.
void VerifyRecentGuardedBlocks();

// Entry points for the interposed allocator. Each returns nullptr/false
// when the guard does not take the call, and the caller then uses glibc.
void* GuardedAllocate(size_t size, size_t alignment, const void* caller);
bool GuardedFree(void* pointer);
// realloc of a guarded pointer (true, with the new block or null in
// *result); false for a pointer the guard does not own.
bool GuardedReallocate(void* pointer, size_t size, const void* caller, void** result);

}  // namespace sectl::isolation
