#include "conform/tvm_runtime_preflight.h"

#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "isolation/child_progress.h"
#include "isolation/collect_in_child.h"
#include "loader/plugin_library.h"
#include "loader/tvm_backend_library.h"
#include "tvm/runtime_route.h"

namespace sectl::conform {
namespace {

// How many device ids are probed with kExist for the report's device count.
constexpr int kMostIdsProbed = 64;
// What the child says before asking kExist (isolation/child_progress.h).
constexpr std::string_view kAskingExist = "kExist";

std::string KExistCall(int device_type, int id) {
  return fmt::format("runtime.GetDeviceAttr({}, {}, kExist)", device_type, id);
}

// Why kExist answers 0 for a device type this library registers no
// DeviceAPI for: since TVM v0.25 OpenCL's and Vulkan's live in backend
// libraries of their own (libtvm_runtime_vulkan.so); a backend library of
// that name beside this one says the same of any type. Empty when neither.
std::string BackendLibraryHint(const std::string& path, int device_type) {
  const std::string name = tvm::DeviceTypeName(device_type);
  const std::string backend = fmt::format("libtvm_runtime_{}.so", name);
  const auto beside = std::filesystem::path(path).parent_path() / backend;
  std::error_code error;
  const bool there = std::filesystem::exists(beside, error);
  if (!there && name != "opencl" && name != "vulkan") return "";
  return fmt::format(
      "no DeviceAPI for {} in this library (TVM v0.25+ keeps it in {}{}: point sectl at that)",
      name, there ? beside.string() : backend, there ? ", beside it" : "");
}

// The facts, from the runtime itself, as JSON: "count", "route", and
// "signal_handlers" when the runtime replaced sectl's at load.
Expected<std::string> LearnFacts(const CheckSettings& settings,
                                 isolation::ChildProgress* progress) {
  auto library =
      loader::PluginLibrary::Open(settings.plugin_path, {.lazy = settings.lazy,
                                                         .abi = loader::PluginAbi::kTvmRuntime,
                                                         .tvm_core = settings.tvm_core});
  if (!library) return tl::unexpected(library.error());
  auto route = tvm::OpenRuntimeRoute(*library, settings.tvm_device_type);
  if (!route) return tl::unexpected(route.error());
  const int id = settings.device_ordinal;
  if (progress != nullptr) progress->Say(kAskingExist);
  auto exists = (*route)->GetAttr(id, tvm::DeviceAttrKind::kExist);
  if (!exists) {
    return tl::unexpected(exists.error().WithContext(fmt::format(
        "asking kExist for {} device {}", tvm::DeviceTypeName(settings.tvm_device_type), id)));
  }
  const auto* answer = std::get_if<int64_t>(&*exists);
  if (answer == nullptr || *answer == 0) {
    const std::string type_name = tvm::DeviceTypeName(settings.tvm_device_type);
    const bool registered = tvm::HasDeviceApi(*library, settings.tvm_device_type).value_or(true);
    if (std::string hint = BackendLibraryHint(settings.plugin_path, settings.tvm_device_type);
        !registered && !hint.empty()) {
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("--tvm-device-type {}: {}", type_name, hint));
    }
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("--tvm-device-type {} --tvm-device-id {}: the runtime's "
                            "runtime.GetDeviceAttr(kExist) answers {}: no such device{}",
                            type_name, id, tvm::DescribeAttrValue(*exists),
                            registered ? ""
                                       : fmt::format(" (device_api.{} is not registered: "
                                                     "this TVM has no DeviceAPI for it)",
                                                     type_name)));
  }
  int count = 0;
  while (count < kMostIdsProbed) {
    auto next = (*route)->GetAttr(count, tvm::DeviceAttrKind::kExist);
    const auto* present = next ? std::get_if<int64_t>(&*next) : nullptr;
    if (present == nullptr || *present == 0) break;
    ++count;
  }
  if (progress != nullptr) progress->Say("");
  nlohmann::json facts{{"count", std::max(count, id + 1)},
                       {"route", tvm::RuntimeFlavourName(tvm::RecogniseRuntimeFlavour(*library))}};
  if (!library->signal_handlers_note().empty()) {
    facts["signal_handlers"] = library->signal_handlers_note();
  }
  return facts.dump();
}

Expected<TvmRuntimeFacts> FactsFromText(const std::string& text) {
  const auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.contains("count") || !json.contains("route")) {
    return Fail(ErrorCode::kInternal, "the TVM runtime preflight reported nothing readable");
  }
  TvmRuntimeFacts facts;
  facts.facts.device_count = json["count"].get<int>();
  facts.facts.abi_vintage = json["route"].get<std::string>();
  if (json.contains("signal_handlers")) {
    facts.learned.push_back(
        {.function = "loading", .problem = json["signal_handlers"].get<std::string>()});
  }
  return facts;
}

// The child crashed while asking kExist for the device under test: a
// finding of the runtime, not a load failure. `error` is CollectInChild's
// "PATH: DOING crashed with SIGSEGV ...".
TvmRuntimeFacts ExistCrashed(const CheckSettings& settings, const std::string& doing,
                             const Error& error) {
  const std::string prefix = fmt::format("{}: {} ", settings.plugin_path, doing);
  std::string how = error.message();
  if (how.starts_with(prefix)) how = how.substr(prefix.size());
  const int type = settings.tvm_device_type;
  // TVM's DeviceAPIManager holds std::array<DeviceAPI*, TVMDeviceExtType_End>
  // (36, v0.20 c_runtime_api.h and v0.26 device_api.h) and GetAPI reads
  // api_[type] for any type below 128 (kRPCSessMask) before checking it.
  constexpr int kTvmDeviceTableSize = 36;
  const bool beyond_table = type >= kTvmDeviceTableSize;
  TvmRuntimeFacts facts;
  // The device is assumed present: each check meets the crash itself.
  facts.facts.device_count = settings.device_ordinal + 1;
  facts.facts.abi_vintage = "TVM runtime (kExist crashed)";
  facts.learned.push_back(
      {.function = "runtime.GetDeviceAttr",
       .problem = fmt::format(
           "kExist({}) {} in {}{}", type, how, KExistCall(type, settings.device_ordinal),
           beyond_table ? "; TVM indexes its DeviceAPI table (36 entries) by device type "
                          "without a bounds check"
                        : "")});
  return facts;
}

}  // namespace

Expected<TvmRuntimeFacts> PreflightTvmRuntime(const CheckSettings& settings,
                                              std::chrono::milliseconds timeout, bool isolate,
                                              const isolation::Confinement& confinement) {
  if (!isolate) {
    auto text = LearnFacts(settings, nullptr);
    if (!text) return tl::unexpected(text.error());
    return FactsFromText(*text);
  }
  auto progress = isolation::ChildProgress::Create();
  if (!progress) return tl::unexpected(progress.error().WithContext("the preflight's progress"));
  const std::string doing = "loading the TVM runtime and asking kExist";
  auto text = isolation::CollectInChild([&] { return LearnFacts(settings, &*progress); },
                                        {.timeout = timeout,
                                         .confinement = confinement,
                                         .doing = doing,
                                         .plugin_path = settings.plugin_path,
                                         .process_name = "the preflight process"});
  if (!text && text.error().code() == ErrorCode::kCrashed && progress->Last() == kAskingExist) {
    return ExistCrashed(settings, doing, text.error());
  }
  if (!text) return tl::unexpected(text.error());
  return FactsFromText(*text);
}

}  // namespace sectl::conform
