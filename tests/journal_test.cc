// The journal read defensively: its region lives in shared memory that the
// plugin's process can overwrite, so whatever bytes it holds, reading it must
// neither crash sectl nor copy anything but the journal's own numbers into a
// report.
#include "host/journal.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <string_view>

#include "abi/plugin_functions.h"

namespace sectl::host {
namespace {

using abi::PluginFunction;

constexpr std::string_view kOverwritten = "a journal entry the plugin overwrote";

// Text a report may carry: printable ASCII, of a length a journal line can
// reach. Heap bytes read past an array would show up as anything else.
bool IsPlainReportText(std::string_view text) {
  if (text.size() > 400) return false;
  for (const char c : text) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

// Every way the parent reads a journal, checked for plain text and for
// entries that are either intact or marked overwritten.
void ReadEverything(const Journal& journal) {
  for (const JournalEntry& entry : journal.Entries()) {
    EXPECT_TRUE(IsIntact(entry) || entry.state == CallState::kOverwritten);
    EXPECT_TRUE(IsPlainReportText(DescribeEntry(entry))) << DescribeEntry(entry);
  }
  if (auto unfinished = journal.LastUnfinished()) {
    EXPECT_TRUE(IsIntact(*unfinished));
    EXPECT_EQ(unfinished->state, CallState::kInFlight);
  }
  const std::string where = journal.WhereCallsStopped();
  EXPECT_TRUE(IsPlainReportText(where)) << where;
  for (const std::string& line : journal.DescribeLast(kJournalCapacity + 10)) {
    EXPECT_TRUE(IsPlainReportText(line)) << line;
  }
  if (auto threw = journal.LastThrowingFunction()) {
    EXPECT_TRUE(abi::IsPluginFunction(*threw));
  }
}

// The region's bytes as the plugin's process could leave them.
std::span<unsigned char> BytesOf(JournalRegion& region) {
  return {reinterpret_cast<unsigned char*>(&region), sizeof region};
}

TEST(Journal, AnyBytesInTheRegionAreReadWithoutCrashOrLeak) {
  auto region = std::make_unique<JournalRegion>();
  const Journal journal(region.get());
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    std::mt19937 random(seed);
    std::uniform_int_distribution<int> byte(0, 255);
    for (unsigned char& b : BytesOf(*region)) b = static_cast<unsigned char>(byte(random));
    ReadEverything(journal);
  }
}

// Random bytes rarely look like a journal; these do, with one field forged.
class ForgedJournal : public ::testing::Test {
 protected:
  ForgedJournal() : region_(std::make_unique<JournalRegion>()), journal_(region_.get()) {
    journal_.set_timed(false);
    for (uint64_t i = 0; i < 3; ++i) {
      JournalEntry* entry = journal_.Begin(PluginFunction::kAllocate, {4096, i}, 2);
      journal_.Finish(entry, CallState::kReturned, kNoStatus, 0);
    }
  }

  // The newest entry (call #3), as the plugin could rewrite it.
  JournalEntry& newest() { return region_->entries[3]; }

  void ExpectNewestReadsOverwritten() {
    const auto entries = journal_.Entries();
    ASSERT_EQ(entries.size(), 3u);
    EXPECT_EQ(entries.back().state, CallState::kOverwritten);
    EXPECT_EQ(DescribeEntry(entries.back()), kOverwritten);
    EXPECT_EQ(DescribeEntry(entries.front()).find(kOverwritten), std::string::npos);
    EXPECT_EQ(
        journal_.WhereCallsStopped(),
        fmt::format("after SP_StreamExecutor.allocate returned (call #2), then {}", kOverwritten));
    ReadEverything(journal_);
  }

  std::unique_ptr<JournalRegion> region_;
  Journal journal_;
};

TEST_F(ForgedJournal, AnIntactJournalReadsAsWritten) {
  EXPECT_EQ(journal_.WhereCallsStopped(), "after SP_StreamExecutor.allocate returned (call #3)");
  EXPECT_EQ(DescribeEntry(journal_.Entries().back()),
            "#3 SP_StreamExecutor.allocate(4096, 2) -> 0");
}

TEST_F(ForgedJournal, AFunctionNumberPastTheCatalogue) {
  newest().function = static_cast<PluginFunction>(250);
  ExpectNewestReadsOverwritten();
}

TEST_F(ForgedJournal, AnArgumentCountPastTheRecordedArguments) {
  newest().argument_count = 255;
  ExpectNewestReadsOverwritten();
}

TEST_F(ForgedJournal, AStateThatIsNoCallState) {
  newest().state = static_cast<CallState>(77);
  ExpectNewestReadsOverwritten();
}

TEST_F(ForgedJournal, ASequenceThatDoesNotMatchItsSlot) {
  newest().sequence = 4;
  ExpectNewestReadsOverwritten();
}

TEST_F(ForgedJournal, ASequenceBeyondTheCallsCounted) {
  newest().sequence = 3 + kJournalCapacity;  // its slot, but never counted
  ExpectNewestReadsOverwritten();
}

TEST_F(ForgedJournal, AForgedInFlightEntryIsNotBlamed) {
  newest().state = CallState::kInFlight;
  newest().function = static_cast<PluginFunction>(200);
  EXPECT_FALSE(journal_.LastUnfinished().has_value());
  ExpectNewestReadsOverwritten();
}

TEST_F(ForgedJournal, ACallCountFarBeyondWhatWasWritten) {
  region_->calls.store(uint64_t{1} << 62);
  for (const JournalEntry& entry : journal_.Entries()) {
    EXPECT_EQ(entry.state, CallState::kOverwritten);
  }
  EXPECT_EQ(journal_.WhereCallsStopped(),
            fmt::format("at a point the journal cannot tell ({})", kOverwritten));
  ReadEverything(journal_);
}

TEST_F(ForgedJournal, AnExceptionFunctionPastTheCatalogue) {
  region_->exceptions.store(1);
  region_->last_exception_function.store(255);
  EXPECT_FALSE(journal_.LastThrowingFunction().has_value());
}

TEST(PluginFunctions, EveryByteValueHasAName) {
  for (int value = 0; value <= 255; ++value) {
    const auto function = static_cast<PluginFunction>(value);
    const std::string_view name = abi::QualifiedName(function);
    EXPECT_TRUE(IsPlainReportText(name)) << value;
    EXPECT_TRUE(IsPlainReportText(abi::InfoOf(function).member)) << value;
    if (!abi::IsPluginFunction(function)) {
      EXPECT_EQ(name, "an unknown function");
    }
  }
}

}  // namespace
}  // namespace sectl::host
