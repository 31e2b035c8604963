#include "host/journal.h"

#include <fmt/format.h>

#include <algorithm>

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

}  // namespace

Journal::Journal() : owned_(std::make_unique<JournalRegion>()), region_(owned_.get()) {}

Journal::Journal(JournalRegion* region) : region_(region) {}

void Journal::RecordMissing(abi::PluginFunction function) {
  JournalEntry* entry = Begin(function, {}, 0);
  Finish(entry, CallState::kMissing, kNoStatus, 0);
}

std::vector<JournalEntry> Journal::Entries() const {
  std::vector<JournalEntry> entries;
  for (const auto& entry : region_->entries) {
    if (entry.sequence != 0) entries.push_back(entry);
  }
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.sequence < b.sequence; });
  return entries;
}

std::optional<JournalEntry> Journal::LastUnfinished() const {
  std::optional<JournalEntry> last;
  for (const auto& entry : region_->entries) {
    if (entry.sequence != 0 && entry.state == CallState::kInFlight &&
        (!last || entry.sequence > last->sequence)) {
      last = entry;
    }
  }
  return last;
}

std::string Journal::WhereCallsStopped() const {
  if (auto unfinished = LastUnfinished()) {
    return fmt::format("in {} (call #{})", abi::QualifiedName(unfinished->function),
                       unfinished->sequence);
  }
  const auto entries = Entries();
  if (entries.empty()) return "before its first call";
  return fmt::format("after {} returned (call #{})", abi::QualifiedName(entries.back().function),
                     entries.back().sequence);
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
  std::string arguments;
  for (uint8_t i = 0; i < entry.argument_count; ++i) {
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
