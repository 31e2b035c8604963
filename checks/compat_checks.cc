// The compatibility matrix: for each TensorFlow generation, would it load
// this plugin, and could it use it safely? The plugin is registered with
// the struct sizes that generation pre-fills, and what it wrote is read as
// that generation reads it: by the generation's own layout, whatever
// struct_size the plugin reports (TensorFlow never looks at it).
//
// A generation that refuses the plugin cleanly is a skip: supporting every
// TensorFlow is optional. A warning means harm: a write past the host's
// struct, a function called in place of another, or a null member the host
// calls without checking.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "abi/struct_layouts.h"
#include "conform/check.h"

namespace sectl::checks {
namespace {

using abi::PluginFunction;
using abi::StructKind;

enum class ProblemKind {
  kRefused,        // the host refuses to register the plugin (cleanly)
  kOverrun,        // the plugin writes past one of the host's structs
  kWrongFunction,  // the host reads a member where the plugin put another
  kNullCall,       // the host calls a member the plugin left null
};

std::string_view KindName(ProblemKind kind) {
  switch (kind) {
    case ProblemKind::kRefused:
      return "refused";
    case ProblemKind::kOverrun:
      return "overrun";
    case ProblemKind::kWrongFunction:
      return "wrong_function";
    case ProblemKind::kNullCall:
      return "null_call";
  }
  return "";
}

struct Problem {
  ProblemKind kind;
  std::string message;
};

// What one generation would make of the plugin.
struct Compatibility {
  std::vector<Problem> problems;

