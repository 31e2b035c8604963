#include "probe/tvm_runtime_probe.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <link.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <set>

#include "base/text_layout.h"
#include "isolation/child_progress.h"
#include "isolation/collect_in_child.h"
#include "loader/plugin_file_pin.h"
#include "loader/plugin_library.h"
#include "loader/tvm_backend_library.h"
#include "tvm/runtime_route.h"

namespace sectl::probe {
namespace {

// Device ids asked about per device type: TVM's CPU backend answers kExist
// 1 for every id, so the listing stops here and says there are more.
constexpr int kMostIdsListed = 4;

nlohmann::json AttributeJson(const Expected<tvm::AttrValue>& value) {
  if (!value) return {{"error", value.error().message()}};
  if (const auto* number = std::get_if<int64_t>(&*value)) return *number;
  if (const auto* text = std::get_if<std::string>(&*value)) return *text;
  return nullptr;  // TVM's None: the backend cannot answer it
}

// The file of TVM's core among what loading `library` brought in (the
// first loaded object whose file name is one of `core_names`), or "".
std::string LoadedCorePath(const loader::PluginLibrary& library,
                           const std::vector<std::string>& core_names) {
  void* handle = ::dlopen(library.path().c_str(), RTLD_NOW | RTLD_NOLOAD);
  link_map* map = nullptr;
  if (handle == nullptr || ::dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr) {
    return "";
  }
  for (; map->l_prev != nullptr; map = map->l_prev) {
  }
  for (; map != nullptr; map = map->l_next) {
    const std::string name = map->l_name == nullptr ? "" : map->l_name;
    const std::string file = std::filesystem::path(name).filename().string();
    if (std::find(core_names.begin(), core_names.end(), file) != core_names.end()) return name;
  }
  return "";
}

// What the child learns; runs the runtime's code. kExist is not asked for
// the types in `skipped` (it crashed for them before); `progress` hears
// "kExist(<type>)" before each type's.
Expected<nlohmann::json> Collect(const TvmRuntimeProbeOptions& options,
                                 const std::set<int>& skipped, isolation::ChildProgress* progress) {
  auto library = loader::PluginLibrary::Open(
      options.path,
      {.lazy = options.lazy, .abi = loader::PluginAbi::kTvmRuntime, .tvm_core = options.tvm_core});
  if (!library) return tl::unexpected(library.error());
  nlohmann::json probe;
  probe["plugin"] = options.path;
  probe["abi"] = "tvm-runtime";
  probe["route"] = tvm::RuntimeFlavourName(tvm::RecogniseRuntimeFlavour(*library));
  if (!library->signal_handlers_note().empty()) {
    probe["signal_handlers"] = library->signal_handlers_note();
  }
  if (auto backend = loader::ReadTvmBackendLibrary(options.path)) {
    probe["backend"] = {{"core", LoadedCorePath(*library, backend->core_libraries)}};
  }
  probe["registered"] = tvm::RegisteredDeviceTypes(*library);
  probe["device_types"] = nlohmann::json::array();
  for (int type : tvm::NamedDeviceTypes()) {
    if (skipped.contains(type)) continue;
    auto route = tvm::OpenRuntimeRoute(*library, type);
    if (!route) return tl::unexpected(route.error());
    nlohmann::json entry{{"type", type}, {"name", tvm::DeviceTypeName(type)}};
    entry["devices"] = nlohmann::json::array();
    int id = 0;
    for (; id < kMostIdsListed; ++id) {
      if (progress != nullptr) progress->Say(fmt::format("kExist({})", type));
      auto exists = (*route)->GetAttr(id, tvm::DeviceAttrKind::kExist);
      const auto* present = exists ? std::get_if<int64_t>(&*exists) : nullptr;
      if (present == nullptr || *present == 0) {
        if (!exists) entry["kExist_error"] = exists.error().message();
        break;
      }
      nlohmann::json device{{"id", id}, {"attributes", nlohmann::json::object()}};
      for (int kind = 1; kind < tvm::kDeviceAttrKindCount; ++kind) {
        const auto attribute = static_cast<tvm::DeviceAttrKind>(kind);
        device["attributes"][std::string(tvm::DeviceAttrName(attribute))] =
            AttributeJson((*route)->GetAttr(id, attribute));
      }
      entry["devices"].push_back(std::move(device));
    }
    if (progress != nullptr) progress->Say("");
    if (entry["devices"].empty() && !entry.contains("kExist_error")) continue;
    entry["more_ids"] = id == kMostIdsListed;
    probe["device_types"].push_back(std::move(entry));
  }
  return probe;
}

// Runs `collect` in a child (or here, unisolated), parsed.
Expected<nlohmann::json> CollectJson(const TvmRuntimeProbeOptions& options,
                                     const std::function<Expected<nlohmann::json>()>& collect) {
  if (!options.isolate) return collect();
  auto text = isolation::CollectInChild(
      [&]() -> Expected<std::string> {
        auto collected = collect();
        if (!collected) return tl::unexpected(collected.error());
        return collected->dump();
      },
      {.timeout = options.timeout,
       .confinement = options.confinement,
       .doing = "the TVM runtime, while being probed,",
       .plugin_path = options.path,
       .process_name = "the probe process"});
  if (!text) return tl::unexpected(text.error());
  auto probe = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (probe.is_discarded()) return Fail(ErrorCode::kInternal, "the probe's report is not JSON");
  return probe;
}

// The probe, a crashing kExist guarded: a child that crashed while asking
// kExist for a type is run again without that type, which is reported as
// "kExist_error" (a finding of the runtime, not a load failure).
Expected<nlohmann::json> CollectGuarded(const TvmRuntimeProbeOptions& options) {
  std::set<int> skipped;
  nlohmann::json crashed = nlohmann::json::array();
  for (size_t attempt = 0; attempt <= tvm::NamedDeviceTypes().size(); ++attempt) {
    auto progress = isolation::ChildProgress::Create();
    if (!progress) return tl::unexpected(progress.error());
    auto probe = CollectJson(options, [&] { return Collect(options, skipped, &*progress); });
    const std::string last = progress->Last();
    int type = 0;
    if (!probe && options.isolate && probe.error().code() == ErrorCode::kCrashed &&
        std::sscanf(last.c_str(), "kExist(%d)", &type) == 1 && !skipped.contains(type)) {
      skipped.insert(type);
      std::string how = probe.error().message();
      if (auto at = how.find(" crashed"); at != std::string::npos) how = how.substr(at + 1);
      crashed.push_back({{"type", type},
                         {"name", tvm::DeviceTypeName(type)},
                         {"devices", nlohmann::json::array()},
                         {"kExist_error", fmt::format("kExist({}) {} in runtime.GetDeviceAttr({}, "
                                                      "0, kExist)",
                                                      type, how, type)}});
      continue;
    }
    if (!probe) return probe;
    for (auto& entry : crashed) (*probe)["device_types"].push_back(entry);
    return probe;
  }
  return Fail(ErrorCode::kCrashed,
              fmt::format("{}: kExist crashed for every device type", options.path));
}

// The device types registered by the core library alone (another child).
Expected<std::vector<int>> RegisteredByCoreAlone(const TvmRuntimeProbeOptions& options,
                                                 const std::string& core) {
  TvmRuntimeProbeOptions core_options = options;
  core_options.path = core;
  auto registered = CollectJson(core_options, [&]() -> Expected<nlohmann::json> {
    auto library = loader::PluginLibrary::Open(
        core, {.lazy = options.lazy, .abi = loader::PluginAbi::kTvmRuntime});
    if (!library) return tl::unexpected(library.error());
    return nlohmann::json(tvm::RegisteredDeviceTypes(*library));
  });
  if (!registered) return tl::unexpected(registered.error());
  return registered->get<std::vector<int>>();
}

}  // namespace

Expected<nlohmann::json> ProbeTvmRuntime(const TvmRuntimeProbeOptions& options) {
  const auto pinned = loader::PinPluginFile(options.path);
  if (!pinned) return tl::unexpected(pinned.error());
  auto probe = CollectGuarded(options);
  if (!probe) return probe;
  (*probe)["sha256"] = pinned->sha256();
  if (probe->contains("backend")) {
    // What the backend adds: what it registers that its core alone lacks.
    auto& backend = (*probe)["backend"];
    const std::string core = backend.value("core", "");
    auto core_registered = core.empty() ? Expected<std::vector<int>>(std::vector<int>{})
                                        : RegisteredByCoreAlone(options, core);
    if (core_registered) {
      nlohmann::json added = nlohmann::json::array();
      for (int type : (*probe)["registered"].get<std::vector<int>>()) {
        if (std::find(core_registered->begin(), core_registered->end(), type) ==
            core_registered->end()) {
          added.push_back(type);
        }
      }
      backend["device_types_added"] = added;
    } else {
      backend["core_error"] = core_registered.error().message();
    }
  } else if (auto beside = loader::BackendLibrariesBeside(options.path); !beside.empty()) {
    (*probe)["backends_beside"] = beside;
  }
  return probe;
}

namespace {

constexpr size_t kValueColumn = 30;  // where an attribute's value starts

// A device's attributes, in DeviceAttrKind's order (not the JSON object's
// alphabetical one): each answered one on its own row, and the kinds the
// backend leaves None together on one row, as most backends answer few.
std::string RenderAttributes(const nlohmann::json& attributes, size_t width) {
  std::string out;
  std::string unanswered;
  for (int kind = 1; kind < tvm::kDeviceAttrKindCount; ++kind) {
    const std::string name(tvm::DeviceAttrName(static_cast<tvm::DeviceAttrKind>(kind)));
    if (!attributes.contains(name)) continue;
    const auto& value = attributes[name];
    if (value.is_null()) {
      unanswered += fmt::format("{}{}", unanswered.empty() ? "" : ", ", name);
      continue;
    }
    const std::string shown =
        value.is_object() ? "error: " + value.value("error", "") : value.dump();
    out += WrapLine(fmt::format("    {:<26}{}", name, shown), width, kValueColumn) + "\n";
  }
  if (!unanswered.empty()) {
    out += WrapLine(fmt::format("    {:<26}{}", "None (not answered)", unanswered), width,
                    kValueColumn) +
           "\n";
  }
  return out;
}

}  // namespace

std::string RenderTvmRuntimeProbeTable(const nlohmann::json& probe, size_t width) {
  std::string out;
  out += fmt::format("TVM runtime  {}\n", probe.value("plugin", ""));
  out += fmt::format("SHA-256      {}\n", probe.value("sha256", ""));
  out += fmt::format("Route        {}\n", probe.value("route", ""));
  std::vector<int> added;
  if (probe.contains("backend")) {
    const auto& backend = probe["backend"];
    out += WrapLine(fmt::format("Backend      a TVM backend library (v0.25+) over the core {}",
                                backend.value("core", "(not found among what it loaded)")),
                    width, 13) +
           "\n";
    if (backend.contains("device_types_added")) {
      added = backend["device_types_added"].get<std::vector<int>>();
      std::string names;
      for (int type : added) {
        names +=
            fmt::format("{}{} ({})", names.empty() ? "" : ", ", tvm::DeviceTypeName(type), type);
      }
      out += WrapLine(fmt::format("Adds         {}",
                                  names.empty() ? "no DeviceAPI the core lacks" : names),
                      width, 13) +
             "\n";
    } else if (backend.contains("core_error")) {
      out +=
          WrapLine("Adds         unknown: " + backend["core_error"].get<std::string>(), width, 13) +
          "\n";
    }
  }
  if (probe.contains("backends_beside")) {
    std::string names;
    for (const auto& path : probe["backends_beside"]) {
      names += fmt::format("{}{}", names.empty() ? "" : ", ",
                           std::filesystem::path(path.get<std::string>()).filename().string());
    }
    out += WrapLine(fmt::format("Backends     beside it: {}; their devices need the backend "
                                "library (point sectl at it)",
                                names),
                    width, 13) +
           "\n";
  }
  if (probe.contains("signal_handlers")) {
    out +=
        WrapLine("Signals      " + probe["signal_handlers"].get<std::string>(), width, 13) + "\n";
  }
  const auto& types = probe["device_types"];
  if (types.empty()) out += "\nNo device type answers kExist 1 for device 0.\n";
  // Types whose kExist failed outright (TVM cannot name DLPack's newest
  // ones) are listed together at the end, not as sections of their own.
  std::string failed;
  for (const auto& type : types) {
    if (type["devices"].empty() && type.contains("kExist_error")) {
      failed +=
          fmt::format("{}{} ({}): {}", failed.empty() ? "" : "; ", type["name"].get<std::string>(),
                      type["type"].get<int>(), type["kExist_error"].get<std::string>());
      continue;
    }
    std::string ids;
    for (const auto& device : type["devices"]) {
      ids += fmt::format("{}{}", ids.empty() ? "" : ", ", device["id"].get<int>());
    }
    const bool from_backend =
        std::find(added.begin(), added.end(), type["type"].get<int>()) != added.end();
    const std::string heading = fmt::format(
        "{} ({}): device{} {}{}{}", type["name"].get<std::string>(), type["type"].get<int>(),
        type["devices"].size() == 1 ? "" : "s", ids.empty() ? "none" : ids,
        type.value("more_ids", false) ? ", ... (kExist is 1 for every id asked)" : "",
        from_backend ? "  [this backend library]" : "");
    out += "\n" + WrapLine(heading, width, 2) + "\n";
    if (type.contains("kExist_error")) {
      out += WrapLine(fmt::format("  kExist failed: {}", type["kExist_error"].get<std::string>()),
                      width, 4) +
             "\n";
    }
    const nlohmann::json* previous = nullptr;
    for (const auto& device : type["devices"]) {
      const int id = device["id"].get<int>();
      if (previous != nullptr && (*previous)["attributes"] == device["attributes"]) {
        out += fmt::format("  device {:<21}the same attributes as device {}\n", id,
                           (*previous)["id"].get<int>());
        continue;
      }
      out += fmt::format("  device {}\n", id);
      out += RenderAttributes(device["attributes"], width);
      previous = &device;
    }
  }
  if (!failed.empty()) out += "\n" + WrapLine("kExist failed for " + failed, width, 2) + "\n";
  return out;
}

}  // namespace sectl::probe
