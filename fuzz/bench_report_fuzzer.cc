// Fuzzes the reader of bench JSON reports, which `sectl bench --compare`
// reads back from an earlier run, often another machine's. Any text must
// give a report or a one-line error; a report that was read must write back
// to JSON that reads again and writes the same.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "bench/bench_json.h"

namespace {

[[noreturn]] void Violated(const char* property) {
  std::fprintf(stderr, "bench_report_fuzzer: %s\n", property);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto report = sectl::bench::ParseBenchReport(text);
  if (!report) {
    const std::string& message = report.error().message();
    if (message.empty() || message.find('\n') != std::string::npos) {
      Violated("an error must be exactly one line");
    }
    return 0;
  }
  const std::string written = sectl::bench::BenchReportToJsonText(*report);
  auto reread = sectl::bench::ParseBenchReport(written);
  if (!reread) Violated("a report sectl read must read again after being written");
  if (sectl::bench::BenchReportToJsonText(*reread) != written) {
    Violated("writing a report read back from JSON must give the same JSON");
  }
  return 0;
}
