// Tests for baselines (lib/conform/baseline.cc): the file format and its
// error messages, expiry, which entry applies to a check, the verdict each
// kind of entry gives each status, and writing a starting baseline.

#include "conform/baseline.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace sectl::conform {
namespace {

using report::BaselineVerdict;
using report::CheckResult;
using report::CheckStatus;
using std::chrono::year_month_day;

constexpr year_month_day Date(int year, unsigned month, unsigned day) {
  return year_month_day{std::chrono::year(year), std::chrono::month(month), std::chrono::day(day)};
}

constexpr year_month_day kToday = Date(2026, 11, 21);

constexpr std::string_view kExample = R"(# Known problems of the example plugin.
# KIND   CHECK-ID-GLOB     [expires=YYYY-MM-DD]   REASON (rest of the line, required)

fail     memcpy.dtod.*     expires=2027-03-31     DMA engine drops odd tails (VENDOR-123)
flake    events.*                                 races under load
skip     timers.*                                 this device has no timers  # no timer unit
)";

Baseline Parsed(std::string_view text, const std::string& file_name = "baseline.txt") {
  auto baseline = ParseBaseline(text, file_name);
  EXPECT_TRUE(baseline.has_value()) << baseline.error().message();
  return baseline.value_or(Baseline());
}

// The one-line error ParseBaseline gives for `text`.
std::string ParseError(std::string_view text) {
  auto baseline = ParseBaseline(text, "baseline.txt");
  EXPECT_FALSE(baseline.has_value()) << text;
  if (baseline.has_value()) return "";
  EXPECT_EQ(baseline.error().code(), ErrorCode::kInvalidArgument);
  return baseline.error().message();
}

CheckResult Result(std::string id, CheckStatus status, std::string message = "") {
  CheckResult result;
  result.id = std::move(id);
  result.status = status;
  result.message = std::move(message);
  return result;
}

// The verdict `baseline` gives one result of check `id` with `status`.
BaselineVerdict VerdictFor(const Baseline& baseline, std::string id, CheckStatus status,
                           year_month_day today = kToday) {
  std::vector<CheckResult> results = {Result(std::move(id), status)};
  ApplyBaseline(baseline, today, results);
  return results[0].baseline;
}

