// The call journal: one entry per call into the plugin, in memory that a
// parent process can still read after a child running the plugin has died.
//
// An entry is written when a call begins and completed when it returns, so a
// crash or a hang leaves the call that never returned marked in flight.
// Entries are plain data in a fixed ring, so writing one costs an atomic
// increment and a few stores: no allocation, no formatting, no lock.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "abi/plugin_functions.h"

namespace sectl::host {

enum class CallState : uint8_t {
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
  std::array<JournalEntry, kJournalCapacity> entries{};
};

class Journal {
 public:
  // A journal with storage of its own.
  Journal();
  // A journal over storage owned elsewhere (shared memory of an isolated run).
  explicit Journal(JournalRegion* region);

  JournalEntry* Begin(abi::PluginFunction function,
                      const std::array<uint64_t, kMaxRecordedArguments>& arguments,
                      uint8_t argument_count);
  void Finish(JournalEntry* entry, CallState state, int32_t status_code, int64_t result);
  void RecordMissing(abi::PluginFunction function);

  uint64_t call_count() const { return region_->calls.load(std::memory_order_relaxed); }

  // The retained entries, oldest first (the newest kJournalCapacity calls).
  std::vector<JournalEntry> Entries() const;

  // The most recent call that began and never returned.
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
};

// "#12 SP_StreamExecutor.allocate(0x5581c0, 4096, 0, 0x7ffd10) -> OK, 1.2 us"
std::string DescribeEntry(const JournalEntry& entry);

}  // namespace sectl::host