  void Add(ProblemKind kind, std::string message) {
    problems.push_back({kind, std::move(message)});
  }
  bool Has(ProblemKind kind) const {
    return std::any_of(problems.begin(), problems.end(),
                       [kind](const Problem& problem) { return problem.kind == kind; });
  }
  bool loads() const { return !Has(ProblemKind::kRefused); }
  // A plugin the host refuses is never called: only its overruns matter.
  void ForgetCallsOfARefusedPlugin() {
    if (loads()) return;
    std::erase_if(problems, [](const Problem& problem) {
      return problem.kind == ProblemKind::kWrongFunction || problem.kind == ProblemKind::kNullCall;
    });
  }
};

const host::StructReport* FindReport(const host::Platform& platform, StructKind kind) {
  for (const auto& report : platform.struct_reports()) {
    if (report.kind == kind) return &report;
  }
  return nullptr;
}

const abi::StructLayout& LayoutOfSize(StructKind kind, size_t struct_size) {
  for (const auto& layout : abi::KnownLayouts(kind)) {
    if (layout.struct_size == struct_size) return layout;
  }
  return abi::CurrentLayout(kind);
}

PluginFunction StreamExecutorFunction(std::string_view member) {
  for (const auto& info : abi::FunctionsOf("SP_StreamExecutor")) {
    if (info.member == member) return info.function;
  }
  return PluginFunction::kCount;
}

// A function pointer the plugin wrote, and which member it meant it as.
struct WrittenMember {
  std::string_view name;
  const void* value = nullptr;
};

// The plugin's SP_StreamExecutor as it wrote it: each function pointer at
// the byte offset the layout it reported gives that member.
std::map<size_t, WrittenMember> StreamExecutorAsWritten(const host::Platform& platform,
                                                        const abi::StructLayout& plugin_layout) {
  const auto& current = abi::CurrentLayout(StructKind::kStreamExecutor);
  const auto* decoded = reinterpret_cast<const unsigned char*>(&platform.stream_executor());
  std::map<size_t, WrittenMember> written;
  for (const auto& member : plugin_layout.members) {
    if (member.name == "struct_size" || member.name == "ext") continue;
    for (const auto& same : current.members) {
      if (same.name != member.name) continue;
      const void* value = nullptr;
      std::memcpy(&value, decoded + same.offset, sizeof(value));
      written[member.offset] = {member.name, value};
    }
  }
  return written;
}

// Where the plugin put `member` instead, when the host finds it null:
// " (this plugin's 264-byte layout put it at offset 256, where ... reads mem_zero)".
std::string WhereThePluginPutIt(const std::map<size_t, WrittenMember>& written,
                                std::string_view member, const abi::StructLayout& host_layout,
                                const abi::HostGeneration& generation, size_t plugin_size) {
  for (const auto& [offset, entry] : written) {
    if (entry.name != member || entry.value == nullptr) continue;
    std::string_view host_member = "nothing";
    for (const auto& candidate : host_layout.members) {
      if (candidate.offset == offset) host_member = candidate.name;
    }
    return fmt::format(" (this plugin's {}-byte layout put it at offset {}, where {} reads {})",
                       plugin_size, offset, generation.description, host_member);
  }
  return "";
}

// A member `generation` finds null: refused where it validates the member,
// a crash where it calls the member without checking. `elsewhere` says
// where the plugin put it instead, if it did.
void JudgeNullMember(const abi::HostGeneration& generation, PluginFunction function,
                     bool supports_unified_memory, const std::string& elsewhere,
                     Compatibility& compatibility) {
  switch (abi::RequirementOf(function, generation, supports_unified_memory)) {
    case abi::Requirement::kValidated:
      compatibility.Add(ProblemKind::kRefused,
                        abi::TensorFlowMissingMemberMessage(function) + elsewhere);
      break;
    case abi::Requirement::kCalledUnconditionally:
      compatibility.Add(
          ProblemKind::kNullCall,
          fmt::format("{} calls {} without checking for null, and this plugin "
                      "leaves it null{}: the process crashes when it is called",
                      generation.description, abi::QualifiedName(function), elsewhere));
      break;
    case abi::Requirement::kOptional:
    case abi::Requirement::kUnused:
      break;
  }
}

// SP_StreamExecutor as `generation` reads it: by its own layout.
void JudgeStreamExecutor(const abi::HostGeneration& generation, const host::Platform& platform,
                         Compatibility& compatibility) {
  const host::StructReport* report = FindReport(platform, StructKind::kStreamExecutor);
  if (report == nullptr) return;  // create_stream_executor failed: already a refusal
  const auto& host_layout =
      LayoutOfSize(StructKind::kStreamExecutor, generation.stream_executor_struct_size);
  const size_t plugin_size = report->reading.reported_size;
  const auto written = StreamExecutorAsWritten(platform, *report->reading.layout);
  const bool unified = platform.supports_unified_memory();
  for (const auto& member : host_layout.members) {
    const PluginFunction function = StreamExecutorFunction(member.name);
    if (function == PluginFunction::kCount) continue;  // struct_size, ext
    const auto found = written.find(member.offset);
    const void* value = found != written.end() ? found->second.value : nullptr;
    if (value != nullptr && found->second.name != member.name) {
      compatibility.Add(
          ProblemKind::kWrongFunction,
          fmt::format("{} reads SP_StreamExecutor.{} at offset {}, where this plugin's {}-byte "
                      "layout put {}: it would call {} in place of {}",
                      generation.description, member.name, member.offset, plugin_size,
                      found->second.name, found->second.name, member.name));
      continue;
    }
    if (value == nullptr) {
      JudgeNullMember(
          generation, function, unified,
          WhereThePluginPutIt(written, member.name, host_layout, generation, plugin_size),
          compatibility);
    }
  }
}

// The other function tables: their layout never changed, so the host reads
// them as the plugin wrote them.
void JudgeFunctionTables(const abi::HostGeneration& generation, const host::Platform& platform,
                         Compatibility& compatibility) {
  const bool has_device_fns = FindReport(platform, StructKind::kDeviceFns) != nullptr;
  const bool has_timer_fns =
      FindReport(platform, StructKind::kTimerFns) != nullptr && generation.calls_create_timer_fns;
  const bool unified = platform.supports_unified_memory();
  for (const auto& info : abi::AllPluginFunctions()) {
    if (info.function == PluginFunction::kInitPlugin || platform.Provides(info.function)) continue;
    if (info.struct_name == "SP_StreamExecutor" ||
        (info.struct_name == "SP_DeviceFns" && !has_device_fns) ||
        (info.struct_name == "SP_TimerFns" && !has_timer_fns)) {
      continue;
    }
    JudgeNullMember(generation, info.function, unified, "", compatibility);
  }
}

// What the host runtime found while registering, as this generation sees it.
void JudgeFindings(const abi::HostGeneration& generation, const host::Platform& platform,
                   Compatibility& compatibility) {
  for (const auto& finding : platform.findings().all()) {
    if (finding.severity != host::Severity::kError) continue;
    const std::string& id = finding.id;
    if (id.starts_with("required.")) continue;  // judged as this generation reads the layout
    if (id == "platform.create_timer_fns.failed" && !generation.calls_create_timer_fns) continue;
    if (id.starts_with("struct_size.overrun.")) {
      compatibility.Add(ProblemKind::kOverrun, finding.message);
    } else if (id.starts_with("struct_size.incompatible.")) {
      compatibility.Add(ProblemKind::kWrongFunction, finding.message);
    } else {
      compatibility.Add(ProblemKind::kRefused, finding.message);
    }
  }
}

Compatibility JudgeGeneration(conform::CheckContext& check, const abi::HostGeneration& generation) {
  Compatibility compatibility;
  auto platform = check.CreatePlatform({.generation = generation});
  if (!platform) {
    compatibility.Add(ProblemKind::kRefused, platform.error().message());
    return compatibility;
  }
  JudgeFindings(generation, **platform, compatibility);
  JudgeFunctionTables(generation, **platform, compatibility);
  JudgeStreamExecutor(generation, **platform, compatibility);
  compatibility.ForgetCallsOfARefusedPlugin();
  return compatibility;
}

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
  const Compatibility compatibility = JudgeGeneration(check, generation);
  nlohmann::json problems = nlohmann::json::array();
  for (const auto& problem : compatibility.problems) {
    problems.push_back({{"kind", KindName(problem.kind)}, {"message", problem.message}});
  }
  check.details() = {{"tf_version", generation.id},
                     {"description", generation.description},
                     {"loads", compatibility.loads()},
                     {"problems", problems}};
  std::vector<std::string> harms;
  std::vector<std::string> refusals;
  for (const auto& problem : compatibility.problems) {
    auto& list = problem.kind == ProblemKind::kRefused ? refusals : harms;
    list.push_back(problem.message);
  }
  for (const auto& harm : harms) check.Warn(harm);
  if (refusals.empty()) return;
  const std::string refused = fmt::format("{} would refuse this plugin: {}", generation.description,
                                          JoinSentences(refusals));
  if (harms.empty()) check.Skip(refused + " (supporting that TensorFlow is optional)");
  check.Warn(refused);
}

}  // namespace

SECTL_CHECK("compat.tf_2_5", kInfo, "TensorFlow 2.5 to 2.6 loads this plugin and uses it safely") {
  ReportGeneration(check, "2.5");
}

SECTL_CHECK("compat.tf_2_7", kInfo, "TensorFlow 2.7 to 2.9 loads this plugin and uses it safely") {
  ReportGeneration(check, "2.7");
}

SECTL_CHECK("compat.tf_2_10", kInfo,
            "TensorFlow 2.10 to 2.15 loads this plugin and uses it safely") {
  ReportGeneration(check, "2.10");
}

SECTL_CHECK("compat.latest", kInfo,
            "TensorFlow 2.16 and newer loads this plugin and uses it safely") {
  ReportGeneration(check, "latest");
}

}  // namespace sectl::checks
