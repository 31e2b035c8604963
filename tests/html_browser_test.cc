// The HTML reports in a real browser: Debian's chromium, headless. A
// conformance page of a plugin that puts markup in everything it says must
// render without a console error, keep that markup as text, and filter by
// the state in its location hash; a bench page must render with its plot;
// a screenshot must come out. Skipped, saying so, only where chromium is
// not installed (the README's Quick start installs it).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_html.h"
#include "bench_sample_reports.h"
#include "sectl_process.h"

namespace sectl::report {
namespace {

using sectl::testing::CommandResult;
using sectl::testing::RunOptions;
using sectl::testing::RunSectl;
using sectl::testing::TemporaryDirectory;

// Chromium starts in a second or two; a page that hangs it fails the test
// rather than the suite.
constexpr std::chrono::seconds kBrowserDeadline{60};

bool Contains(std::string_view text, std::string_view fragment) {
  return text.find(fragment) != std::string_view::npos;
}

// $SECTL_CHROMIUM, or chromium on PATH.
std::optional<std::string> FindChromium() {
  if (const char* chosen = std::getenv("SECTL_CHROMIUM"); chosen != nullptr && *chosen != '\0') {
    return std::string(chosen);
  }
  const char* path = std::getenv("PATH");
  std::stringstream directories(path == nullptr ? "" : path);
  for (std::string directory; std::getline(directories, directory, ':');) {
    const std::filesystem::path candidate = std::filesystem::path(directory) / "chromium";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return std::nullopt;
}

// The console lines chromium logs for the page (--enable-logging=stderr):
// "[...:INFO:CONSOLE:12] "Uncaught TypeError: ...", source: file:///...".
// The page writes nothing to the console, so every such line is an error,
// as is a script the Content-Security-Policy refused.
std::vector<std::string> ConsoleLines(const std::string& stderr_text) {
  std::vector<std::string> lines;
  std::stringstream stream(stderr_text);
  for (std::string line; std::getline(stream, line);) {
    if (Contains(line, ":CONSOLE") || Contains(line, "Uncaught") ||
        Contains(line, "Content Security Policy")) {
      lines.push_back(line);
    }
  }
  return lines;
}

// Each check's <tbody> in a dumped DOM: its status, area and whether the
// page's script hid it.
struct Row {
  std::string status;
  std::string area;
  bool hidden = false;
};

std::vector<Row> RowsOf(const std::string& dom) {
  std::vector<Row> rows;
  const std::regex tag("<tbody class=\"check\"[^>]*>");
  const std::regex status("data-status=\"([a-z]+)\"");
  const std::regex area("data-area=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), tag); it != std::sregex_iterator();
       ++it) {
    const std::string element = it->str();
    std::smatch found;
    Row row;
    if (std::regex_search(element, found, status)) row.status = found[1];
    if (std::regex_search(element, found, area)) row.area = found[1];
    row.hidden = Contains(element, " hidden");
    rows.push_back(row);
  }
  return rows;
}

class HtmlBrowserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = FindChromium();
    if (!chromium_) {
      GTEST_SKIP() << "chromium is not installed (apt-get install chromium); the HTML reports "
                      "were not tried in a browser";
    }
    ASSERT_FALSE(directory_.path().empty());
  }

  std::string PathOf(const std::string& name) const { return (directory_.path() / name).string(); }

  // Runs headless chromium on `url` with `mode` (--dump-dom, --screenshot=...),
  // a fresh profile, and nothing that phones home or asks questions.
  CommandResult Browse(const std::string& url, const std::vector<std::string>& mode) {
    std::vector<std::string> argv = {*chromium_,
                                     "--headless",
                                     "--no-sandbox",
                                     "--disable-gpu",
                                     "--enable-logging=stderr",
                                     "--v=0",
                                     "--user-data-dir=" + PathOf("profile"),
                                     "--no-first-run",
                                     "--no-default-browser-check",
                                     "--disable-breakpad",
                                     "--disable-crash-reporter",
                                     "--disable-extensions",
                                     "--disable-component-update",
                                     "--disable-background-networking",
                                     "--hide-scrollbars"};
    argv.insert(argv.end(), mode.begin(), mode.end());
    argv.push_back(url);
    RunOptions options;
    options.deadline = kBrowserDeadline;
    options.own_process_group = true;
    options.added_environment = {"HOME=" + PathOf("home"), "XDG_CONFIG_HOME=" + PathOf("home"),
                                 "XDG_CACHE_HOME=" + PathOf("home")};
    return sectl::testing::Run(argv, options);
  }

  std::string FileUrl(const std::string& path) const { return "file://" + path; }

