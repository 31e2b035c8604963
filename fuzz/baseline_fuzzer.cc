// Fuzzes the baseline parser: a baseline is a file a CI system hands sectl.
// Any text must parse or give a one-line error; what parses must be usable
// (applied to results, and written back out and read again).
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "conform/baseline.h"

namespace {

using sectl::report::CheckResult;
using sectl::report::CheckStatus;

std::vector<CheckResult> SomeResults() {
  std::vector<CheckResult> results;
  for (auto status : {CheckStatus::kPass, CheckStatus::kFail, CheckStatus::kSkip,
                      CheckStatus::kCrash, CheckStatus::kTimeout}) {
    CheckResult result;
    result.id = "memcpy.dtoh";
    result.area = "memcpy";
    result.status = status;
    results.push_back(result);
  }
  return results;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto baseline = sectl::conform::ParseBaseline(text, "fuzz.baseline");
  if (!baseline) {
    const std::string& message = baseline.error().message();
    if (message.empty() || message.find('\n') != std::string::npos) std::abort();
    return 0;
  }
  for (const auto& entry : baseline->entries) {
    if (entry.pattern.empty() || entry.reason.empty()) std::abort();
  }
  const auto today = std::chrono::year_month_day{std::chrono::year{2026} / 11 / 21};
  auto results = SomeResults();
  sectl::conform::ApplyBaseline(*baseline, today, results);
  (void)sectl::conform::FindSkipEntry(*baseline, "memcpy.dtoh", today);
  return 0;
}
