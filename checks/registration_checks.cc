// Registration: what happens when TensorFlow calls SE_InitPlugin and the
// create_* functions that follow it, and what it then requires.
#include <fmt/format.h>

#include "conform/check.h"

namespace sectl::checks {
namespace {

// Findings the host runtime made while registering, whose id starts with
// one of `prefixes`, as failures.
void FailOnFindings(conform::CheckContext& check,
                    std::initializer_list<std::string_view> prefixes) {
  for (const auto& finding : check.platform().findings().all()) {
    if (finding.severity != host::Severity::kError) continue;
    for (std::string_view prefix : prefixes) {
      if (finding.id.starts_with(prefix)) check.Fail(finding.message);
    }
  }
}

}  // namespace

SECTL_CHECK("registration.init", kRequired,
            "SE_InitPlugin succeeds and the platform registers as TensorFlow registers it") {
  host::Platform& platform = check.platform();
  check.details() = {{"platform_name", platform.name()},
                     {"platform_type", platform.type()},
                     {"abi_vintage", platform.AbiVintage()}};
  FailOnFindings(check, {"registration.", "platform.", "struct_size.zero"});
  const int count = check.Require(platform.DeviceCount(), "get_device_count");
  check.details()["device_count"] = count;
  check.Expect(count >= 1, fmt::format("get_device_count reported {} devices: TensorFlow would "
                                       "register the platform but create no device",
                                       count));
}

SECTL_CHECK("registration.version_fields", kRecommended,
            "SE_InitPlugin leaves the host's version fields as the host wrote them") {
  const host::Platform& platform = check.platform();
  const auto& offered = platform.version_offered();
  const auto& after = platform.version_after_init();
  check.details() = {
      {"offered", fmt::format("{}.{}.{}", offered.major, offered.minor, offered.patch)},
      {"after_init", fmt::format("{}.{}.{}", after.major, after.minor, after.patch)}};
  if (offered.major != after.major || offered.minor != after.minor ||
      offered.patch != after.patch) {
    check.Warn(fmt::format(
        "SE_InitPlugin overwrote the host's version {}.{}.{} with {}.{}.{}: SE_* structs belong to "
        "the host, and a host that checks the plugin's answer would misread it (TensorFlow "
        "itself never reads the fields back)",
        offered.major, offered.minor, offered.patch, after.major, after.minor, after.patch));
  }
}

SECTL_CHECK("registration.required_callbacks", kRequired,
            "Every function the chosen TensorFlow generation validates or calls unconditionally "
            "is set") {
  FailOnFindings(check, {"required."});
  nlohmann::json missing = nlohmann::json::array();
  for (const auto& finding : check.platform().findings().all()) {
    if (finding.id.starts_with("required.")) missing.push_back(finding.id.substr(9));
  }
  check.details() = {{"tf_version", check.generation().id}, {"missing", missing}};
}

}  // namespace sectl::checks