// A file under the test's temporary directory, removed afterwards.
class TemporaryPath {
 public:
  explicit TemporaryPath(const std::string& name)
      : path_(std::filesystem::path(::testing::TempDir()) /
              (name + "." + std::to_string(::getpid()))) {}
  TemporaryPath(const TemporaryPath&) = delete;
  TemporaryPath& operator=(const TemporaryPath&) = delete;
  ~TemporaryPath() { std::filesystem::remove_all(path_); }
  std::string string() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

TEST(ParseBaselineTest, ParsesTheDocumentedExample) {
  Baseline baseline = Parsed(kExample);
  ASSERT_EQ(baseline.entries.size(), 3U);

  const BaselineEntry& fail = baseline.entries[0];
  EXPECT_EQ(fail.kind, BaselineKind::kFail);
  EXPECT_EQ(fail.pattern, "memcpy.dtod.*");
  EXPECT_EQ(fail.expires, Date(2027, 3, 31));
  EXPECT_EQ(fail.reason, "DMA engine drops odd tails (VENDOR-123)");
  EXPECT_EQ(fail.location, "baseline.txt:4");

  const BaselineEntry& flake = baseline.entries[1];
  EXPECT_EQ(flake.kind, BaselineKind::kFlake);
  EXPECT_EQ(flake.pattern, "events.*");
  EXPECT_FALSE(flake.expires.has_value());
  EXPECT_EQ(flake.reason, "races under load");
  EXPECT_EQ(flake.location, "baseline.txt:5");

  const BaselineEntry& skip = baseline.entries[2];
  EXPECT_EQ(skip.kind, BaselineKind::kSkip);
  EXPECT_EQ(skip.pattern, "timers.*");
  EXPECT_EQ(skip.reason, "this device has no timers");  // the comment is not part of it
  EXPECT_EQ(skip.location, "baseline.txt:6");
}

TEST(ParseBaselineTest, EmptyAndCommentOnlyTextHaveNoEntries) {
  EXPECT_TRUE(Parsed("").entries.empty());
  EXPECT_TRUE(Parsed("\n\n   \t\n# only a comment\n   # an indented one\n").entries.empty());
}

TEST(ParseBaselineTest, ToleratesTabsCarriageReturnsAndNoFinalNewline) {
  Baseline baseline = Parsed("\tfail\ta.b\t expires=2027-01-02\tthe reason\r\nskip c.* why not");
  ASSERT_EQ(baseline.entries.size(), 2U);
  EXPECT_EQ(baseline.entries[0].pattern, "a.b");
  EXPECT_EQ(baseline.entries[0].expires, Date(2027, 1, 2));
  EXPECT_EQ(baseline.entries[0].reason, "the reason");
  EXPECT_EQ(baseline.entries[1].reason, "why not");
  EXPECT_EQ(baseline.entries[1].location, "baseline.txt:2");
}

TEST(ParseBaselineTest, ReasonKeepsInnerSpacingAndLaterEqualsSigns) {
  Baseline baseline = Parsed("fail a.*   size  0 fails; expires=never is not an option here");
  ASSERT_EQ(baseline.entries.size(), 1U);
  EXPECT_EQ(baseline.entries[0].reason, "size  0 fails; expires=never is not an option here");
  EXPECT_FALSE(baseline.entries[0].expires.has_value());
}

TEST(ParseBaselineTest, LeapDayIsADate) {
  Baseline baseline = Parsed("fail a.* expires=2028-02-29 leap day");
  ASSERT_EQ(baseline.entries.size(), 1U);
  EXPECT_EQ(baseline.entries[0].expires, Date(2028, 2, 29));
}

TEST(ParseBaselineTest, LocationsUseTheFileNameGiven) {
  Baseline baseline = Parsed("\n\nflake x.y z\n", "ci/vendor.baseline");
  ASSERT_EQ(baseline.entries.size(), 1U);
  EXPECT_EQ(baseline.entries[0].location, "ci/vendor.baseline:3");
}

TEST(ParseBaselineTest, UnknownKindListsTheValidOnes) {
  EXPECT_EQ(ParseError("# header\n\nfial a.* reason\n"),
            "baseline.txt:3: unknown kind 'fial': expected fail, flake or skip");
  EXPECT_EQ(ParseError("FAIL a.* reason"),
            "baseline.txt:1: unknown kind 'FAIL': expected fail, flake or skip");
}

TEST(ParseBaselineTest, MissingGlob) {
  EXPECT_EQ(ParseError("fail a.* ok\nskip\n"),
            "baseline.txt:2: missing the check-id glob after 'skip'");
  EXPECT_EQ(ParseError("fail   # all of it"),
            "baseline.txt:1: missing the check-id glob after 'fail'");
  EXPECT_EQ(ParseError("fail expires=2027-01-01 reason"),
            "baseline.txt:1: missing the check-id glob after 'fail'");
}

TEST(ParseBaselineTest, MissingReason) {
  EXPECT_EQ(ParseError("fail a.*"),
            "baseline.txt:1: missing the reason for 'a.*': say why, after the glob");
  EXPECT_EQ(ParseError("fail a.* expires=2027-01-01   "),
            "baseline.txt:1: missing the reason for 'a.*': say why, after the glob");
  EXPECT_EQ(ParseError("\nflake b.* # the reason is only a comment"),
            "baseline.txt:2: missing the reason for 'b.*': say why, after the glob");
}

TEST(ParseBaselineTest, MalformedDate) {
  for (std::string_view date : {"2027-3-31", "27-03-31", "2027/03/31", "2027-03-31x", "+027-03-31",
                                "2027-0a-31", "tomorrow", ""}) {
    EXPECT_EQ(
        ParseError("fail a.* expires=" + std::string(date) + " why"),
        "baseline.txt:1: expires: malformed date '" + std::string(date) + "': expected YYYY-MM-DD");
  }
}

TEST(ParseBaselineTest, ImpossibleDate) {
  for (std::string_view date :
       {"2027-02-30", "2027-02-29", "2027-13-01", "2027-00-10", "2027-04-31", "2027-01-00"}) {
    EXPECT_EQ(ParseError("skip a.* expires=" + std::string(date) + " why"),
              "baseline.txt:1: expires: impossible date '" + std::string(date) + "'");
  }
}

TEST(ParseBaselineTest, UnknownOption) {
  EXPECT_EQ(ParseError("fail a.* expire=2027-01-01 typo in the key"),
            "baseline.txt:1: unknown option 'expire=2027-01-01': the only option is "
            "expires=YYYY-MM-DD (and a reason cannot start with key=value)");
  EXPECT_EQ(ParseError("fail a.* expires=2027-01-01 owner=me reason"),
            "baseline.txt:1: unknown option 'owner=me': the only option is expires=YYYY-MM-DD "
            "(and a reason cannot start with key=value)");
}

TEST(ParseBaselineTest, RepeatedOption) {
  EXPECT_EQ(ParseError("fail a.* expires=2027-01-01 expires=2028-01-01 reason"),
            "baseline.txt:1: expires= is given more than once");
}

TEST(ParseBaselineTest, ReportsTheFirstBadLine) {
  EXPECT_EQ(ParseError("fail a.* ok\nbad\nalso bad\n"),
            "baseline.txt:2: unknown kind 'bad': expected fail, flake or skip");
}

TEST(LoadBaselineTest, ReadsAFile) {
  TemporaryPath path("baseline.txt");
  std::ofstream(path.string()) << kExample;
  auto baseline = LoadBaseline(path.string());
  ASSERT_TRUE(baseline.has_value()) << baseline.error().message();
  ASSERT_EQ(baseline->entries.size(), 3U);
  EXPECT_EQ(baseline->entries[0].location, path.string() + ":4");
}

TEST(LoadBaselineTest, ErrorsCarryThePath) {
  TemporaryPath path("bad-baseline.txt");
  std::ofstream(path.string()) << "\nwhatever a.* b\n";
  auto baseline = LoadBaseline(path.string());
  ASSERT_FALSE(baseline.has_value());
  EXPECT_EQ(baseline.error().message(),
            path.string() + ":2: unknown kind 'whatever': expected fail, flake or skip");
}

TEST(LoadBaselineTest, MissingFileIsAnErrorNamingThePath) {
  TemporaryPath path("no-such-baseline.txt");
  auto baseline = LoadBaseline(path.string());
  ASSERT_FALSE(baseline.has_value());
  EXPECT_EQ(baseline.error().code(), ErrorCode::kNotFound);
  EXPECT_EQ(baseline.error().message(),
            "cannot read baseline: " + path.string() + ": no such file");
}

TEST(LoadBaselineTest, DirectoryIsAnErrorNamingThePath) {
  TemporaryPath path("baseline-directory");
  std::filesystem::create_directory(path.string());
  auto baseline = LoadBaseline(path.string());
  ASSERT_FALSE(baseline.has_value());
  EXPECT_EQ(baseline.error().message(),
            "cannot read baseline: " + path.string() +
                ": is a directory, not a regular file (a baseline is read only from a regular "
                "file)");
}

TEST(IsExpiredTest, ValidThroughItsExpiryDay) {
  BaselineEntry entry;
  entry.expires = Date(2027, 3, 31);
  EXPECT_FALSE(IsExpired(entry, Date(2027, 3, 30)));
  EXPECT_FALSE(IsExpired(entry, Date(2027, 3, 31)));
  EXPECT_TRUE(IsExpired(entry, Date(2027, 4, 1)));
  EXPECT_TRUE(IsExpired(entry, Date(2028, 1, 1)));
}

TEST(IsExpiredTest, WithoutADateNeverExpires) {
  EXPECT_FALSE(IsExpired(BaselineEntry(), Date(9999, 12, 31)));
}

TEST(ApplyBaselineTest, FailEntry) {
  Baseline baseline = Parsed("fail a.* known bug");
  EXPECT_EQ(VerdictFor(baseline, "a.x", CheckStatus::kFail), BaselineVerdict::kExpected);
  EXPECT_EQ(VerdictFor(baseline, "a.x", CheckStatus::kCrash), BaselineVerdict::kExpected);
  EXPECT_EQ(VerdictFor(baseline, "a.x", CheckStatus::kTimeout), BaselineVerdict::kExpected);
  EXPECT_EQ(VerdictFor(baseline, "a.x", CheckStatus::kPass), BaselineVerdict::kFixed);
  EXPECT_EQ(VerdictFor(baseline, "a.x", CheckStatus::kWarn), BaselineVerdict::kNone);
  EXPECT_EQ(VerdictFor(baseline, "a.x", CheckStatus::kSkip), BaselineVerdict::kNone);
  EXPECT_EQ(VerdictFor(baseline, "a.x", CheckStatus::kError), BaselineVerdict::kNone);
}

TEST(ApplyBaselineTest, FlakeEntryIsNeverFixed) {
  Baseline baseline = Parsed("flake a.* sometimes");
  EXPECT_EQ(VerdictFor(baseline, "a.x", CheckStatus::kFail), BaselineVerdict::kExpected);
  EXPECT_EQ(VerdictFor(baseline, "a.x", CheckStatus::kCrash), BaselineVerdict::kExpected);
  EXPECT_EQ(VerdictFor(baseline, "a.x", CheckStatus::kTimeout), BaselineVerdict::kExpected);
  EXPECT_EQ(VerdictFor(baseline, "a.x", CheckStatus::kPass), BaselineVerdict::kNone);
  EXPECT_EQ(VerdictFor(baseline, "a.x", CheckStatus::kWarn), BaselineVerdict::kNone);
  EXPECT_EQ(VerdictFor(baseline, "a.x", CheckStatus::kSkip), BaselineVerdict::kNone);
}

TEST(ApplyBaselineTest, SkipEntry) {
  Baseline baseline = Parsed("skip a.* not on this device");
  EXPECT_EQ(VerdictFor(baseline, "a.x", CheckStatus::kSkip), BaselineVerdict::kExpected);
  EXPECT_EQ(VerdictFor(baseline, "a.x", CheckStatus::kPass), BaselineVerdict::kNone);
  EXPECT_EQ(VerdictFor(baseline, "a.x", CheckStatus::kFail), BaselineVerdict::kNone);
  EXPECT_EQ(VerdictFor(baseline, "a.x", CheckStatus::kCrash), BaselineVerdict::kNone);
}

TEST(ApplyBaselineTest, NoMatchingEntry) {
  Baseline baseline = Parsed("fail other.* unrelated");
  for (const Baseline& empty_or_not : {Baseline(), baseline}) {
    EXPECT_EQ(VerdictFor(empty_or_not, "a.x", CheckStatus::kFail), BaselineVerdict::kRegression);
    EXPECT_EQ(VerdictFor(empty_or_not, "a.x", CheckStatus::kCrash), BaselineVerdict::kRegression);
    EXPECT_EQ(VerdictFor(empty_or_not, "a.x", CheckStatus::kTimeout), BaselineVerdict::kRegression);
    EXPECT_EQ(VerdictFor(empty_or_not, "a.x", CheckStatus::kPass), BaselineVerdict::kNone);
    EXPECT_EQ(VerdictFor(empty_or_not, "a.x", CheckStatus::kWarn), BaselineVerdict::kNone);
    EXPECT_EQ(VerdictFor(empty_or_not, "a.x", CheckStatus::kSkip), BaselineVerdict::kNone);
    EXPECT_EQ(VerdictFor(empty_or_not, "a.x", CheckStatus::kError), BaselineVerdict::kNone);
  }
}

TEST(ApplyBaselineTest, ExpiredEntryExcusesNothing) {
  Baseline baseline = Parsed(
      "fail f.* expires=2027-03-31 bug\n"
      "flake k.* expires=2027-03-31 flaky\n"
      "skip s.* expires=2027-03-31 absent\n");
  const year_month_day expiry = Date(2027, 3, 31);
  const year_month_day day_after = Date(2027, 4, 1);
  for (std::string id : {"f.x", "k.x", "s.x"}) {
    for (CheckStatus status : report::kAllStatuses) {
      EXPECT_EQ(VerdictFor(baseline, id, status, day_after), BaselineVerdict::kExpired)
          << id << " " << report::StatusName(status);
    }
    // On its expiry day an entry still applies.
    EXPECT_NE(VerdictFor(baseline, id, CheckStatus::kFail, expiry), BaselineVerdict::kExpired)
        << id;
  }
  EXPECT_EQ(VerdictFor(baseline, "f.x", CheckStatus::kFail, expiry), BaselineVerdict::kExpected);
  EXPECT_EQ(VerdictFor(baseline, "k.x", CheckStatus::kFail, expiry), BaselineVerdict::kExpected);
  EXPECT_EQ(VerdictFor(baseline, "s.x", CheckStatus::kSkip, expiry), BaselineVerdict::kExpected);
}

TEST(ApplyBaselineTest, FirstMatchingEntryDecides) {
  Baseline baseline = Parsed(
      "skip a.b first\n"
      "fail a.* second\n"
      "flake * third\n");
  EXPECT_EQ(VerdictFor(baseline, "a.b", CheckStatus::kFail), BaselineVerdict::kNone);  // skip
  EXPECT_EQ(VerdictFor(baseline, "a.c", CheckStatus::kPass), BaselineVerdict::kFixed);
  EXPECT_EQ(VerdictFor(baseline, "z", CheckStatus::kPass), BaselineVerdict::kNone);

  // An expired first entry is still the one that decides.
  Baseline expired_first = Parsed(
      "fail a.* expires=2020-01-01 old\n"
      "fail a.* current\n");
  EXPECT_EQ(VerdictFor(expired_first, "a.x", CheckStatus::kFail), BaselineVerdict::kExpired);
}

TEST(ApplyBaselineTest, GlobsMatchWholeIds) {
  Baseline baseline = Parsed(
      "fail memcpy.dto?.sizes one char\n"
      "fail *.zero any prefix\n"
      "fail events.record exact\n");
  EXPECT_EQ(VerdictFor(baseline, "memcpy.dtod.sizes", CheckStatus::kFail),
            BaselineVerdict::kExpected);
  EXPECT_EQ(VerdictFor(baseline, "memcpy.dtoh.sizes", CheckStatus::kFail),
            BaselineVerdict::kExpected);
  EXPECT_EQ(VerdictFor(baseline, "memcpy.htod.sizes", CheckStatus::kFail),
            BaselineVerdict::kRegression);
  EXPECT_EQ(VerdictFor(baseline, "memcpy.dtod.sizes.big", CheckStatus::kFail),
            BaselineVerdict::kRegression);
  EXPECT_EQ(VerdictFor(baseline, "memset.d8.zero", CheckStatus::kFail), BaselineVerdict::kExpected);
  EXPECT_EQ(VerdictFor(baseline, "events.record", CheckStatus::kFail), BaselineVerdict::kExpected);
  EXPECT_EQ(VerdictFor(baseline, "events.recorder", CheckStatus::kFail),
            BaselineVerdict::kRegression);
  EXPECT_EQ(VerdictFor(baseline, "events", CheckStatus::kFail), BaselineVerdict::kRegression);
}

TEST(ApplyBaselineTest, ReasonIsPrefixedByTheEntryLocation) {
  Baseline baseline = Parsed(kExample);
  std::vector<CheckResult> results = {
      Result("memcpy.dtod.sizes", CheckStatus::kFail), Result("events.wait", CheckStatus::kPass),
      Result("streams.create", CheckStatus::kPass), Result("streams.sync", CheckStatus::kFail)};
  results[2].baseline_reason = "stale";  // from an earlier application
  ApplyBaseline(baseline, kToday, results);
  EXPECT_EQ(results[0].baseline_reason, "baseline.txt:4: DMA engine drops odd tails (VENDOR-123)");
  EXPECT_EQ(results[1].baseline_reason, "baseline.txt:5: races under load");
  EXPECT_EQ(results[2].baseline_reason, "");
  EXPECT_EQ(results[3].baseline_reason, "");
  EXPECT_EQ(results[3].baseline, BaselineVerdict::kRegression);
}

TEST(FindSkipEntryTest, FindsAnUnexpiredSkip) {
  Baseline baseline = Parsed(kExample);
  const BaselineEntry* entry = FindSkipEntry(baseline, "timers.nanos", kToday);
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->location, "baseline.txt:6");
  EXPECT_EQ(FindSkipEntry(baseline, "events.wait", kToday), nullptr);  // a flake is run
  EXPECT_EQ(FindSkipEntry(baseline, "memcpy.dtod.sizes", kToday), nullptr);
  EXPECT_EQ(FindSkipEntry(baseline, "streams.create", kToday), nullptr);
  EXPECT_EQ(FindSkipEntry(Baseline(), "timers.nanos", kToday), nullptr);
}

