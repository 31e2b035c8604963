#include "host/compatibility.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "abi/struct_layouts.h"

namespace sectl::host {
namespace {

// Builds one generation's verdict.
class CompatibilityJudge {
 public:
  explicit CompatibilityJudge(const abi::HostGeneration& generation) : generation_(generation) {}

  // The members alone (see JudgeRequiredMembers).
  std::vector<CompatibilityProblem> JudgeMembers(const Platform& platform) {
    unified_ = platform.supports_unified_memory();
    JudgeFunctionTables(platform);
    JudgeStreamExecutor(platform);
    return std::move(verdict_.problems);
  }

  Compatibility Judge(const Expected<std::unique_ptr<Platform>>& registered) {
    if (!registered) {
      Add("refused", registered.error().message());
    } else {
      unified_ = (*registered)->supports_unified_memory();
      JudgeFindings(**registered);
      JudgeFunctionTables(**registered);
      JudgeStreamExecutor(**registered);
    }
    verdict_.loads =
        std::none_of(verdict_.problems.begin(), verdict_.problems.end(),
                     [](const CompatibilityProblem& problem) { return problem.kind == "refused"; });
    // A plugin the host refuses is never called: only its overruns matter.
    if (!verdict_.loads) {
      std::erase_if(verdict_.problems, [](const CompatibilityProblem& problem) {
        return problem.kind == "wrong_function" || problem.kind == "null_call";
      });
    }
    return verdict_;
  }

 private:
  // A function pointer the plugin wrote, and which member it meant it as.
  struct WrittenMember {
    std::string_view name;
    const void* value = nullptr;
  };

  void Add(std::string_view kind, std::string message,
           abi::PluginFunction function = abi::PluginFunction::kCount) {
    verdict_.problems.push_back({std::string(kind), std::move(message), function});
  }

  static const StructReport* FindReport(const Platform& platform, abi::StructKind kind) {
    for (const auto& report : platform.struct_reports()) {
      if (report.kind == kind) return &report;
    }
    return nullptr;
  }

  void JudgeFindings(const Platform& platform) {
    for (const auto& finding : platform.findings().all()) {
      if (finding.severity != Severity::kError) continue;
      const std::string& id = finding.id;
      if (id.starts_with("required.")) continue;  // judged below, by this generation's layout
      if (id == "platform.create_timer_fns.failed" && !generation_.calls_create_timer_fns) {
        continue;
      }
      if (id.starts_with("struct_size.overrun.")) {
        Add("overrun", finding.message);
      } else if (id.starts_with("struct_size.incompatible.")) {
        Add("wrong_function", finding.message);
      } else {
        Add("refused", finding.message);
      }
    }
  }

  void JudgeRequirement(abi::PluginFunction function, const std::string& elsewhere) {
    switch (abi::RequirementOf(function, generation_, unified_)) {
      case abi::Requirement::kValidated:
        Add("refused", abi::TensorFlowMissingMemberMessage(function) + elsewhere, function);
        break;
      case abi::Requirement::kCalledUnconditionally:
        Add("null_call",
            fmt::format("{} calls {} without checking for null, and this plugin "
                        "leaves it null{}: the process crashes when it is called",
                        generation_.description, abi::QualifiedName(function), elsewhere),
            function);
        break;
      case abi::Requirement::kOptional:
      case abi::Requirement::kUnused:
        break;
    }
  }

  // The tables whose layout never changed: read as the plugin wrote them.
  void JudgeFunctionTables(const Platform& platform) {
    const bool has_device_fns = FindReport(platform, abi::StructKind::kDeviceFns) != nullptr;
    const bool has_timer_fns = FindReport(platform, abi::StructKind::kTimerFns) != nullptr &&
                               generation_.calls_create_timer_fns;
    for (const auto& info : abi::AllPluginFunctions()) {
      if (info.function == abi::PluginFunction::kInitPlugin || platform.Provides(info.function)) {
        continue;
      }
      if (info.struct_name == "SP_StreamExecutor" ||
          (info.struct_name == "SP_DeviceFns" && !has_device_fns) ||
          (info.struct_name == "SP_TimerFns" && !has_timer_fns)) {
        continue;
      }
      JudgeRequirement(info.function, "");
    }
  }

