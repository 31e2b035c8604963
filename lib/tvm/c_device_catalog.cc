#include "tvm/c_device_catalog.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "loader/exported_symbols.h"

namespace sectl::tvm {
namespace {

// "_Z21TVMDeviceWooflesClosePv" -> "TVMDeviceWooflesClose": the plain name
// inside an Itanium-mangled free function, if it is one.
std::optional<std::string> PlainNameOfMangled(const std::string& symbol) {
  if (!symbol.starts_with("_Z")) return std::nullopt;
  size_t at = 2;
  size_t length = 0;
  while (at < symbol.size() && std::isdigit(static_cast<unsigned char>(symbol[at])) != 0) {
    length = length * 10 + static_cast<size_t>(symbol[at] - '0');
    ++at;
  }
  if (length == 0 || at + length > symbol.size()) return std::nullopt;
  return symbol.substr(at, length);
}

CDeviceEntry& EntryFor(std::vector<CDeviceEntry>& devices, const std::string& c_name) {
  auto found = std::find_if(devices.begin(), devices.end(),
                            [&](const CDeviceEntry& entry) { return entry.c_name == c_name; });
  if (found != devices.end()) return *found;
  devices.push_back({c_name, {}, {}});
  return devices.back();
}

}  // namespace

std::vector<Hook> CDeviceEntry::MissingGeneratedCodeHooks() const {
  std::vector<Hook> missing;
  for (Hook hook : kGeneratedCodeHooks) {
    if (!Exports(hook)) missing.push_back(hook);
  }
  return missing;
}

const CDeviceEntry* CDeviceCatalog::Find(std::string_view c_name) const {
  for (const auto& entry : devices) {
    if (entry.c_name == c_name) return &entry;
  }
  return nullptr;
}

CDeviceCatalog CatalogFromSymbols(const std::vector<std::string>& functions) {
  CDeviceCatalog catalog;
  for (const auto& symbol : functions) {
    if (auto parts = ParseHookSymbol(symbol)) {
      EntryFor(catalog.devices, parts->c_name).exported[static_cast<size_t>(parts->hook)] = true;
    }
  }
  for (const auto& symbol : functions) {
    auto plain = PlainNameOfMangled(symbol);
    if (!plain) continue;
    auto parts = ParseHookSymbol(*plain);
    if (!parts) continue;
    CDeviceEntry& entry = EntryFor(catalog.devices, parts->c_name);
    if (!entry.Exports(parts->hook)) entry.cxx_linkage_only.push_back(parts->hook);
  }
  std::sort(catalog.devices.begin(), catalog.devices.end(),
            [](const auto& a, const auto& b) { return a.c_name < b.c_name; });
  return catalog;
}

Expected<CDeviceCatalog> ReadCDeviceCatalog(const std::string& path) {
  auto functions = loader::ExportedFunctions(path);
  if (!functions) return tl::unexpected(functions.error());
  return CatalogFromSymbols(*functions);
}

Expected<DevicesUnderTest> ChooseDevicesUnderTest(const CDeviceCatalog& catalog,
                                                  const std::string& requested) {
  if (catalog.devices.empty()) {
    return Fail(ErrorCode::kNotFound,
                "the plugin exports no TVM C Device API hooks (TVMDevice<Name><Hook>)");
  }
  std::string device = catalog.devices.front().c_name;
  if (!requested.empty()) {
    // Either the target name TVM would convert, or the C name as written.
    const CDeviceEntry* entry = catalog.Find(requested);
    if (entry == nullptr) entry = catalog.Find(CDeviceName(requested));
    if (entry == nullptr) {
      std::string names;
      for (const auto& each : catalog.devices) {
        names += (names.empty() ? "" : ", ") + each.c_name;
      }
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("--tvm-device {}: the plugin has no such device (TVM's C name for "
                              "it is {}); it provides: {}",
                              requested, CDeviceName(requested), names));
    }
    device = entry->c_name;
  }
  DevicesUnderTest chosen{device, std::nullopt};
  for (const auto& entry : catalog.devices) {
    if (entry.c_name != device) {
      chosen.second = entry.c_name;
      break;
    }
  }
  return chosen;
}

}  // namespace sectl::tvm
