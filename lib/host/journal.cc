#include "host/journal.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "host/tf_status_handle.h"

namespace sectl::host {
namespace {

std::string FormatArgument(uint64_t value) {
  if (value > 0xFFFFFF) return fmt::format("0x{:x}", value);
  return fmt::format("{}", value);
}

std::string FormatDuration(uint64_t nanoseconds) {
  if (nanoseconds < 10'000) return fmt::format("{} ns", nanoseconds);
  if (nanoseconds < 10'000'000)
    return fmt::format("{:.1f} us", static_cast<double>(nanoseconds) / 1e3);
  return fmt::format("{:.1f} ms", static_cast<double>(nanoseconds) / 1e6);
}

constexpr std::string_view kOverwrittenEntry = "a journal entry the plugin overwrote";

// Copies one entry out of memory that the plugin's process may still be
// writing. The fence keeps the compiler from reading the shared fields again
// after the copy has been validated.
JournalEntry CopyOut(const JournalEntry& shared) {
  JournalEntry copy;
  std::memcpy(&copy, &shared, sizeof copy);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  return copy;
}

// Whether a nonzero sequence fits the slot it was read from and the call
// count: sectl writes call N into slot N % kJournalCapacity, and only after
// counting it. Threads that have counted a call but not yet written its slot
// leave older entries standing, hence the slack of a second capacity.
bool FitsItsSlot(const JournalEntry& entry, size_t slot, uint64_t calls) {
  return entry.sequence % kJournalCapacity == slot && entry.sequence <= calls &&
         calls - entry.sequence < 2 * kJournalCapacity;
}

// What Entries hands out in place of an entry that fails validation: its
// place in the order, nothing else of what the plugin wrote.
JournalEntry MarkedOverwritten(uint64_t sequence) {
  JournalEntry marked;
  marked.sequence = sequence;
  marked.function = abi::PluginFunction::kCount;
  marked.state = CallState::kOverwritten;
  return marked;
}

}  // namespace

bool IsIntact(const JournalEntry& entry) {
  const bool known_state = entry.state == CallState::kInFlight ||
                           entry.state == CallState::kReturned ||
                           entry.state == CallState::kMissing || entry.state == CallState::kThrew;
  return entry.sequence != 0 && known_state && abi::IsPluginFunction(entry.function) &&
         entry.argument_count <= kMaxRecordedArguments;
}

Journal::Journal() : owned_(std::make_unique<JournalRegion>()), region_(owned_.get()) {}

Journal::Journal(JournalRegion* region) : region_(region) {}

void Journal::RecordMissing(abi::PluginFunction function) {
  JournalEntry* entry = Begin(function, {}, 0);
  Finish(entry, CallState::kMissing, kNoStatus, 0);
}

std::vector<JournalEntry> Journal::Entries() const {
  const uint64_t calls = region_->calls.load(std::memory_order_relaxed);
  std::vector<JournalEntry> entries;
  entries.reserve(kJournalCapacity);
  for (size_t slot = 0; slot < kJournalCapacity; ++slot) {
    const JournalEntry entry = CopyOut(region_->entries[slot]);
    if (entry.sequence == 0) continue;  // unused, or being rewritten
    if (IsIntact(entry) && FitsItsSlot(entry, slot, calls)) {
      entries.push_back(entry);
    } else {
      entries.push_back(MarkedOverwritten(entry.sequence));
    }
  }
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.sequence < b.sequence; });
  return entries;
}

std::optional<JournalEntry> Journal::LastUnfinished() const {
  const auto entries = Entries();
  // Not views::reverse: clang-14 cannot compile it with libstdc++ 12.
  for (auto entry = entries.rbegin(); entry != entries.rend();  // NOLINT(modernize-loop-convert)
       ++entry) {
    if (entry->state == CallState::kInFlight) return *entry;
  }
  return std::nullopt;
}

std::string Journal::WhereCallsStopped() const {
  if (auto unfinished = LastUnfinished()) {
    return fmt::format("in {} (call #{})", abi::QualifiedName(unfinished->function),
                       unfinished->sequence);
  }
  const auto entries = Entries();
  if (entries.empty()) return "before its first call";
  for (auto entry = entries.rbegin(); entry != entries.rend(); ++entry) {
    if (entry->state == CallState::kOverwritten) continue;
    std::string where = fmt::format("after {} returned (call #{})",
                                    abi::QualifiedName(entry->function), entry->sequence);
    if (entry != entries.rbegin()) where += fmt::format(", then {}", kOverwrittenEntry);
    return where;
  }
  return fmt::format("at a point the journal cannot tell ({})", kOverwrittenEntry);
}

std::vector<std::string> Journal::DescribeLast(size_t count) const {
  const auto entries = Entries();
  std::vector<std::string> lines;
  for (size_t i = entries.size() > count ? entries.size() - count : 0; i < entries.size(); ++i) {
    lines.push_back(DescribeEntry(entries[i]));
  }
  return lines;
}

std::optional<abi::PluginFunction> Journal::LastThrowingFunction() const {
  if (exception_count() == 0) return std::nullopt;
  const uint8_t recorded = region_->last_exception_function.load(std::memory_order_relaxed);
  if (recorded >= static_cast<uint8_t>(abi::PluginFunction::kCount)) return std::nullopt;
  return static_cast<abi::PluginFunction>(recorded);
}

void Journal::Clear() {
  region_->calls.store(0, std::memory_order_relaxed);
  region_->exceptions.store(0, std::memory_order_relaxed);
  region_->last_exception_function.store(0, std::memory_order_relaxed);
  for (auto& entry : region_->entries) entry.sequence = 0;
}

std::string DescribeEntry(const JournalEntry& entry) {
  if (!IsIntact(entry)) return std::string(kOverwrittenEntry);
  std::string arguments;
  const size_t argument_count = std::min<size_t>(entry.argument_count, kMaxRecordedArguments);
  for (size_t i = 0; i < argument_count; ++i) {
    if (i > 0) arguments += ", ";
    arguments += FormatArgument(entry.arguments[i]);
  }
  std::string call =
      fmt::format("#{} {}({})", entry.sequence, abi::QualifiedName(entry.function), arguments);
  switch (entry.state) {
    case CallState::kInFlight:
      return call + " -> never returned";
    case CallState::kMissing:
      return call + " -> not provided by the plugin";
    case CallState::kThrew:
      return call + " -> threw a C++ exception";
    case CallState::kReturned:
      break;
    case CallState::kOverwritten:
      return std::string(kOverwrittenEntry);
  }
  std::string outcome;
  if (entry.status_code != kNoStatus) {
    outcome = std::string(TfCodeName(static_cast<TF_Code>(entry.status_code)));
  } else {
    outcome = fmt::format("{}", entry.result);
  }
  // An untimed journal (see Journal::set_timed) records no start time.
  if (entry.start_ns == 0) return fmt::format("{} -> {}", call, outcome);
  return fmt::format("{} -> {}, {}", call, outcome, FormatDuration(entry.duration_ns));
}

}  // namespace sectl::host