  // SP_StreamExecutor, read by this generation's own layout.
  void JudgeStreamExecutor(const Platform& platform) {
    const StructReport* report = FindReport(platform, abi::StructKind::kStreamExecutor);
    if (report == nullptr) return;  // create_stream_executor failed: already a refusal
    const abi::StructLayout* host_layout = &abi::CurrentLayout(abi::StructKind::kStreamExecutor);
    for (const auto& layout : abi::KnownLayouts(abi::StructKind::kStreamExecutor)) {
      if (layout.struct_size == generation_.stream_executor_struct_size) host_layout = &layout;
    }
    const size_t plugin_size = report->reading.reported_size;
    const auto written = AsWritten(platform, *report->reading.layout);
    for (const auto& member : host_layout->members) {
      const abi::PluginFunction function = FunctionNamed(member.name);
      if (function == abi::PluginFunction::kCount) continue;  // struct_size, ext
      const auto found = written.find(member.offset);
      const void* value = found != written.end() ? found->second.value : nullptr;
      if (value != nullptr && found->second.name != member.name) {
        Add("wrong_function",
            fmt::format("{} reads SP_StreamExecutor.{} at offset {}, where this plugin's {}-byte "
                        "layout put {}: it would call {} in place of {}",
                        generation_.description, member.name, member.offset, plugin_size,
                        found->second.name, found->second.name, member.name),
            function);
      } else if (value == nullptr) {
        JudgeRequirement(function, WhereItWent(written, member.name, *host_layout, plugin_size));
      }
    }
  }

  static abi::PluginFunction FunctionNamed(std::string_view member) {
    for (const auto& info : abi::FunctionsOf("SP_StreamExecutor")) {
      if (info.member == member) return info.function;
    }
    return abi::PluginFunction::kCount;
  }

  // Each function pointer at the byte offset the plugin's reported layout
  // gives its member.
  static std::map<size_t, WrittenMember> AsWritten(const Platform& platform,
                                                   const abi::StructLayout& plugin_layout) {
    const auto& current = abi::CurrentLayout(abi::StructKind::kStreamExecutor);
    const auto decoded = platform.stream_executor_bytes();
    std::map<size_t, WrittenMember> written;
    for (const auto& member : plugin_layout.members) {
      for (const auto& same : current.members) {
        if (same.name != member.name || member.name == "struct_size" || member.name == "ext" ||
            same.offset + sizeof(void*) > decoded.size()) {
          continue;
        }
        const void* value = nullptr;
        std::memcpy(&value, decoded.data() + same.offset, sizeof(value));
        written[member.offset] = {member.name, value};
      }
    }
    return written;
  }

  // " (this plugin's 264-byte layout put it at offset 256, where ... reads mem_zero)".
  std::string WhereItWent(const std::map<size_t, WrittenMember>& written, std::string_view member,
                          const abi::StructLayout& host_layout, size_t plugin_size) const {
    for (const auto& [offset, entry] : written) {
      if (entry.name != member || entry.value == nullptr) continue;
      std::string_view host_member = "nothing";
      for (const auto& candidate : host_layout.members) {
        if (candidate.offset == offset) host_member = candidate.name;
      }
      return fmt::format(" (this plugin's {}-byte layout put it at offset {}, where {} reads {})",
                         plugin_size, offset, generation_.description, host_member);
    }
    return "";
  }

  const abi::HostGeneration& generation_;
  bool unified_ = false;
  Compatibility verdict_;
};

}  // namespace

std::vector<CompatibilityProblem> JudgeRequiredMembers(const abi::HostGeneration& generation,
                                                       const Platform& platform) {
  return CompatibilityJudge(generation).JudgeMembers(platform);
}

const BehaviourJudgement& JudgeDeviceBehaviour(DeviceBehaviour behaviour) {
  // TensorFlow (every generation) keys its executors by the ordinal it asked
  // for and creates only ordinals below get_device_count; SP_Device.ordinal
  // is never read back (GetUncachedExecutor, CStreamExecutor).
  static constexpr BehaviourJudgement kOrdinalNotFilled{
      Severity::kWarning,
      "no released TensorFlow reads SP_Device.ordinal back: it keys the executor by the "
      "ordinal it asked for; only a plugin that reads device->ordinal itself is misled"};
  static constexpr BehaviourJudgement kOutOfRangeOrdinalAccepted{
      Severity::kWarning,
      "no released TensorFlow asks for an ordinal at or beyond get_device_count (it creates "
      "devices 0 to count-1), so a plugin with a fixed count that ignores the ordinal harms none"};
  switch (behaviour) {
    case DeviceBehaviour::kOrdinalNotFilled:
      return kOrdinalNotFilled;
    case DeviceBehaviour::kOutOfRangeOrdinalAccepted:
      return kOutOfRangeOrdinalAccepted;
  }
  return kOrdinalNotFilled;
}

Compatibility JudgeCompatibility(const abi::HostGeneration& generation,
                                 const Expected<std::unique_ptr<Platform>>& registered) {
  return CompatibilityJudge(generation).Judge(registered);
}

}  // namespace sectl::host
