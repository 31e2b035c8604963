// The compatibility matrix as checks: for each TensorFlow generation, would
// it load this plugin, and could it use it safely? The judgement itself is
// host/compatibility.h, shared with `sectl probe`.
//
// A generation that refuses the plugin cleanly is a skip: supporting every
// TensorFlow is optional. A warning means harm: a write past the host's
// struct, a function called in place of another, or a null member the host
// calls without checking.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <vector>

#include "conform/check.h"
#include "host/compatibility.h"

namespace sectl::checks {
namespace {

// "a; b; c; and 2 more", each without its closing full stop: enough to act
// on; the details list every one.
std::string JoinSentences(const std::vector<std::string>& sentences) {
  constexpr size_t kListed = 3;
  std::vector<std::string_view> listed;
  for (size_t i = 0; i < sentences.size() && i < kListed; ++i) {
    std::string_view sentence = sentences[i];
    if (sentence.ends_with('.')) sentence.remove_suffix(1);
    listed.push_back(sentence);
  }
  std::string joined = fmt::format("{}", fmt::join(listed, "; "));
  if (sentences.size() > kListed) {
    joined += fmt::format("; and {} more", sentences.size() - kListed);
  }
  return joined;
}

void ReportGeneration(conform::CheckContext& check, std::string_view id) {
  const abi::HostGeneration generation = *abi::FindHostGeneration(id);
  const host::Compatibility compatibility =
      host::JudgeCompatibility(generation, check.CreatePlatform({.generation = generation}));
  nlohmann::json problems = nlohmann::json::array();
  std::vector<std::string> harms;
  std::vector<std::string> refusals;
  for (const auto& problem : compatibility.problems) {
    problems.push_back({{"kind", problem.kind}, {"message", problem.message}});
    (problem.kind == "refused" ? refusals : harms).push_back(problem.message);
  }
  check.details() = {{"tf_version", generation.id},
                     {"description", generation.description},
                     {"loads", compatibility.loads},
                     {"problems", problems}};
  for (const auto& harm : harms) check.Warn(harm);
  if (refusals.empty()) return;
  const std::string refused = fmt::format("{} would refuse this plugin: {}", generation.description,
                                          JoinSentences(refusals));
  if (harms.empty()) check.Skip(refused + " (supporting that TensorFlow is optional)");
  check.Warn(refused);
}

// Why the compat.* checks only inform.
constexpr std::string_view kCompatReason =
    "Speaks for one generation whichever --tf-version is selected: supporting an older "
    "TensorFlow is optional, and what harms the selected generation is a required check's "
    "failure (registration.required_callbacks, struct_size.older_host)";

// What the compat.* checks find plugins getting wrong, and what to do about it.
constexpr std::string_view kCompatMistakes =
    "Supporting only the TensorFlow a plugin was built for: a plugin built against "
    "the 288-byte header writes past an older generation's smaller "
    "`SP_StreamExecutor`, or hands it `mem_zero` where it reads `host_callback`; a "
    "member an older generation validates or calls without a null check "
    "(`sync_memcpy_dtod` up to 2.15, `destroy_timer_fns` always) left null.";
constexpr std::string_view kCompatFix =
    "Decide which TensorFlow generations the plugin supports. For each: fill only "
    "the members within the `struct_size` it pre-fills, set every member it "
    "validates or calls, or refuse it cleanly with a non-OK status from "
    "`SE_InitPlugin`. A refusal is a skip, not a finding.";

// Why a crash in a compat.* check does not make it required: it registers
// the plugin as another generation's host than the selected one.
constexpr std::string_view kCompatUnusualUse =
    "it registers the plugin as a TensorFlow generation other than the one selected";

}  // namespace

SECTL_CHECK("compat.tf_2_5", kInfo, "TensorFlow 2.5 to 2.6 loads this plugin and uses it safely",
            .tests = {}, .severity_reason = kCompatReason,
            .establishes =
                "read by TensorFlow 2.5's own layout (264-byte `SP_StreamExecutor`, timers "
                "required, no `mem_zero` family): would it load the plugin (a skip with the "
                "reason if not), and would it be harmed (writes past its structs, wrong or null "
                "functions called: a warning)",
            .common_mistakes = kCompatMistakes, .how_to_fix = kCompatFix,
            .proven_by =
                "`FILLS_NEW_LAYOUT_ON_OLD_HOST`, `OVERRUNS_OLDER_HOST`, `NO_SYNC_MEMCPY_DTOD`, "
                "`WRITES_PAST_STREAM_EXECUTOR`",
            .unusual_use = kCompatUnusualUse) {
  ReportGeneration(check, "2.5");
}

SECTL_CHECK("compat.tf_2_7", kInfo, "TensorFlow 2.7 to 2.9 loads this plugin and uses it safely",
            .tests = {}, .severity_reason = kCompatReason,
            .establishes =
                "read by the layout of TensorFlow 2.7 to 2.9 (288-byte `SP_StreamExecutor`, "
                "timers and the `mem_zero` family required): would it load the plugin (a skip "
                "with the reason if not), and would it be harmed (writes past its structs, wrong "
                "or null functions called: a warning)",
            .common_mistakes = kCompatMistakes, .how_to_fix = kCompatFix,
            .proven_by = "`NO_SYNC_MEMCPY_DTOD`, `WRITES_PAST_STREAM_EXECUTOR`",
            .unusual_use = kCompatUnusualUse) {
  ReportGeneration(check, "2.7");
}

SECTL_CHECK("compat.tf_2_10", kInfo, "TensorFlow 2.10 to 2.15 loads this plugin and uses it safely",
            .tests = {}, .severity_reason = kCompatReason,
            .establishes =
                "read by the layout of TensorFlow 2.10 to 2.15 (with `force_memory_growth`; "
                "timers still required): would it load the plugin (a skip with the reason if "
                "not), and would it be harmed (writes past its structs, wrong or null functions "
                "called: a warning)",
            .common_mistakes = kCompatMistakes, .how_to_fix = kCompatFix,
            .proven_by = "`NO_SYNC_MEMCPY_DTOD`, `WRITES_PAST_STREAM_EXECUTOR`",
            .unusual_use = kCompatUnusualUse) {
  ReportGeneration(check, "2.10");
}

SECTL_CHECK("compat.latest", kInfo,
            "TensorFlow 2.16 and newer loads this plugin and uses it safely", .tests = {},
            .severity_reason = kCompatReason,
            .establishes =
                "read by the layout of TensorFlow 2.16 and newer (no timers created, "
                "`destroy_timer_fns` still called): would it load the plugin (a skip with the "
                "reason if not), and would it be harmed (writes past its structs, wrong or null "
                "functions called: a warning)",
            .common_mistakes = kCompatMistakes, .how_to_fix = kCompatFix,
            .proven_by = "`NO_DESTROY_TIMER_FNS`, `WRITES_PAST_STREAM_EXECUTOR`",
            .unusual_use = kCompatUnusualUse) {
  ReportGeneration(check, "latest");
}

}  // namespace sectl::checks