TEST(FindSkipEntryTest, ExpiredSkipRunsTheCheck) {
  Baseline baseline = Parsed("skip timers.* expires=2027-03-31 no timers yet");
  EXPECT_NE(FindSkipEntry(baseline, "timers.nanos", Date(2027, 3, 31)), nullptr);
  EXPECT_EQ(FindSkipEntry(baseline, "timers.nanos", Date(2027, 4, 1)), nullptr);
}

TEST(FindSkipEntryTest, AgreesWithApplyBaseline) {
  // The first matching entry decides, so a skip shadowed by an earlier entry
  // does not skip the check, and a skip that does is judged `expected`.
  Baseline baseline = Parsed(
      "fail timers.elapsed timing is coarse\n"
      "skip timers.* no timers\n");
  EXPECT_EQ(FindSkipEntry(baseline, "timers.elapsed", kToday), nullptr);
  const BaselineEntry* entry = FindSkipEntry(baseline, "timers.nanos", kToday);
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->location, "baseline.txt:2");
  EXPECT_EQ(VerdictFor(baseline, "timers.nanos", CheckStatus::kSkip), BaselineVerdict::kExpected);
}

TEST(WriteBaselineTest, OneFailEntryPerFailingCheck) {
  std::vector<CheckResult> results = {
      Result("platform.name", CheckStatus::kPass),
      Result("memcpy.dtod.sizes", CheckStatus::kFail,
             "  odd tails are dropped # see VENDOR-1  \nsecond line"),
      Result("events.wait", CheckStatus::kCrash, "SIGSEGV in wait_for_event"),
      Result("memcpy.dtod.sizes", CheckStatus::kTimeout, "a later repetition"),
      Result("timers.nanos", CheckStatus::kTimeout),
      Result("streams.create", CheckStatus::kWarn, "slow"),
      Result("allocator.stats", CheckStatus::kSkip, "absent"),
      Result("host.io", CheckStatus::kError, "sectl's own problem"),
  };
  std::string text = WriteBaseline(results, kToday);

  auto baseline = ParseBaseline(text, "written.txt");
  ASSERT_TRUE(baseline.has_value()) << baseline.error().message() << "\n" << text;
  ASSERT_EQ(baseline->entries.size(), 3U) << text;
  for (const BaselineEntry& entry : baseline->entries) {
    EXPECT_EQ(entry.kind, BaselineKind::kFail);
    EXPECT_FALSE(entry.expires.has_value());
  }
  EXPECT_EQ(baseline->entries[0].pattern, "memcpy.dtod.sizes");
  EXPECT_EQ(baseline->entries[0].reason,
            "observed fail on 2026-11-21: odd tails are dropped  see VENDOR-1");
  EXPECT_EQ(baseline->entries[1].pattern, "events.wait");
  EXPECT_EQ(baseline->entries[1].reason, "observed crash on 2026-11-21: SIGSEGV in wait_for_event");
  EXPECT_EQ(baseline->entries[2].pattern, "timers.nanos");
  EXPECT_EQ(baseline->entries[2].reason, "observed timeout on 2026-11-21");

  // Applied to the run it came from, it excuses every failure.
  ApplyBaseline(*baseline, kToday, results);
  for (const CheckResult& result : results) {
    if (report::IsFailureStatus(result.status)) {
      EXPECT_EQ(result.baseline, BaselineVerdict::kExpected) << result.id;
    }
  }
}

