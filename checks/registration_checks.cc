// Registration: what happens when TensorFlow calls SE_InitPlugin and the
// create_* functions that follow it, what it then requires, and how the
// plugin negotiates the API version with its host.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <vector>

#include "conform/check.h"
#include "host/compatibility.h"
#include "host/unusual_calls.h"

namespace sectl::checks {
namespace {

using abi::PluginFunction;

std::string VersionText(const host::VersionFields& version) {
  return fmt::format("{}.{}.{}", version.major, version.minor, version.patch);
}

// A host of the next major version: by the API's versioning strategy, one
// whose structs this plugin cannot know.
constexpr host::VersionFields kNextMajorVersion{SE_MAJOR + 1, SE_MINOR, SE_PATCH};
// A host of a newer minor version: only additions, so a plugin should accept it.
constexpr host::VersionFields kNextMinorVersion{SE_MAJOR, SE_MINOR + 1, SE_PATCH};

// An SE_InitPlugin call offering `offered`, in the check's journal.
class InitCall : public host::InitOnlyRegistration {
 public:
  InitCall(conform::CheckContext& check, const host::VersionFields& offered)
      : InitOnlyRegistration(check.journal(), check.library().init_plugin(), offered,
                             check.server()) {}

  bool RegisteredNothing() const { return RegisteredMembers().empty(); }
  bool RegisteredEverything() const { return RegisteredMembers().size() == 4; }

