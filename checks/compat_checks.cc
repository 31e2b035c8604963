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

}  // namespace

SECTL_CHECK("compat.tf_2_5", kInfo, "TensorFlow 2.5 to 2.6 loads this plugin and uses it safely",
            .tests = {}, .severity_reason = kCompatReason) {
  ReportGeneration(check, "2.5");
}

SECTL_CHECK("compat.tf_2_7", kInfo, "TensorFlow 2.7 to 2.9 loads this plugin and uses it safely",
            .tests = {}, .severity_reason = kCompatReason) {
  ReportGeneration(check, "2.7");
}

SECTL_CHECK("compat.tf_2_10", kInfo, "TensorFlow 2.10 to 2.15 loads this plugin and uses it safely",
            .tests = {}, .severity_reason = kCompatReason) {
  ReportGeneration(check, "2.10");
}

SECTL_CHECK("compat.latest", kInfo,
            "TensorFlow 2.16 and newer loads this plugin and uses it safely", .tests = {},
            .severity_reason = kCompatReason) {
  ReportGeneration(check, "latest");
}

}  // namespace sectl::checks