TEST(WriteBaselineTest, StartsWithACommentedHeader) {
  std::string text = WriteBaseline({Result("a.b", CheckStatus::kFail, "x")}, kToday);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.front(), '#');
  EXPECT_NE(text.find("expires=YYYY-MM-DD"), std::string::npos) << text;
  EXPECT_NE(text.find("\nfail  a.b  observed fail on 2026-11-21: x\n"), std::string::npos) << text;
}

TEST(WriteBaselineTest, NoFailuresGivesAnEmptyBaseline) {
  std::string text = WriteBaseline({Result("a.b", CheckStatus::kPass)}, kToday);
  EXPECT_TRUE(Parsed(text).entries.empty()) << text;
  EXPECT_TRUE(Parsed(WriteBaseline({}, kToday)).entries.empty());
}

TEST(FormatDateTest, PadsToIsoForm) {
  EXPECT_EQ(FormatDate(Date(2027, 3, 31)), "2027-03-31");
  EXPECT_EQ(FormatDate(Date(999, 1, 5)), "0999-01-05");
}

TEST(TodayTest, IsTheUtcDate) {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  year_month_day expected = Date(utc.tm_year + 1900, static_cast<unsigned>(utc.tm_mon + 1),
                                 static_cast<unsigned>(utc.tm_mday));
  year_month_day today = Today();
  // Around midnight the two readings may straddle a day.
  EXPECT_TRUE(today == expected || std::chrono::sys_days(today) ==
                                       std::chrono::sys_days(expected) + std::chrono::days(1))
      << FormatDate(today) << " vs " << FormatDate(expected);
}

}  // namespace
}  // namespace sectl::conform
