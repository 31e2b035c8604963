#include "probe/tvm_runtime_probe.h"

#include <fmt/format.h>

#include "base/text_layout.h"
#include "isolation/collect_in_child.h"
#include "loader/plugin_file_pin.h"
#include "loader/plugin_library.h"
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

// What the child learns; runs the runtime's code.
Expected<nlohmann::json> Collect(const TvmRuntimeProbeOptions& options) {
  auto library = loader::PluginLibrary::Open(
      options.path, {.lazy = options.lazy, .abi = loader::PluginAbi::kTvmRuntime});
  if (!library) return tl::unexpected(library.error());
  nlohmann::json probe;
  probe["plugin"] = options.path;
  probe["abi"] = "tvm-runtime";
  probe["route"] = tvm::RuntimeFlavourName(tvm::RecogniseRuntimeFlavour(*library));
  probe["device_types"] = nlohmann::json::array();
  for (int type : tvm::NamedDeviceTypes()) {
    auto route = tvm::OpenRuntimeRoute(*library, type);
    if (!route) return tl::unexpected(route.error());
    nlohmann::json entry{{"type", type}, {"name", tvm::DeviceTypeName(type)}};
    entry["devices"] = nlohmann::json::array();
    int id = 0;
    for (; id < kMostIdsListed; ++id) {
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
    if (entry["devices"].empty() && !entry.contains("kExist_error")) continue;
    entry["more_ids"] = id == kMostIdsListed;
    probe["device_types"].push_back(std::move(entry));
  }
  return probe;
}

}  // namespace

Expected<nlohmann::json> ProbeTvmRuntime(const TvmRuntimeProbeOptions& options) {
  const auto pinned = loader::PinPluginFile(options.path);
  if (!pinned) return tl::unexpected(pinned.error());
  Expected<nlohmann::json> probe = nlohmann::json();
  if (!options.isolate) {
    probe = Collect(options);
  } else {
    auto text = isolation::CollectInChild(
        [&]() -> Expected<std::string> {
          auto collected = Collect(options);
          if (!collected) return tl::unexpected(collected.error());
          return collected->dump();
        },
        {.timeout = options.timeout,
         .confinement = options.confinement,
         .doing = "the TVM runtime, while being probed,",
         .plugin_path = options.path,
         .process_name = "the probe process"});
    if (!text) return tl::unexpected(text.error());
    probe = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (probe->is_discarded()) return Fail(ErrorCode::kInternal, "the probe's report is not JSON");
  }
  if (!probe) return probe;
  (*probe)["sha256"] = pinned->sha256();
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
    const std::string heading = fmt::format(
        "{} ({}): device{} {}{}", type["name"].get<std::string>(), type["type"].get<int>(),
        type["devices"].size() == 1 ? "" : "s", ids.empty() ? "none" : ids,
        type.value("more_ids", false) ? ", ... (kExist is 1 for every id asked)" : "");
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