  // A conformance page of the markup plugin: two failures, its name,
  // message and output all markup that tries to set the page's title.
  std::string HostileConformPage() {
    std::string page = PathOf("hostile.html");
    const CommandResult run =
        RunSectl({"conform", std::string(SECTL_HOSTILE_PLUGIN_DIR) + "/hostile_input_markup.so",
                  "--no-throughput", "--html", page, "-o", PathOf("hostile.txt")});
    EXPECT_EQ(run.exit_code, 1) << run.err;
    return page;
  }

 private:
  std::optional<std::string> chromium_;
  TemporaryDirectory directory_{"sectl-browser-"};
};

TEST_F(HtmlBrowserTest, FilterFromTheHashShowsOnlyFailingChecks) {
  const std::string page = HostileConformPage();
  const CommandResult browsed = Browse(FileUrl(page) + "#status=fail", {"--dump-dom"});
  ASSERT_EQ(browsed.exit_code, 0) << browsed.err;
  ASSERT_FALSE(browsed.timed_out);
  EXPECT_EQ(ConsoleLines(browsed.err), std::vector<std::string>{}) << browsed.err;

  const std::vector<Row> rows = RowsOf(browsed.out);
  ASSERT_GT(rows.size(), 20u) << browsed.out;
  int failing = 0;
  for (const Row& row : rows) {
    EXPECT_EQ(row.hidden, row.status != "fail") << row.status << " " << row.area;
    failing += row.status == "fail" ? 1 : 0;
  }
  EXPECT_EQ(failing, 2);
  // The script ran: the filter bar shows, with the count it made.
  EXPECT_FALSE(Contains(browsed.out, "id=\"filters\" hidden")) << browsed.out;
  EXPECT_TRUE(Contains(browsed.out, fmt::format("2 of {} shown", rows.size())));
  // None of the plugin's markup ran: the title is still sectl's.
  EXPECT_TRUE(Contains(browsed.out, "<title>sectl conform: ")) << browsed.out;
  EXPECT_FALSE(Contains(browsed.out, "<title>owned")) << browsed.out;
  EXPECT_FALSE(Contains(browsed.out, "<img")) << browsed.out;
}

TEST_F(HtmlBrowserTest, StatusAndAreaFiltersCombine) {
  const std::string page = HostileConformPage();
  const CommandResult browsed =
      Browse(FileUrl(page) + "#status=not-pass&area=stream", {"--dump-dom"});
  ASSERT_EQ(browsed.exit_code, 0) << browsed.err;
  EXPECT_EQ(ConsoleLines(browsed.err), std::vector<std::string>{}) << browsed.err;
  int visible = 0;
  for (const Row& row : RowsOf(browsed.out)) {
    EXPECT_EQ(row.hidden, row.status == "pass" || row.area != "stream")
        << row.status << " " << row.area;
    visible += row.hidden ? 0 : 1;
  }
  EXPECT_GE(visible, 1);
}

TEST_F(HtmlBrowserTest, BenchPageRendersWithItsPlot) {
  const std::string page = PathOf("bench.html");
  std::ofstream(page) << bench::RenderBenchHtml(bench::testing::SampleMemcpyReport());
  const CommandResult browsed = Browse(FileUrl(page), {"--dump-dom"});
  ASSERT_EQ(browsed.exit_code, 0) << browsed.err;
  EXPECT_EQ(ConsoleLines(browsed.err), std::vector<std::string>{}) << browsed.err;
  // The plot is parsed as SVG inside the page, its lines and all.
  EXPECT_TRUE(Contains(browsed.out, "<svg xmlns=\"http://www.w3.org/2000/svg\"")) << browsed.out;
  EXPECT_TRUE(Contains(browsed.out, "<polyline")) << browsed.out;
}

TEST_F(HtmlBrowserTest, ScreenshotIsAPicture) {
  const std::string page = PathOf("crash.html");
  const CommandResult run =
      RunSectl({"conform", std::string(SECTL_FAULTY_PLUGIN_DIR) + "/faulty_root_sync_htod_crash.so",
                "--no-throughput", "--html", page, "-o", PathOf("crash.txt")});
  ASSERT_EQ(run.exit_code, 1) << run.err;
  const std::string png = PathOf("crash.png");
  const CommandResult shot =
      Browse(FileUrl(page) + "#status=not-pass", {"--window-size=1280,900", "--screenshot=" + png});
  ASSERT_EQ(shot.exit_code, 0) << shot.err;
  EXPECT_EQ(ConsoleLines(shot.err), std::vector<std::string>{}) << shot.err;
  std::ifstream file(png, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  ASSERT_GE(bytes.size(), 8u);
  EXPECT_EQ(bytes.substr(0, 8), "\x89PNG\r\n\x1a\n");
  // A page with text, tags and a verdict banner; a blank one is a few KB.
  EXPECT_GT(bytes.size(), 20000u);
}

}  // namespace
}  // namespace sectl::report
