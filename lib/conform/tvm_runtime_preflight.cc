#include "conform/tvm_runtime_preflight.h"

#include <fmt/format.h>

#include "isolation/collect_in_child.h"
#include "loader/plugin_library.h"
#include "tvm/runtime_route.h"

namespace sectl::conform {
namespace {

// How many device ids are probed with kExist for the report's device count.
constexpr int kMostIdsProbed = 64;

// The facts, from the runtime itself: "<device count> <route name>".
Expected<std::string> LearnFacts(const CheckSettings& settings) {
  auto library = loader::PluginLibrary::Open(
      settings.plugin_path, {.lazy = settings.lazy, .abi = loader::PluginAbi::kTvmRuntime});
  if (!library) return tl::unexpected(library.error());
  auto route = tvm::OpenRuntimeRoute(*library, settings.tvm_device_type);
  if (!route) return tl::unexpected(route.error());
  const int id = settings.device_ordinal;
  auto exists = (*route)->GetAttr(id, tvm::DeviceAttrKind::kExist);
  if (!exists) {
    return tl::unexpected(exists.error().WithContext(fmt::format(
        "asking kExist for {} device {}", tvm::DeviceTypeName(settings.tvm_device_type), id)));
  }
  const auto* answer = std::get_if<int64_t>(&*exists);
  if (answer == nullptr || *answer == 0) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("--tvm-device-type {} --tvm-device-id {}: the runtime's "
                            "runtime.GetDeviceAttr(kExist) answers {}: no such device",
                            tvm::DeviceTypeName(settings.tvm_device_type), id,
                            tvm::DescribeAttrValue(*exists)));
  }
  int count = 0;
  while (count < kMostIdsProbed) {
    auto next = (*route)->GetAttr(count, tvm::DeviceAttrKind::kExist);
    const auto* present = next ? std::get_if<int64_t>(&*next) : nullptr;
    if (present == nullptr || *present == 0) break;
    ++count;
  }
  count = std::max(count, id + 1);
  return fmt::format("{} {}", count,
                     tvm::RuntimeFlavourName(tvm::RecogniseRuntimeFlavour(*library)));
}

Expected<PluginFacts> FactsFromText(const std::string& text) {
  PluginFacts facts;
  const auto space = text.find(' ');
  if (space == std::string::npos) {
    return Fail(ErrorCode::kInternal, "the TVM runtime preflight reported nothing");
  }
  facts.device_count = std::stoi(text.substr(0, space));
  facts.abi_vintage = text.substr(space + 1);
  return facts;
}

}  // namespace

Expected<PluginFacts> PreflightTvmRuntime(const CheckSettings& settings,
                                          std::chrono::milliseconds timeout, bool isolate,
                                          const isolation::Confinement& confinement) {
  if (!isolate) {
    auto text = LearnFacts(settings);
    if (!text) return tl::unexpected(text.error());
    return FactsFromText(*text);
  }
  auto text = isolation::CollectInChild([&] { return LearnFacts(settings); },
                                        {.timeout = timeout,
                                         .confinement = confinement,
                                         .doing = "loading the TVM runtime and asking kExist",
                                         .plugin_path = settings.plugin_path,
                                         .process_name = "the preflight process"});
  if (!text) return tl::unexpected(text.error());
  return FactsFromText(*text);
}

}  // namespace sectl::conform
