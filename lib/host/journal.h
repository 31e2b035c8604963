// The call journal: one entry per call into the plugin, in memory that a
// parent process can still read after a child running the plugin has died.
//
// An entry is written when a call begins and completed when it returns, so a
// crash or a hang leaves the call that never returned marked in flight.
// Entries are plain data in a fixed ring, so writing one costs an atomic
// increment and a few stores: no allocation, no formatting, no lock.
#pragma once

#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "abi/plugin_functions.h"

namespace sectl::host {

enum class CallState : uint8_t {
  // Never written by sectl: what the parent reads in place of an entry that
  // fails validation (the plugin's process can write the journal's memory).
  kOverwritten = 0,
  kInFlight = 1,  // begun, not returned (yet, or ever)
  kReturned = 2,
  kMissing = 3,  // the plugin left this function pointer null; nothing was called
  kThrew = 4,    // a C++ exception came back across the C API
};

inline constexpr int32_t kNoStatus = -1;
inline constexpr size_t kMaxRecordedArguments = 4;

struct JournalEntry {
  uint64_t sequence = 0;  // 1-based call number; 0 marks an unused slot
  uint64_t start_ns = 0;  // steady clock
  uint64_t duration_ns = 0;
  int32_t thread_id = 0;
  abi::PluginFunction function = abi::PluginFunction::kInitPlugin;
  CallState state = CallState::kInFlight;
  uint8_t argument_count = 0;
  int32_t status_code = kNoStatus;  // the TF_Code the plugin left, if the call takes a status
  int64_t result = 0;               // the return value, where there is one
  std::array<uint64_t, kMaxRecordedArguments> arguments{};  // integers and addresses
};

inline constexpr size_t kJournalCapacity = 256;

// The journal's storage: plain data, so it can live in shared memory.
struct JournalRegion {
  std::atomic<uint64_t> calls{0};
  // C++ exceptions that came back across the C API, and the function of the
  // latest: kept apart from the ring, which may have moved past the call.
  std::atomic<uint64_t> exceptions{0};
  std::atomic<uint8_t> last_exception_function{0};
  std::array<JournalEntry, kJournalCapacity> entries{};
};

// The steady clock in nanoseconds, as journal entries record it.
inline uint64_t NowNanoseconds() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

// The kernel's id of the calling thread; gettid is a system call, so it is
// asked once per thread.
inline int32_t CurrentThreadId() {
  thread_local const auto id = static_cast<int32_t>(::syscall(SYS_gettid));
  return id;
}

class Journal {
 public:
  // A journal with storage of its own.
  Journal();
  // A journal over storage owned elsewhere (shared memory of an isolated run).
  explicit Journal(JournalRegion* region);

  // Whether entries carry start times and durations. On by default: the
  // durations help people read a journal. `sectl bench` turns them off, so
  // the journal costs no clock reads inside the intervals it measures.
  void set_timed(bool timed) { timed_ = timed; }
  bool timed() const { return timed_; }

  // Begin and Finish run around every plugin call, so they are inline: an
  // atomic increment and a few stores (plus two clock reads when timed).
  JournalEntry* Begin(abi::PluginFunction function,
                      const std::array<uint64_t, kMaxRecordedArguments>& arguments,
                      uint8_t argument_count) {
    const uint64_t sequence = region_->calls.fetch_add(1, std::memory_order_relaxed) + 1;
    JournalEntry& entry = region_->entries[sequence % kJournalCapacity];
    entry.sequence = 0;  // the slot is being rewritten
    entry.function = function;
    entry.state = CallState::kInFlight;
    entry.thread_id = CurrentThreadId();
    entry.arguments = arguments;
    entry.argument_count = argument_count;
    entry.status_code = kNoStatus;
    entry.result = 0;
    entry.duration_ns = 0;
    entry.start_ns = timed_ ? NowNanoseconds() : 0;
    entry.sequence = sequence;
    return &entry;
  }

  void Finish(JournalEntry* entry, CallState state, int32_t status_code, int64_t result) {
    if (timed_) entry->duration_ns = NowNanoseconds() - entry->start_ns;
    entry->status_code = status_code;
    entry->result = result;
    entry->state = state;
    if (state == CallState::kThrew) {
      region_->last_exception_function.store(static_cast<uint8_t>(entry->function),
                                             std::memory_order_relaxed);
      region_->exceptions.fetch_add(1, std::memory_order_relaxed);
    }
  }
  void RecordMissing(abi::PluginFunction function);

  uint64_t call_count() const { return region_->calls.load(std::memory_order_relaxed); }

  // How many plugin calls threw a C++ exception across the C API, and the
  // function of the latest (nullopt when none did, or the number recorded
  // is not a function's).
  uint64_t exception_count() const { return region_->exceptions.load(std::memory_order_relaxed); }
  std::optional<abi::PluginFunction> LastThrowingFunction() const;

  // The retained entries, oldest first (the newest kJournalCapacity calls).
  // The region may live in memory the plugin's process can write, so every
  // entry is copied out once and validated: one that cannot be what sectl
  // wrote comes back with state kOverwritten (see IsIntact).
  std::vector<JournalEntry> Entries() const;

  // The most recent call that began and never returned (intact entries only).
  std::optional<JournalEntry> LastUnfinished() const;

  // Where the calls stopped, for a process that died or hung: "in
  // SP_StreamExecutor.allocate (call #12)", or "after ... returned (call #12)".
  std::string WhereCallsStopped() const;

  // The newest `count` entries, described one per line, oldest first.
  std::vector<std::string> DescribeLast(size_t count) const;

  // Forgets every entry (a region reused for the next isolated run).
  void Clear();

 private:
  std::unique_ptr<JournalRegion> owned_;
  JournalRegion* region_;
  bool timed_ = true;
};

// Whether every field of `entry` holds a value sectl could have written: a
// known function, a known state, at most kMaxRecordedArguments arguments, a
// nonzero sequence. (Whether the sequence matches its slot is Entries' test.)
bool IsIntact(const JournalEntry& entry);

// "#12 SP_StreamExecutor.allocate(0x5581c0, 4096, 0, 0x7ffd10) -> OK, 1.2 us";
// an entry that is not intact reads "a journal entry the plugin overwrote".
std::string DescribeEntry(const JournalEntry& entry);

}  // namespace sectl::host
