// The HTML reports (--report html, --html FILE): escaping, the sections a
// conformance page and a bench page hold, the page's policy and script, and
// the command-line wiring of conform, report and bench. The page in a real
// browser is tests/html_browser_test.cc.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_html.h"
#include "bench_sample_reports.h"
#include "report/conform_html.h"
#include "report/html_page.h"
#include "sectl_process.h"

namespace sectl::report {
namespace {

using sectl::testing::CommandResult;
using sectl::testing::RunSectl;
using sectl::testing::TemporaryDirectory;

// What a plugin might put in a message, a name or its output to run script
// in whoever opens the report.
constexpr std::string_view kMarkup = "<script>alert('x')</script><img src=x onerror=alert(1)>";
constexpr std::string_view kEscapedMarkup =
    "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;";

bool Contains(std::string_view text, std::string_view fragment) {
  return text.find(fragment) != std::string_view::npos;
}

size_t CountOf(std::string_view text, std::string_view fragment) {
  size_t count = 0;
  for (size_t at = text.find(fragment); at != std::string_view::npos;
       at = text.find(fragment, at + 1)) {
    ++count;
  }
  return count;
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

CheckResult Result(std::string id, CheckStatus status, std::string message = "") {
  CheckResult result;
  result.area = id.substr(0, id.find('.'));
  result.title = "checks " + id;
  result.id = std::move(id);
  result.status = status;
  result.message = std::move(message);
  result.duration_s = 0.25;
  return result;
}

// A report with a result of each kind a reader must see the findings of:
// a failure carrying plugin markup everywhere, a crash with a backtrace and
// a long journal, a check it blocked, and a pass.
ConformReport SampleReport() {
  ConformReport report;
  report.tool.version = "0.3.0";
  report.plugin = {"/opt/vendor/lib" + std::string(kMarkup) + ".so", "3a4f5b6c7d8e9f00",
                   "SE_InitPlugin", "2.10"};
  report.host = {"Linux", "6.1.0", "x86_64", "Example CPU", 16, 1ULL << 36};
  report.command_line = {"sectl", "conform", "plugin.so"};
  report.started_at = "2026-11-21T08:00:00Z";
  report.profile = "tensorflow";
  report.tf_version = "latest";

  CheckResult failed = Result("registration.init", CheckStatus::kFail,
                              "platform name \"" + std::string(kMarkup) + "\" is refused");
  failed.title = std::string(kMarkup);
  failed.log = "init says " + std::string(kMarkup) + "\n\x1b[31mred\x1b[0m\n";
  failed.details = {{"platform_name", kMarkup}, {"expected", 4}};
  failed.culprits = {"SE_InitPlugin"};
  failed.severity_reason = "TensorFlow refuses such a name";
  failed.journal = {"#1 SE_InitPlugin(0x1) -> INVALID_ARGUMENT, 3 µs"};

  CheckResult crashed = Result("memcpy.htod", CheckStatus::kCrash,
                               "the process crashed with SIGSEGV in memcpy_htod (call #12)");
  for (int call = 1; call <= 11; ++call) {
    crashed.journal.push_back(
        fmt::format("#{} SP_StreamExecutor.allocate(0x1, 16) -> 0, 1 µs", call));
  }
  crashed.journal.emplace_back(
      "#12 SP_StreamExecutor.memcpy_htod(0x1, 0x2, 0x3, 16) -> never returned");
  crashed.details = {{"backtrace", {"frame0 sectl(+0x1f1b)", "frame1 lib" + std::string(kMarkup)}},
                     {"signal", "SIGSEGV"}};
  crashed.culprits = {"SP_StreamExecutor.memcpy_htod"};

  CheckResult blocked = Result("memory.allocate", CheckStatus::kBlocked, "blocked by memcpy_htod");
  blocked.culprits = {"SP_StreamExecutor.memcpy_htod"};
  blocked.blocked_by_checks = {"memcpy.htod"};

  report.results = {failed, crashed, blocked, Result("stream.create", CheckStatus::kPass)};
  report.summary = Summarize(report.results);
  report.root_causes = SummarizeRootCauses(report.results);
  return report;
}

std::optional<CheckExplanation> Explain(std::string_view id) {
  if (id != "stream.create") return std::nullopt;
  return CheckExplanation{.establishes = "a stream can be made <b>twice</b>",
                          .severity_reason = "TensorFlow makes streams",
                          .common_mistakes = "returning `nullptr` with OK",
                          .how_to_fix = "set the status"};
}

// The text between the page's <script> and </script>.
std::string ScriptOf(const std::string& page) {
  const size_t start = page.find("<script>");
  const size_t end = page.find("</script>");
  if (start == std::string::npos || end == std::string::npos) return "";
  return page.substr(start + 8, end - start - 8);
}

std::string Sha256Base64(const std::string& text) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  EVP_Digest(text.data(), text.size(), digest.data(), &length, EVP_sha256(), nullptr);
  std::array<unsigned char, 64> encoded{};
  const int written = EVP_EncodeBlock(encoded.data(), digest.data(), static_cast<int>(length));
  return {reinterpret_cast<const char*>(encoded.data()), static_cast<size_t>(written)};
}

TEST(HtmlEscapingTest, MarkupAndControlCharactersBecomeText) {
  EXPECT_EQ(EscapeHtml("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(EscapeHtml(kMarkup), kEscapedMarkup);
  // As in the terminal table: control characters written out, bad UTF-8 replaced.
  EXPECT_EQ(EscapeHtml("\x1b[31m"), "\\x1b[31m");
  EXPECT_EQ(EscapeHtml("\xff"), "\uFFFD");
  // Already-escaped text is escaped again, never decoded.
  EXPECT_EQ(EscapeHtml("&lt;"), "&amp;lt;");
}

TEST(HtmlEscapingTest, AttributeValuesCannotBreakOut) {
  HtmlWriter out;
  out.Element("a", kMarkup, {{"href", "\"><script>x</script>"}});
  EXPECT_EQ(out.Take(), "<a href=\"&quot;&gt;&lt;script&gt;x&lt;/script&gt;\">" +
                            std::string(kEscapedMarkup) + "</a>");
}

TEST(ConformHtmlTest, PluginMarkupStaysText) {
  const std::string page = RenderConformHtml(SampleReport(), Explain);
  EXPECT_FALSE(Contains(page, kMarkup));
  EXPECT_FALSE(Contains(page, "<img"));
  EXPECT_TRUE(Contains(page, kEscapedMarkup));
  // One script element, the page's own.
  EXPECT_EQ(CountOf(page, "<script"), 1u);
  EXPECT_FALSE(Contains(page, "\x1b"));
  EXPECT_TRUE(Contains(page, "\\x1b[31mred"));
}

TEST(ConformHtmlTest, NamesTheDeviceAndWhatThePluginIsJudgedAgainst) {
  ConformReport report = SampleReport();
  report.device = "ordinal 1";
  const std::string page = RenderConformHtml(report);
  EXPECT_TRUE(Contains(page, "<dt>Device</dt><dd class=\"\">ordinal 1</dd>")) << page;
  EXPECT_TRUE(Contains(page, "<dt>TensorFlow</dt><dd class=\"\">latest</dd>"));

  report.profile = "tvm-device-api";
  report.subject = "TVM DeviceAPI contract";
  const std::string tvm = RenderConformHtml(report);
  EXPECT_TRUE(Contains(tvm, "<dt>Contract</dt><dd class=\"\">TVM DeviceAPI contract</dd>")) << tvm;
  EXPECT_FALSE(Contains(tvm, "<dt>TensorFlow</dt>"));
}

TEST(ConformHtmlTest, HasTheVerdictCountsAndRootCauses) {
  const std::string page = RenderConformHtml(SampleReport(), Explain);
  EXPECT_TRUE(Contains(page, "<!DOCTYPE html>"));
  EXPECT_TRUE(Contains(page, "class=\"verdict bad\" id=\"verdict\">Not conformant"));
  EXPECT_TRUE(Contains(page, "2 required checks failed"));
  EXPECT_TRUE(Contains(page, "data-show-status=\"crash\""));
  EXPECT_TRUE(Contains(page, "<h2>Root causes</h2>"));
  EXPECT_TRUE(Contains(page, "<code>SP_StreamExecutor.memcpy_htod</code>"));
  EXPECT_TRUE(Contains(page, "href=\"#check-memory.allocate\""));
}

TEST(ConformHtmlTest, EveryCheckIsARowTheFiltersKnow) {
  const std::string page = RenderConformHtml(SampleReport(), Explain);
  EXPECT_TRUE(Contains(page, "id=\"filter-status\""));
  EXPECT_TRUE(Contains(page, "id=\"filter-area\""));
  for (const char* area : {"registration", "memcpy", "memory", "stream"}) {
    EXPECT_TRUE(Contains(page, fmt::format("<option value=\"{}\">", area))) << area;
  }
  const std::regex row("<tbody class=\"check\" id=\"check-[a-z.]+\" data-status=\"([a-z]+)\"");
  std::vector<std::string> statuses;
  for (auto it = std::sregex_iterator(page.begin(), page.end(), row); it != std::sregex_iterator();
       ++it) {
    statuses.push_back((*it)[1]);
  }
  EXPECT_EQ(statuses, (std::vector<std::string>{"fail", "crash", "blocked", "pass"}));
}

TEST(ConformHtmlTest, NonPassingChecksShowEveryFinding) {
  const std::string page = RenderConformHtml(SampleReport(), Explain);
  // The message, the blame and why it is required.
  EXPECT_TRUE(Contains(page, "platform name &quot;&lt;script&gt;"));
  EXPECT_TRUE(Contains(page, "Required because: </span>TensorFlow refuses such a name"));
  EXPECT_TRUE(Contains(page, "The defect is reported by: </span><a href=\"#check-memcpy.htod\""));
  // The details, pretty-printed, without the backtrace they carry.
  EXPECT_TRUE(Contains(page, "{\n  &quot;expected&quot;: 4,\n  &quot;platform_name&quot;"));
  EXPECT_FALSE(Contains(page, "&quot;backtrace&quot;"));
  EXPECT_TRUE(Contains(page, "<ol class=\"backtrace mono\"><li>frame0 sectl(+0x1f1b)</li>"));
  // Captured output.
  EXPECT_TRUE(Contains(page, "<pre class=\"log\">init says &lt;script&gt;"));
  // The journal as a timeline: the last 8 calls, the call that never
  // returned marked, the earlier ones folded away.
  EXPECT_TRUE(Contains(page, "<summary>4 earlier calls</summary>"));
  EXPECT_TRUE(Contains(page,
                       "<li class=\"died\"><span class=\"seq mono\">#12</span>"
                       "<code>SP_StreamExecutor.memcpy_htod(0x1, 0x2, 0x3, 16)</code>"
                       "<span class=\"outcome\">→ never returned</span></li>"));
  EXPECT_TRUE(Contains(page, "<li class=\"failed\"><span class=\"seq mono\">#1</span>"));
}

// The text of the <tbody> of check `id`.
std::string RowOf(const std::string& page, const std::string& id) {
  const size_t start = page.find("<tbody class=\"check\" id=\"check-" + id + "\"");
  if (start == std::string::npos) return "";
  return page.substr(start, page.find("</tbody>", start) - start);
}

// A blocked row points at its root cause in one line, without the call
// timeline, backtrace or output; the check that failed on the cause keeps
// them, and where only blocked checks speak of a cause its row in the root
// causes tells the first one's story, once.
TEST(ConformHtmlTest, ABlockedRowPointsAtItsRootCauseWhichTellsTheStoryOnce) {
  ConformReport report = SampleReport();
  CheckResult& blocked = report.results[2];
  blocked.journal = {"#3 SP_StreamExecutor.memcpy_htod(0x1) -> never returned"};
  blocked.details = {{"backtrace", {"frame0 blocked_only"}}};
  blocked.log = "blocked check's output";
  report.root_causes = SummarizeRootCauses(report.results);
  std::string page = RenderConformHtml(report, Explain);
  const std::string row = RowOf(page, "memory.allocate");
  ASSERT_FALSE(row.empty()) << page;
  EXPECT_TRUE(Contains(row,
                       "Blocked by <code>SP_StreamExecutor.memcpy_htod</code>: see <a "
                       "href=\"#cause-SP_StreamExecutor.memcpy_htod\">Root causes</a>"))
      << row;
  EXPECT_FALSE(Contains(row, "timeline")) << row;
  EXPECT_FALSE(Contains(row, "backtrace")) << row;
  EXPECT_FALSE(Contains(row, "blocked check&#39;s output")) << row;
  EXPECT_FALSE(Contains(page, "frame0 blocked_only")) << page;
  // The crash that blocked it keeps its own.
  EXPECT_TRUE(Contains(RowOf(page, "memcpy.htod"), "frame0 sectl(+0x1f1b)"));
  EXPECT_TRUE(Contains(page, "<tr id=\"cause-SP_StreamExecutor.memcpy_htod\">"));

  // Without the crashed check, the root cause's row has the story, once.
  report.results.erase(report.results.begin() + 1);
  report.summary = Summarize(report.results);
  report.root_causes = SummarizeRootCauses(report.results);
  page = RenderConformHtml(report, Explain);
  EXPECT_EQ(CountOf(page, "frame0 blocked_only"), 1u) << page;
  EXPECT_EQ(CountOf(page, "blocked check&#39;s output"), 1u) << page;
  const size_t cause = page.find("<tr id=\"cause-SP_StreamExecutor.memcpy_htod\">");
  ASSERT_NE(cause, std::string::npos) << page;
  EXPECT_LT(cause, page.find("frame0 blocked_only"));
  EXPECT_LT(page.find("frame0 blocked_only"), page.find("id=\"checks\""));
}

TEST(ConformHtmlTest, AboutThisCheckComesFromTheCatalogue) {
  const std::string page = RenderConformHtml(SampleReport(), Explain);
  EXPECT_TRUE(Contains(page, "<summary>about this check</summary>"));
  EXPECT_TRUE(Contains(page, "<dd>a stream can be made &lt;b&gt;twice&lt;/b&gt;</dd>"));
  EXPECT_TRUE(Contains(page, "<dt>How to fix it</dt><dd>set the status</dd>"));
  EXPECT_TRUE(Contains(page, "<dd>returning <code>nullptr</code> with OK</dd>"));
  // Without a catalogue, a result still explains its severity.
  const std::string bare = RenderConformHtml(SampleReport());
  EXPECT_TRUE(Contains(bare, "<dt>Why it matters</dt><dd>TensorFlow refuses such a name</dd>"));
  EXPECT_FALSE(Contains(bare, "How to fix it"));
}

TEST(ConformHtmlTest, SelfContainedAndOnlyItsOwnScriptMayRun) {
  const std::string page = RenderConformHtml(SampleReport(), Explain);
  EXPECT_FALSE(Contains(page, "http://"));
  EXPECT_FALSE(Contains(page, "https://"));
  EXPECT_FALSE(Contains(page, "<link"));
  EXPECT_FALSE(Contains(page, "<iframe"));
  const std::string script = ScriptOf(page);
  ASSERT_FALSE(script.empty());
  EXPECT_TRUE(Contains(page,
                       "content=\"default-src &#39;none&#39;; style-src &#39;unsafe-inline&#39;; "
                       "img-src data:; script-src &#39;sha256-" +
                           Sha256Base64(script) + "&#39;\""));
}

TEST(ConformHtmlTest, VerdictsOtherThanFailure) {
  ConformReport passing = SampleReport();
  passing.results = {Result("stream.create", CheckStatus::kPass)};
  passing.root_causes.clear();
  EXPECT_TRUE(
      Contains(RenderConformHtml(passing), "class=\"verdict good\" id=\"verdict\">Conformant"));
  ConformReport unloadable = passing;
  unloadable.load_error = "dlopen: " + std::string(kMarkup);
  const std::string page = RenderConformHtml(unloadable);
  EXPECT_TRUE(Contains(page, "the plugin did not load"));
  EXPECT_TRUE(Contains(page, "dlopen: " + std::string(kEscapedMarkup)));
  ConformReport interrupted = passing;
  interrupted.interrupted = "SIGINT";
  EXPECT_TRUE(Contains(RenderConformHtml(interrupted), ">Incomplete<"));
}

TEST(BenchHtmlTest, MemcpyPageEmbedsThePlotAndTheTable) {
  bench::BenchReport report = bench::testing::SampleMemcpyReport();
  report.platform_name = std::string(kMarkup);
  const std::string page = bench::RenderBenchHtml(report);
  EXPECT_TRUE(Contains(page, "<div class=\"plot\">\n<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_FALSE(Contains(page, "<?xml"));
  EXPECT_TRUE(Contains(page, "class=\"verdict bad\" id=\"verdict\">Verification failed"));
  EXPECT_TRUE(Contains(page, "<th colspan=\"8\">h2d pinned async</th>"));
  EXPECT_TRUE(Contains(page, "byte 17 is 0x00, expected 0x5a"));
  EXPECT_TRUE(Contains(page, ">unstable</span>"));
  EXPECT_TRUE(Contains(page, "the plugin has no sync_memcpy_dtoh\\x07"));
  // Plugin text, in the plot and the page, stays text; no script at all.
  EXPECT_FALSE(Contains(page, kMarkup));
  EXPECT_FALSE(Contains(page, "<script"));
  EXPECT_FALSE(Contains(page, "<&>"));
  EXPECT_TRUE(Contains(page, "default-src &#39;none&#39;"));
}

// Issue 29: a green "Every copy verified" over mostly unstable rows told a
// reader the numbers could be trusted. Verified bytes get the green banner
// only when most medians settled.
TEST(BenchHtmlTest, MostlyUnstableResultsGetNoGreenBanner) {
  bench::BenchReport report = bench::testing::SampleMemcpyReport();
  std::erase_if(report.results, [](const bench::BandwidthResult& result) {
    return !bench::HasNumbers(result) || result.verification.failed() ||
           result.verification.status != bench::VerificationStatus::kPassed;
  });
  ASSERT_GE(report.results.size(), 2U);
  for (auto& result : report.results) result.stable = true;
  EXPECT_TRUE(Contains(bench::RenderBenchHtml(report),
                       "class=\"verdict good\" id=\"verdict\">Every copy verified"));
  for (auto& result : report.results) result.stable = false;
  const std::string page = bench::RenderBenchHtml(report);
  EXPECT_TRUE(
      Contains(page, "class=\"verdict unsure\" id=\"verdict\">Verified, but mostly unstable"))
      << page.substr(0, 3000);
  EXPECT_TRUE(Contains(page, "had not settled")) << page.substr(0, 3000);
}

TEST(BenchHtmlTest, AComparisonHeadsThePageWithRegressionsFirst) {
  const bench::BenchReport report = bench::testing::SampleMemcpyReport();
  bench::Comparison comparison;
  comparison.kind = "memcpy";
  comparison.tolerance = 0.10;
  comparison.old_label = "sectl 0.1.0, " + std::string(kMarkup);
  comparison.confirmation_runs = 2;
  bench::ComparisonRow within;
  within.series = bench::SeriesKeyOf(report.results[0]);
  within.bytes = report.results[0].bytes;
  within.old_median = 10;
  within.new_median = 9.8;
  within.change = -0.02;
  bench::ComparisonRow regressed = within;
  regressed.bytes = report.results[3].bytes;
  regressed.new_median = std::nullopt;
  regressed.change = std::nullopt;
  regressed.verdict = bench::ChangeVerdict::kRegression;
  regressed.note = "no longer measured: " + std::string(kMarkup);
  comparison.rows = {within, regressed};
  bench::RecountVerdicts(comparison);

  const std::string page = bench::RenderBenchHtml(report, &comparison);
  EXPECT_TRUE(Contains(page, "id=\"comparison\">Gate failed: 1 regression"));
  EXPECT_TRUE(Contains(page, "measured again in 2 fresh runs"));
  // The regression comes first, flagged, whatever its place in the run.
  const auto regression_row = page.find("<tr class=\"flagged\"><td>h2d pinned async 1 MiB</td>");
  const auto within_row = page.find("<td>h2d pinned async 4 KiB</td>");
  ASSERT_NE(regression_row, std::string::npos) << page;
  ASSERT_NE(within_row, std::string::npos);
  EXPECT_LT(regression_row, within_row);
  EXPECT_TRUE(Contains(page, ">regression</span>"));
  EXPECT_TRUE(Contains(page, "no longer measured: " + std::string(kEscapedMarkup)));
  EXPECT_FALSE(Contains(page, kMarkup));

  comparison.rows = {within};
  bench::RecountVerdicts(comparison);
  EXPECT_TRUE(Contains(bench::RenderBenchHtml(report, &comparison),
                       "class=\"verdict good\" id=\"comparison\">Gate passed"));
  EXPECT_FALSE(Contains(bench::RenderBenchHtml(report), "id=\"comparison\""));
}

TEST(BenchHtmlTest, LatencyPageListsOperations) {
  const std::string page = bench::RenderBenchHtml(bench::testing::SampleLatencyReport());
  EXPECT_TRUE(Contains(page, "<h1>sectl bench latency</h1>"));
  EXPECT_TRUE(Contains(page, "1 of 3 operations not measured"));
  EXPECT_TRUE(Contains(page, "<td class=\"mono\">host_callback_round_trip</td>"));
  EXPECT_TRUE(Contains(page, "not measured: the plugin has no record_event"));
  EXPECT_FALSE(Contains(page, "<svg"));
}

// ---------------------------------------------------------------------------
// The command line

std::string HostilePlugin() {
  return std::string(SECTL_HOSTILE_PLUGIN_DIR) + "/hostile_input_markup.so";
}

class HtmlCommandTest : public ::testing::Test {
 protected:
  std::string PathOf(const std::string& name) const { return (directory_.path() / name).string(); }

 private:
  TemporaryDirectory directory_{"sectl-html-"};
};

TEST_F(HtmlCommandTest, ConformWritesHtmlBesideJsonAndKeepsMarkupText) {
  const std::string json_path = PathOf("report.json");
  const std::string html_path = PathOf("report.html");
  const CommandResult run = RunSectl({"conform", HostilePlugin(), "--no-throughput", "--report",
                                      "json", "-o", json_path, "--html", html_path});
  ASSERT_EQ(run.exit_code, 1) << run.err;
  const auto report = nlohmann::json::parse(ReadFile(json_path));
  EXPECT_EQ(report["kind"], "sectl.conform");
  const std::string page = ReadFile(html_path);
  EXPECT_TRUE(Contains(page,
                       "<tbody class=\"check\" id=\"check-registration.init\" "
                       "data-status=\"fail\""));
  // The hostile plugin's name, status message and output, all as text.
  EXPECT_FALSE(Contains(page, "<script>document.title"));
  EXPECT_FALSE(Contains(page, "<img"));
  EXPECT_FALSE(Contains(page, "<b>bold"));
  EXPECT_TRUE(Contains(page, "SECTL_&lt;script&gt;document.title=&#39;owned&#39;&lt;/script&gt;"));
  EXPECT_TRUE(Contains(page, "synchronize_all_activity failed: &lt;script&gt;"));
  EXPECT_TRUE(Contains(page, "&amp;lt;"));
  EXPECT_EQ(CountOf(page, "<script"), 1u);
  // The catalogue's explanation comes with the checks.
  EXPECT_TRUE(Contains(page, "<summary>about this check</summary>"));

  // sectl report renders the saved JSON to the same page, on stdout or beside.
  const CommandResult stdout_page = RunSectl({"report", json_path, "--report", "html"});
  EXPECT_EQ(stdout_page.exit_code, 1) << stdout_page.err;
  EXPECT_TRUE(stdout_page.out.starts_with("<!DOCTYPE html>"));
  EXPECT_TRUE(Contains(stdout_page.out, "id=\"check-stream.synchronize_all_activity\""));
  const std::string merged_html = PathOf("merged.html");
  const CommandResult beside = RunSectl({"report", json_path, "--html", merged_html});
  EXPECT_EQ(beside.exit_code, 1) << beside.err;
  EXPECT_TRUE(Contains(beside.out, "registration.init"));  // the table, on stdout
  EXPECT_TRUE(Contains(ReadFile(merged_html), "id=\"check-registration.init\""));
}

TEST_F(HtmlCommandTest, ConformReportHtmlGoesToStdout) {
  const CommandResult run =
      RunSectl({"conform", "--no-throughput", "--filter", "registration.*", "--report", "html"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(run.out.starts_with("<!DOCTYPE html>"));
  EXPECT_TRUE(Contains(run.out, ">Conformant<"));
  // --format is the same as --report, except for a list.
  const CommandResult list = RunSectl({"conform", "--list", "--format", "html"});
  EXPECT_EQ(list.exit_code, 2);
  EXPECT_TRUE(Contains(list.err, "a list is table or json")) << list.err;
}

// An --html file that cannot be written is a usage error found before any
// check runs or any report is written.
TEST_F(HtmlCommandTest, AnUnwritableHtmlPathIsAUsageErrorBeforeRunning) {
  const std::string missing_directory = PathOf("no-such-directory/report.html");
  const std::string json_path = PathOf("report.json");
  const std::vector<std::vector<std::string>> commands = {
      {"conform", "--no-throughput", "-o", json_path, "--report", "json", "--html",
       missing_directory},
      {"conform", "--no-throughput", "-o", json_path, "--html", PathOf("")},
      {"bench", "memcpy", "--sizes", "4KiB", "--budget", "0.01", "--no-progress", "-o", json_path,
       "--html", missing_directory},
      {"bench", "latency", "--budget", "0.01", "--no-progress", "-o", json_path, "--html",
       missing_directory},
  };
  for (const auto& command : commands) {
    const CommandResult run = RunSectl(command);
    EXPECT_EQ(run.exit_code, 2) << command[0] << " " << command.back() << ": " << run.err;
    EXPECT_TRUE(run.err.starts_with("sectl: error: --html ")) << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
    EXPECT_TRUE(run.out.empty()) << run.out;
    EXPECT_FALSE(std::filesystem::exists(json_path)) << command[0];
  }
  const CommandResult saved = RunSectl({"conform", "--no-throughput", "--filter", "registration.*",
                                        "--report", "json", "-o", json_path});
  ASSERT_EQ(saved.exit_code, 0) << saved.err;
  const CommandResult report = RunSectl({"report", json_path, "--html", missing_directory});
  EXPECT_EQ(report.exit_code, 2);
  EXPECT_TRUE(report.out.empty()) << report.out;
}

TEST_F(HtmlCommandTest, BenchWritesHtmlWithThePlotBesideJson) {
  const std::string json_path = PathOf("bench.json");
  const std::string html_path = PathOf("bench.html");
  const CommandResult run =
      RunSectl({"bench", "memcpy", "--sizes", "4KiB,64KiB", "--budget", "0.01", "--no-progress",
                "--report", "json", "-o", json_path, "--html", html_path});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(nlohmann::json::parse(ReadFile(json_path))["kind"], "sectl.bench.memcpy");
  const std::string page = ReadFile(html_path);
  EXPECT_TRUE(Contains(page, "<h1>sectl bench memcpy</h1>"));
  EXPECT_TRUE(Contains(page, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_TRUE(Contains(page, "<th colspan=\"8\">h2d pinned async</th>"));
  EXPECT_TRUE(Contains(page, ">64 KiB</td>"));

  const CommandResult latency =
      RunSectl({"bench", "latency", "--budget", "0.01", "--no-progress", "--report", "html"});
  ASSERT_EQ(latency.exit_code, 0) << latency.err;
  EXPECT_TRUE(latency.out.starts_with("<!DOCTYPE html>"));
  EXPECT_TRUE(Contains(latency.out, "enqueue_tiny_copy"));

  // With --compare, the page carries the gate (here against the run just
  // saved, with a tolerance nothing exceeds).
  const CommandResult compared =
      RunSectl({"bench", "memcpy", "--sizes", "4KiB,64KiB", "--budget", "0.01", "--no-progress",
                "--compare", json_path, "--tolerance", "99%", "--html", html_path});
  ASSERT_EQ(compared.exit_code, 0) << compared.out << compared.err;
  const std::string gate_page = ReadFile(html_path);
  EXPECT_TRUE(Contains(gate_page, "id=\"comparison\">Gate passed")) << gate_page;
  EXPECT_TRUE(Contains(gate_page, "<td>d2d async 64 KiB</td>"));
}

}  // namespace
}  // namespace sectl::report
