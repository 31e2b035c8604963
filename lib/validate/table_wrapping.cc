#include "validate/table_wrapping.h"

#include <fmt/format.h>

#include <cstring>
#include <string_view>

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