  nlohmann::json Describe() const {
    return {{"offered", VersionText(offered())},
            {"status", succeeded() ? "OK" : error()},
            {"registered", RegisteredMembers()}};
  }
};

}  // namespace

SECTL_CHECK("registration.init", kRequired,
            "SE_InitPlugin succeeds and the platform registers as TensorFlow registers it",
            .tests = {kInitPlugin, kCreateDeviceFns, kCreateStreamExecutor, kCreateTimerFns,
                      kGetDeviceCount},
            .severity_reason =
                "TensorFlow 2.5 and later refuse to register a plugin whose SE_InitPlugin or "
                "create_* call fails or whose platform name or type is invalid: the device never "
                "appears (create_timer_fns only for 2.5 to 2.15, which call it)",
            .establishes =
                "`SE_InitPlugin`, offered version 0.0.1 as every released TensorFlow offers it, "
                "succeeds and registers a platform: `name` and `type` set and matching "
                "`[A-Z][A-Z_]*`, `destroy_platform` and `destroy_platform_fns` set; "
                "`create_device_fns` and `create_stream_executor` (and `create_timer_fns`, for a "
                "generation that calls it) succeed; `get_device_count` reports at least 1 device",
            .common_mistakes =
                "A platform name or type in mixed case or with punctuation: the community "
                "tutorial's `SE_InitPlugin` example uses the type \"MyDevice\", which TensorFlow "
                "refuses (the faulty plugin uses \"Faulty-Device\"). The same example takes "
                "`name` and `type` from a local `std::string`'s `c_str()`, which dangles once "
                "`SE_InitPlugin` returns.",
            .how_to_fix =
                "Give `name` and `type` upper-case letters and `_` only (\"MY_DEVICE\"), from "
                "string literals or storage that lives as long as the plugin is loaded; set "
                "`destroy_platform` and `destroy_platform_fns`; leave the status OK on every "
                "create_* function that succeeds; and report at least one device from "
                "`get_device_count`.",
            .proven_by = "`INVALID_PLATFORM_NAME`") {
  host::Platform& platform = check.platform();
  check.details() = {{"platform_name", platform.name()},
                     {"platform_type", platform.type()},
                     {"abi_vintage", platform.AbiVintage()}};
  // A zero struct_size is struct_size.zero's to report; create_timer_fns
  // only matters to a generation that calls it.
  for (const auto& finding : platform.findings().all()) {
    if (finding.severity != host::Severity::kError) continue;
    if (finding.id == "platform.create_timer_fns.failed") {
      if (check.generation().calls_create_timer_fns)
        check.FailIn(PluginFunction::kCreateTimerFns, finding.message);
      continue;
    }
    if (finding.id.starts_with("platform.create_device_fns.")) {
      check.FailIn(PluginFunction::kCreateDeviceFns, finding.message);
    } else if (finding.id.starts_with("platform.create_stream_executor.")) {
      check.FailIn(PluginFunction::kCreateStreamExecutor, finding.message);
    } else if (finding.id.starts_with("registration.") || finding.id.starts_with("platform.")) {
      check.FailIn(PluginFunction::kInitPlugin, finding.message);
    }
  }
  const int count = check.Require(platform.DeviceCount(), "get_device_count");
  check.details()["device_count"] = count;
  if (count < 1) {
    check.FailIn(PluginFunction::kGetDeviceCount,
                 fmt::format("get_device_count reported {} devices: TensorFlow would "
                             "register the platform but create no device",
                             count));
  }
}

SECTL_CHECK("registration.version_fields", kInfo,
            "SE_InitPlugin leaves the host's version fields as the host wrote them",
            .tests = {kInitPlugin},
            .severity_reason =
                "No released TensorFlow reads the version fields back after "
                "SE_InitPlugin; only the API's versioning strategy asks for it",
            .establishes =
                "after `SE_InitPlugin`, the host's `major_version`, `minor_version` and "
                "`patch_version` in `SE_PlatformRegistrationParams` still read what the host "
                "wrote (0.0.1); a change warns",
            .common_mistakes =
                "Writing the plugin's own version into the host's fields: the DirectML plugin "
                "overwrites `major_version`, `minor_version` and `patch_version` with its plugin "
                "version. The faulty plugin writes 1.4.2.",
            .how_to_fix =
                "Read the version fields, never write them: they say which API the host speaks. "
                "Report the plugin's own version some other way, for example in a log line.",
            .proven_by = "`OVERWRITES_VERSION`") {
  const host::Platform& platform = check.platform();
  const auto& offered = platform.version_offered();
  const auto& after = platform.version_after_init();
  check.details() = {{"offered", VersionText(offered)}, {"after_init", VersionText(after)}};
  if (offered.major != after.major || offered.minor != after.minor ||
      offered.patch != after.patch) {
    check.Warn(fmt::format(
        "SE_InitPlugin overwrote the host's version {} with {}: SE_* structs belong to the host, "
        "and a host that checks the plugin's answer would misread it (TensorFlow itself never "
        "reads the fields back)",
        VersionText(offered), VersionText(after)));
  }
}

SECTL_CHECK("registration.required_callbacks", kRequired,
            "Every function the chosen TensorFlow generation validates or calls unconditionally "
            "is set where that generation reads it",
            .tests = {},
            .severity_reason =
                "The selected generation (2.5, 2.7, 2.10 or latest): it refuses to register a "
                "plugin without a member it validates, crashes calling a null member it calls "
                "without a check, and calls the wrong function where its layout differs from the "
                "plugin's (2.5 reads host_callback where a 288-byte plugin put mem_zero)",
            .establishes =
                "read at the selected `--tf-version` generation's own offsets, every member that "
                "generation validates (it refuses the plugin without it) or calls without a null "
                "check is set; each one missing is named with what that generation would do",
            .common_mistakes =
                "Members an older generation validates left null: the timer functions, which "
                "TensorFlow 2.5 to 2.15 validate, or `mem_zero`, `memset` and `memset32`, which "
                "2.7 and later validate (the community sample, written for TensorFlow 2.6 and "
                "older, sets none of them). `destroy_timer_fns` left null although every "
                "generation calls it at teardown. A plugin built against the 288-byte header "
                "loaded by 2.5, which reads its `mem_zero` where it expects `host_callback`.",
            .how_to_fix =
                "Set every member the TensorFlow generations you support validate or call, even "
                "as a stub that sets an error status; keep `destroy_timer_fns` set even without "
                "timers. Build against the header of the oldest TensorFlow you support, or fill "
                "only the members that end within the `struct_size` the host pre-filled.",
            .proven_by = "`NO_HOST_CALLBACK`, `NO_DESTROY_TIMER_FNS`") {
  // One judgement with compat.* and the probe: the plugin's structs read at
  // the selected generation's own offsets (host/compatibility.h).
  const abi::HostGeneration& generation = check.generation();
  nlohmann::json missing = nlohmann::json::array();
  for (const auto& problem : host::JudgeRequiredMembers(generation, check.platform())) {
    if (problem.function == abi::PluginFunction::kCount) continue;
    missing.push_back({{"member", abi::InfoOf(problem.function).member},
                       {"kind", problem.kind},
                       {"message", problem.message}});
    check.FailIn(problem.function, problem.kind == "refused"
                                       ? fmt::format("{} ({} refuses to register the plugin)",
                                                     problem.message, generation.description)
                                       : problem.message);
  }
  check.details() = {{"tf_version", generation.id}, {"missing", missing}};
}

SECTL_CHECK(
    "registration.major_version", kInfo,
    "SE_InitPlugin refuses a host of another major version of the API", .tests = {kInitPlugin},
    .severity_reason =
        "Every released TensorFlow offers version 0.0.1 (SE_MAJOR never "
        "changed), so none is harmed; the versioning strategy asks for it",
    .establishes =
        "offered major version 1 (1.0.1: a host whose structs this plugin cannot know), "
        "`SE_InitPlugin` refuses, and writes nothing into the host's structs before "
        "refusing; accepting, or refusing after writing, warns",
    .common_mistakes =
        "No version check at all (TensorFlow core never checks, so nothing prompts one, "
        "although the versioning strategy's example puts the check in the plugin), or a "
        "check made only after the plugin has filled the host's structs. The faulty "
        "plugin hides the host's major version from its own check.",
    .how_to_fix =
        "First thing in `SE_InitPlugin`: when `params->major_version != SE_MAJOR`, set a "
        "non-OK status that names both versions (FAILED_PRECONDITION) and return before "
        "writing anything.",
    .proven_by = "`ACCEPTS_ANY_MAJOR`",
    .unusual_use =
        "it offers SE_InitPlugin an API version no released TensorFlow offers (all offer 0.0.1)") {
  const InitCall next_major(check, kNextMajorVersion);
  check.details() = next_major.Describe();
  if (next_major.succeeded() && !next_major.RegisteredNothing()) {
    check.Warn(fmt::format(
        "SE_InitPlugin accepted a host offering StreamExecutor C API version {} (this plugin "
        "implements major version {}): the API's versioning strategy asks a plugin to refuse "
        "another major version, because its structs may be laid out differently; a TensorFlow "
        "that bumps the major version would load this plugin and call it through a layout it "
        "was not built for",
        VersionText(next_major.offered()), SE_MAJOR));
  } else if (!next_major.succeeded() && !next_major.RegisteredNothing()) {
    check.Warn(fmt::format(
        "SE_InitPlugin refused a host offering version {}, but only after writing into its "
        "structs ({}): a host of another major version may lay them out differently, so check "
        "major_version before writing anything",
        VersionText(next_major.offered()), fmt::join(next_major.RegisteredMembers(), ", ")));
  }
}

SECTL_CHECK(
    "registration.status", kRecommended,
    "SE_InitPlugin's status is OK exactly when it registered the platform", .tests = {kInitPlugin},
    .severity_reason =
        "Every released TensorFlow offers version 0.0.1, where registration.init already "
        "judges the status; the hosts of other versions this check emulates are yet to "
        "come, and TensorFlow reads nothing but the status there",
    .establishes =
        "offered 1.0.1 and 0.1.1, `SE_InitPlugin` never returns OK having registered "
        "nothing (a silent refusal: no name, type or destroy functions), and never "
        "leaves a non-OK status after registering the platform for the compatible minor "
        "version (a stale error)",
    .common_mistakes =
        "Returning early from a refusal without setting the status: TensorFlow takes OK, "
        "then rejects the plugin for its missing `destroy_platform`, which hides the "
        "real reason. Leaving a \"warning\" in the status of a registration that went "
        "ahead: TensorFlow treats any non-OK status as failure, and reuses one "
        "`TF_Status` for all the calls of registration without resetting it.",
    .how_to_fix =
        "Set the status on every path out of `SE_InitPlugin`: a non-OK code with the "
        "reason when refusing, `TF_OK` once the platform is registered. Put warnings in "
        "a log, never in the status.",
    .proven_by = "`STATUS_NOT_SET_ON_REJECT`, `STALE_STATUS_ON_SUCCESS`",
    .unusual_use =
        "it offers SE_InitPlugin API versions no released TensorFlow offers (all offer 0.0.1)") {
  // Two hosts the plugin may accept or refuse; whichever it does, the
  // status must say so, because TensorFlow reads nothing else. One
  // registration at a time, each torn down before the next.
  check.details()["calls"] = nlohmann::json::array();
  for (const host::VersionFields& offered : {kNextMajorVersion, kNextMinorVersion}) {
    const InitCall call(check, offered);
    check.details()["calls"].push_back(call.Describe());
    if (call.succeeded() && call.RegisteredNothing()) {
      check.Warn(fmt::format(
          "SE_InitPlugin returned OK to a host offering version {} but registered nothing (no "
          "name, type, destroy_platform or destroy_platform_fns): it refused the host without "
          "saying so. TensorFlow takes OK for success and then rejects the plugin with "
          "\"'destroy_platform' field in SE_PlatformRegistrationParams must be set.\", hiding "
          "the plugin's real reason; a refusal must set a non-OK status that gives it",
          VersionText(offered)));
    }
    // Only a compatible version makes "registered, but failed" a stale
    // error; refusing another major version after writing is
    // registration.major_version's concern.
    if (offered.major == SE_MAJOR && !call.succeeded() && call.RegisteredEverything()) {
      check.Warn(fmt::format(
          "SE_InitPlugin registered the platform for a host offering version {} (a compatible "
          "minor version) yet left a non-OK status ({}): TensorFlow treats any non-OK status as "
          "failure and refuses the plugin. A success must leave the status OK; an error meant "
          "as a warning belongs in a log",
          VersionText(offered), call.error()));
    }
  }
}

}  // namespace sectl::checks
