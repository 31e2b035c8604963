// Fuzzes the reader of conform JSON reports, which `sectl report` reads back
// from other machines and shards. Any text must give a report or a one-line
// error. A report that was read must render in every format, write back to
// JSON that reads again the same, and refuse to merge with itself.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "report/conform_json.h"
#include "report/conform_junit.h"
#include "report/conform_table.h"
#include "report/merge_reports.h"

namespace {

using sectl::report::ConformReport;

[[noreturn]] void Violated(const char* property) {
  std::fprintf(stderr, "conform_report_fuzzer: %s\n", property);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto report = sectl::report::ConformReportFromJson(text);
  if (!report) {
    const std::string& message = report.error().message();
    if (message.empty() || message.find('\n') != std::string::npos) {
      Violated("an error must be exactly one line");
    }
    return 0;
  }
  (void)sectl::report::RenderConformTable(*report, {.color = true, .verbose = true});
  (void)sectl::report::RenderConformJunit(*report);

  const std::string written = sectl::report::ConformReportToJson(*report);
  auto reread = sectl::report::ConformReportFromJson(written);
  if (!reread) Violated("a report sectl read must read again after being written");
  if (sectl::report::ConformReportToJson(*reread) != written) {
    Violated("writing a report read back from JSON must give the same JSON");
  }

  if (!report->results.empty()) {
    std::vector<ConformReport> twice{*report, *report};
    if (sectl::report::MergeReports(std::move(twice))) {
      Violated("a report with results must not merge with itself (every result twice)");
    }
  }
  return 0;
}
