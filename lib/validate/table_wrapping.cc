#include "validate/table_wrapping.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "abi/host_generations.h"
#include "abi/plugin_functions.h"
#include "validate/layer.h"
#include "validate/wrappers.h"

namespace sectl::validate {
namespace {

// The catalogue's function for member `member` of `struct_name`, or kCount.
abi::PluginFunction FunctionNamed(std::string_view struct_name, std::string_view member) {
  for (const abi::PluginFunctionInfo& info : abi::FunctionsOf(struct_name)) {
    if (info.member == member) return info.function;
  }
  return abi::PluginFunction::kCount;
}

// The TensorFlow generations that pre-fill `host_size` for a table of
// `kind` (only SP_StreamExecutor's size tells them apart); the newest when
// none does.
std::vector<abi::HostGeneration> HostsReading(abi::StructKind kind, size_t host_size) {
  std::vector<abi::HostGeneration> hosts;
  if (kind == abi::StructKind::kStreamExecutor) {
    for (const abi::HostGeneration& generation : abi::AllHostGenerations()) {
      if (generation.stream_executor_struct_size == host_size) hosts.push_back(generation);
    }
  }
  if (hosts.empty()) hosts.push_back(abi::LatestHostGeneration());
  return hosts;
}

// "TensorFlow 2.7 and newer", "TensorFlow 2.5 to 2.6".
std::string HostsText(const std::vector<abi::HostGeneration>& hosts) {
  if (hosts.size() > 1 && hosts.back().id == abi::LatestHostGeneration().id) {
    return fmt::format("TensorFlow {} and newer", hosts.front().id);
  }
  std::vector<std::string_view> descriptions;
  descriptions.reserve(hosts.size());
  for (const abi::HostGeneration& host : hosts) descriptions.push_back(host.description);
  return fmt::format("{}", fmt::join(descriptions, ", "));
}

// Whether the plugin's layout, as `reported` bytes, has `member` where the
// host reads it.
bool PluginLayoutHas(const abi::StructLayout& plugin_layout, size_t reported,
                     const abi::MemberLayout& member) {
  if (member.offset + member.width > reported) return false;
  for (const abi::MemberLayout& own : plugin_layout.members) {
    if (own.name == member.name) return own.offset == member.offset;
  }
  return false;
}

// A plugin built against an older, smaller header fills its own layout:
// where the host reads a member the plugin's layout lacks or keeps
// elsewhere, the host finds null (or another function). The size
// difference alone is only an info, but a null there that every host of
// this size refuses, or calls without a null check, is what breaks: an
// SP_StreamExecutor of TensorFlow 2.5-2.6 in a newer host leaves
// host_callback null, which TensorFlow calls whenever it enqueues a host
// callback.
void CheckOlderLayout(Call& call, abi::StructKind kind, const void* table, size_t host_size) {
  size_t reported = 0;
  std::memcpy(&reported, table, sizeof reported);
  if (reported == 0 || reported >= host_size) return;
  const abi::StructLayout& host_layout = *abi::ReadStructSize(kind, host_size).layout;
  const abi::StructSizeReading plugin = abi::ReadStructSize(kind, reported);
  const std::vector<abi::HostGeneration> hosts = HostsReading(kind, host_size);
  const auto* bytes = static_cast<const std::byte*>(table);
  std::vector<std::string_view> null_members;
  std::vector<std::string> misread;
  std::string refusal;
  bool host_callback_null = false;
  for (const abi::MemberLayout& member : host_layout.members) {
    const abi::PluginFunction function = FunctionNamed(host_layout.struct_name, member.name);
    if (function == abi::PluginFunction::kCount) continue;
    if (member.offset + sizeof(void*) > host_size) continue;
    if (PluginLayoutHas(*plugin.layout, reported, member)) continue;  // where the host looks
    void* pointer = nullptr;
    std::memcpy(&pointer, bytes + member.offset, sizeof pointer);
    if (pointer != nullptr) {
      for (const abi::MemberLayout& own : plugin.layout->members) {
        if (own.offset == member.offset && own.offset + sizeof(void*) <= reported &&
            FunctionNamed(host_layout.struct_name, own.name) != abi::PluginFunction::kCount) {
          misread.push_back(fmt::format("{} holds the plugin's {}", member.name, own.name));
        }
      }
      continue;
    }
    bool validated = false;
    bool called = false;
    for (const abi::HostGeneration& host : hosts) {
      const abi::Requirement requirement =
          abi::RequirementOf(function, host, /*supports_unified_memory=*/false);
      validated |= requirement == abi::Requirement::kValidated;
      called |= requirement == abi::Requirement::kCalledUnconditionally;
    }
    if (!validated && !called) continue;
    // host_callback first: TensorFlow validates it before the fills, so
    // its refusal names it.
    if (function == abi::PluginFunction::kHostCallback) {
      host_callback_null = true;
      null_members.insert(null_members.begin(), member.name);
      if (validated) refusal = abi::TensorFlowMissingMemberMessage(function);
      continue;
    }
    null_members.push_back(member.name);
    if (validated && refusal.empty()) refusal = abi::TensorFlowMissingMemberMessage(function);
  }
  if (null_members.empty()) return;
  std::string message = fmt::format(
      "{}.struct_size is {}; the host's is {}. Where this host reads them, {} {} null{}{}",
      host_layout.struct_name, plugin.Describe(), host_size, fmt::join(null_members, ", "),
      null_members.size() == 1 ? "is" : "are", misread.empty() ? "" : ", and ",
      fmt::join(misread, ", "));
  if (!refusal.empty()) {
    message += fmt::format(". {} refuse such a plugin (\"{}\")", HostsText(hosts), refusal);
  }
  if (host_callback_null) {
    message +=
        "; a host that does not refuse it calls host_callback without a null check each time "
        "it enqueues a host callback, as every TensorFlow since 2.5 does: a call through null";
  }
  message +=
      ". Build the plugin against the host's header, or fill the layout of the size the "
      "host pre-filled.";
  call.Raise(FindingKind::kStructSizeOlderLayoutLeavesNull, std::move(message));
}

}  // namespace

void CompareStructSize(Call& call, abi::StructKind kind, const void* table, size_t host_size) {
  if (table == nullptr) return;
  size_t reported = 0;
  std::memcpy(&reported, table, sizeof reported);
  const abi::StructLayout& host_layout = *abi::ReadStructSize(kind, host_size).layout;
  if (reported == 0) {
    call.Raise(FindingKind::kStructSizeZero,
               fmt::format("{}.struct_size is 0 after the call (the host pre-filled {})",
                           host_layout.struct_name, host_size));
  } else if (reported != host_size) {
    call.Raise(FindingKind::kStructSizeDiffers,
               fmt::format("{}.struct_size is {}, the host's is {}: {}", host_layout.struct_name,
                           reported, host_size, abi::ReadStructSize(kind, reported).Describe()));
  }
}

void WrapTable(Call& call, abi::StructKind kind, void* table, size_t host_size) {
  if (table == nullptr) return;
  CompareStructSize(call, kind, table, host_size);
  CheckOlderLayout(call, kind, table, host_size);
  const abi::StructLayout& host_layout = *abi::ReadStructSize(kind, host_size).layout;
  Layer& layer = call.layer();
  auto* bytes = static_cast<std::byte*>(table);
  for (const abi::MemberLayout& member : host_layout.members) {
    const abi::PluginFunction function = FunctionNamed(host_layout.struct_name, member.name);
    if (function == abi::PluginFunction::kCount) continue;    // not a function pointer
    if (member.offset + sizeof(void*) > host_size) continue;  // not the host's to read
    void* original = nullptr;
    std::memcpy(&original, bytes + member.offset, sizeof original);
    layer.set_original(function, original);
    if (original == nullptr) continue;  // absent stays absent: the host sees the same table
    void* wrapper = WrapperOf(function);
    std::memcpy(bytes + member.offset, &wrapper, sizeof wrapper);
  }
}

}  // namespace sectl::validate
