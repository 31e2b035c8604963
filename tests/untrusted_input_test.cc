// Text sectl does not control, in and out: plugin bytes that are not UTF-8
// are written, never thrown about; reports handed back to sectl are parsed
// with a bound on their nesting, never with a recursion the input controls.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "base/json_reading.h"
#include "base/json_text.h"
#include "bench/bench_json.h"
#include "isolation/child_error.h"
#include "probe/probe_json.h"
#include "report/conform_json.h"

namespace sectl {
namespace {

std::string Nested(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST(EncodeJson, ReplacesInvalidUtf8InsteadOfThrowing) {
  const nlohmann::json document = {{"name", "plugin \xff\xfe name"}, {"fine", "caf\xc3\xa9"}};
  // nlohmann's default refuses these bytes; the helper is the one to use.
  EXPECT_THROW((void)document.dump(), nlohmann::json::type_error);
  std::string text;
  ASSERT_NO_THROW(text = EncodeJson(document));
  EXPECT_NE(text.find("plugin \xef\xbf\xbd\xef\xbf\xbd name"), std::string::npos) << text;
  EXPECT_NE(text.find("caf\xc3\xa9"), std::string::npos) << text;
  EXPECT_EQ(text.find('\n'), std::string::npos);

  const nlohmann::ordered_json ordered = {{"log", "\xc3"}};
  ASSERT_NO_THROW(text = EncodeJson(ordered, 2));
  EXPECT_NE(text.find("\n  \"log\": \"\xef\xbf\xbd\""), std::string::npos) << text;
}

TEST(EncodeJson, AConformReportWithInvalidUtf8IsWritten) {
  report::ConformReport conform;
  conform.plugin.path = "/opt/\xff\xfe.so";
  const std::string text = report::ConformReportToJson(conform);
  EXPECT_NE(text.find("/opt/\xef\xbf\xbd\xef\xbf\xbd.so"), std::string::npos);
}

TEST(ParseUntrustedJson, RefusesDeepNestingBeforeBuildingIt) {
  for (size_t depth : {size_t{65}, size_t{100000}}) {
    const auto parsed = ParseUntrustedJson(Nested(depth));
    ASSERT_FALSE(parsed.has_value()) << depth;
    EXPECT_EQ(parsed.error().message(), "nested deeper than 64 levels (at byte 65)");
  }
  const auto deepest = ParseUntrustedJson(Nested(64));
  ASSERT_TRUE(deepest.has_value()) << deepest.error().message();
  EXPECT_TRUE(deepest->is_array());
}

TEST(ParseUntrustedJson, BracketsInStringsAreNotNesting) {
  const std::string brackets(1000, '[');
  const auto parsed = ParseUntrustedJson(R"({"a": ")" + brackets + R"(\"[", "b": [1]})");
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message();
  EXPECT_EQ(parsed->at("a").get<std::string>().size(), 1002U);
}

TEST(ParseUntrustedJson, SaysWhereTextIsNotJson) {
  const auto parsed = ParseUntrustedJson("{\n  \"a\": nope }");
  ASSERT_FALSE(parsed.has_value());
  EXPECT_EQ(parsed.error().message().find("[json.exception"), std::string::npos);
  EXPECT_NE(parsed.error().message().find("line 2"), std::string::npos) << parsed.error().message();
}

// `sectl report` overflowed its stack on deeply nested check details.
TEST(ParseUntrustedJson, EveryReportReaderBoundsTheDepth) {
  const std::string deep_details =
      R"({"kind": "sectl.conform", "results": [{"details": )" + Nested(100000) + "}]}";
  const auto conform = report::ConformReportFromJson(deep_details);
  ASSERT_FALSE(conform.has_value());
  EXPECT_TRUE(conform.error().message().starts_with(
      "not a sectl conform report: not JSON: nested deeper than 64 levels (at byte "))
      << conform.error().message();

  const auto bench = bench::ParseBenchReport(Nested(100000));
  ASSERT_FALSE(bench.has_value());
  EXPECT_NE(bench.error().message().find("nested deeper than 64 levels"), std::string::npos)
      << bench.error().message();

  // What a child process sends comes from the plugin's process as well.
  const auto probe = probe::ProbeReportFromJson(Nested(100000));
  ASSERT_FALSE(probe.has_value());
  EXPECT_NE(probe.error().message().find("nested deeper than 64 levels"), std::string::npos)
      << probe.error().message();
  const Error child = isolation::DecodeChildError(
      R"({"code": 1, "message": "m", "x": )" + Nested(100000) + "}", "the check's process");
  EXPECT_EQ(child.code(), ErrorCode::kInternal);
  EXPECT_EQ(child.message(), "the check's process sent an unreadable error");
}

// An error code is one sectl has, whatever number arrives.
TEST(ChildError, OnlyKnownCodesAreBelieved) {
  const Error sent(ErrorCode::kTimeout, "too slow \xff");
  const Error received = isolation::DecodeChildError(isolation::EncodeChildError(sent), "child");
  EXPECT_EQ(received.code(), ErrorCode::kTimeout);
  EXPECT_EQ(received.message(), "too slow \xef\xbf\xbd");  // invalid UTF-8 replaced
  for (const char* code : {"-1", "10", "999", "2147483647"}) {
    const Error forged = isolation::DecodeChildError(
        std::string(R"({"code": )") + code + R"(, "message": "m"})", "child");
    EXPECT_EQ(forged.code(), ErrorCode::kInternal) << code;
  }
}

TEST(JsonReader, NamesTheFirstProblemByItsPath) {
  const auto document =
      nlohmann::json::parse(R"({"results": [{"median_s": 1}, {"median_s": "slow"}], "count": -1})");
  std::optional<std::string> error;
  JsonReader in(document, "", error);
  double median = 0;
  for (JsonReader result : in.ObjectList("results")) result.Number("median_s", median);
  int count = 0;
  in.Count("count", count);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(*error, "results[1].median_s: expected a number, found string");
  EXPECT_EQ(median, 1.0);
  EXPECT_EQ(count, 0);  // reads after the first problem do nothing
}

TEST(JsonReader, CountsMustFit) {
  const auto document = nlohmann::json::parse(R"({"small": 300, "negative": -1})");
  std::optional<std::string> error;
  JsonReader in(document, "top", error);
  uint8_t small = 0;
  in.Count("small", small);
  EXPECT_EQ(error.value_or(""), "top.small: 300 is too large");
  std::optional<std::string> second;
  JsonReader again(document, "", second);
  unsigned negative = 0;
  again.Count("negative", negative);
  EXPECT_EQ(second.value_or(""), "negative: expected a non-negative integer, found number -1");
}

// Every string read from a report is kept to kMaxReadStringBytes, with a
// note, however deep in an object it is.
TEST(JsonReader, CutsLongStringsWithANote) {
  const std::string huge(kMaxReadStringBytes + 10, 'x');
  const nlohmann::json document = {{"message", huge},
                                   {"notes", {huge}},
                                   {"maybe", huge},
                                   {"details", {{"deep", {{"deeper", huge}}}}}};
  std::optional<std::string> error;
  JsonReader in(document, "", error);
  std::string message;
  std::vector<std::string> notes;
  std::optional<std::string> maybe;
  nlohmann::json details;
  in.String("message", message);
  in.StringList("notes", notes);
  in.NullableString("maybe", maybe);
  in.AnyObject("details", details);
  ASSERT_FALSE(error.has_value()) << *error;
  const std::string note = fmt::format("... ({} bytes in all; cut at", huge.size());
  for (const std::string& text :
       {message, notes.at(0), maybe.value_or(""), details["deep"]["deeper"].get<std::string>()}) {
    EXPECT_LT(text.size(), kMaxReadStringBytes + 100);
    EXPECT_NE(text.find(note), std::string::npos) << text.substr(text.size() - 80);
  }
}

}  // namespace
}  // namespace sectl
