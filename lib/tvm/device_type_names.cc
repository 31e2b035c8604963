// The device type names TVM uses (DLDeviceType2Str in TVM's
// include/tvm/runtime/device_api.h, with DLPack's values; see
// docs/tvm-runtime-abi.md), for --tvm-device-type and probe's listing.
#include <fmt/format.h>

#include <array>
#include <charconv>
#include <string>
#include <utility>

#include "tvm/device_api_route.h"

namespace sectl::tvm {
namespace {

constexpr std::array<std::pair<int, std::string_view>, 16> kDeviceTypes = {{
    {1, "cpu"},
    {2, "cuda"},
    {3, "cuda_host"},
    {4, "opencl"},
    {7, "vulkan"},
    {8, "metal"},
    {9, "vpi"},
    {10, "rocm"},
    {11, "rocm_host"},
    {12, "ext_dev"},
    {13, "cuda_managed"},
    {14, "oneapi"},
    {15, "webgpu"},
    {16, "hexagon"},
    {17, "maia"},
    {18, "trn"},
}};

}  // namespace

std::optional<int> DeviceTypeFromName(std::string_view name) {
  for (const auto& [type, known] : kDeviceTypes) {
    if (known == name) return type;
  }
  return std::nullopt;
}

std::string DeviceTypeName(int device_type) {
  for (const auto& [type, known] : kDeviceTypes) {
    if (type == device_type) return std::string(known);
  }
  return std::to_string(device_type);
}

const std::vector<int>& NamedDeviceTypes() {
  static const std::vector<int> types = [] {
    std::vector<int> all;
    all.reserve(kDeviceTypes.size());
    for (const auto& entry : kDeviceTypes) all.push_back(entry.first);
    return all;
  }();
  return types;
}

Expected<int> ParseDeviceType(std::string_view text) {
  if (auto named = DeviceTypeFromName(text)) return *named;
  int number = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (error == std::errc() && end == text.data() + text.size() && number >= 1 && number < 128) {
    return number;
  }
  std::string names;
  for (const auto& [type, name] : kDeviceTypes) {
    names += names.empty() ? "" : ", ";
    names += name;
  }
  return Fail(ErrorCode::kInvalidArgument,
              fmt::format("--tvm-device-type {}: not a TVM device type ({}) nor a DLDeviceType "
                          "number from 1 to 127",
                          text, names));
}

}  // namespace sectl::tvm
