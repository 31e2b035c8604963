// Devices: how many there are, and what create_device hands out for each.
//
// TensorFlow reads the count lazily and repeatedly (get_device_count is
// called for ListPhysicalDevices, for device creation, and after every
// create_device), creates each device by ordinal, and from then on passes
// its own copy of the SP_Device the plugin filled: the ordinal and
// device_handle in it are all the plugin gets back.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <vector>

#include "conform/check.h"
#include "host/compatibility.h"
#include "host/unusual_calls.h"

namespace sectl::checks {
namespace {

// Enough calls to see a count that changes from call to call.
constexpr int kCountReadings = 6;

// Ordinals beyond this are not created one by one (the check stays fast on
// a machine with very many devices).
constexpr int kMostOrdinalsCreated = 64;

// "1 device", "2 devices"
std::string Devices(int count) {
  return count == 1 ? "1 device" : fmt::format("{} devices", count);
}

// get_device_count, or the check stops: the count is needed to go on.
int RequireDeviceCount(conform::CheckContext& check) {
  return check.Require(check.platform().DeviceCount(), "get_device_count");
}

// The count, when there is at least one device to look at; otherwise the
// check steps aside for registration.init, which reports a plugin without
// devices.
int RequireSomeDevices(conform::CheckContext& check) {
  const int count = RequireDeviceCount(check);
  if (count < 1) {
    check.Skip(
        fmt::format("get_device_count reports {} (registration.init reports it)", Devices(count)));
  }
  return count;
}

// Reports `behaviour` as its one judgement says: a failure where it harms a
// released TensorFlow, a warning where it does not (as `sectl probe` does).
void ReportDeviceBehaviour(conform::CheckContext& check, host::DeviceBehaviour behaviour,
                           const std::string& what_happened) {
  const auto& judgement = host::JudgeDeviceBehaviour(behaviour);
  if (judgement.severity == host::Severity::kError) {
    check.Fail(what_happened);
  } else {
    check.Warn(fmt::format("{} ({})", what_happened, judgement.reason));
  }
}

}  // namespace

SECTL_CHECK("device.count", kRequired,
            "get_device_count reports at least one device, and the same number on every call",
            .tests = {kGetDeviceCount},
            .severity_reason =
                "TensorFlow 2.5 and later call get_device_count for every device listing and "
                "after every create_device: 0 devices means the platform is unusable, and a "
                "changing count makes devices appear and vanish between those calls",
            .establishes =
                "`get_device_count` reports at least 1 device, and the same number on 6 calls in "
                "a row",
            .common_mistakes =
                "A count read from an enumeration that races or flickers (a device probed while "
                "it resets, a driver queried without a lock), so that it differs from call to "
                "call; the faulty plugin alternates between the truth and one more from its "
                "third call. A count of 0 when the hardware or its driver is missing, leaving a "
                "platform with no device.",
            .how_to_fix =
                "Enumerate devices once, in `SE_InitPlugin` or on the first call, and return "
                "that number from then on; report the hardware that is really usable.",
            .proven_by = "`UNSTABLE_DEVICE_COUNT`") {
  std::vector<int> counts;
  counts.reserve(kCountReadings);
  for (int i = 0; i < kCountReadings; ++i) counts.push_back(RequireDeviceCount(check));
  check.details() = {{"counts", counts}};
  check.Expect(counts.front() >= 1,
               fmt::format("get_device_count reports {}: TensorFlow registers the "
                           "platform but creates no device",
                           Devices(counts.front())));
  const bool stable =
      std::all_of(counts.begin(), counts.end(), [&](int count) { return count == counts.front(); });
  check.Expect(stable, fmt::format("get_device_count answered {} on {} calls in a row: TensorFlow "
                                   "calls it lazily and again and again (listing devices, creating "
                                   "them, after every create_device), so devices appear and vanish "
                                   "between those calls",
                                   fmt::join(counts, ", "), kCountReadings));
}

SECTL_CHECK("device.create_every_ordinal", kRequired,
            "create_device succeeds for every ordinal below the count, and fills in that ordinal "
            "and a device handle",
            .tests = {kCreateDevice},
            .severity_reason =
                "TensorFlow 2.5 and later create every ordinal below the count on first use "
                "(GetUncachedExecutor): a failure makes that device unusable. An SP_Device.ordinal "
                "left unset is only a warning (see device.ordinal_mismatch in probe)",
            .establishes =
                "`create_device` succeeds for every ordinal below the count (up to 64) and fills "
                "`SP_Device` with that ordinal; an ordinal left unfilled warns, and a null "
                "`device_handle` is no finding (TensorFlow never reads it)",
            .common_mistakes =
                "Leaving `SP_Device.ordinal` as the host pre-filled it (0), so that only a "
                "second device shows it: TensorFlow then passes that `SP_Device` to every later "
                "call, and a plugin that reads `device->ordinal` works on device 0.",
            .how_to_fix =
                "Set `params->device->ordinal = params->ordinal` and whatever the device needs "
                "in `device_handle` (TensorFlow copies the struct and passes the copy to later "
                "calls, so keep per-device state behind the handle, not at the struct's "
                "address).",
            .proven_by = "`ORDINAL_NOT_SET`") {
  host::Platform& platform = check.platform();
  const int count = RequireSomeDevices(check);
  const int created = std::min(count, kMostOrdinalsCreated);
  nlohmann::json devices = nlohmann::json::array();
  // One at a time (--device picks the device other checks use; this check
  // covers them all).
  for (int ordinal = 0; ordinal < created; ++ordinal) {
    auto device = platform.CreateDevice(ordinal);
    if (!device) {
      check.Fail(fmt::format("create_device for ordinal {} of {} failed: {}", ordinal, count,
                             device.error().message()));
      continue;
    }
    const host::Device& made = **device;
    devices.push_back({{"ordinal", ordinal},
                       {"reported_ordinal", made.reported_ordinal()},
                       {"device_handle_set", made.device_handle() != nullptr},
                       {"hardware_name", made.hardware_name()}});
    if (made.reported_ordinal() != ordinal) {
      ReportDeviceBehaviour(
          check, host::DeviceBehaviour::kOrdinalNotFilled,
          fmt::format("create_device for ordinal {} left SP_Device.ordinal = {}: TensorFlow "
                      "passes this SP_Device to every later call, so a plugin that reads "
                      "device->ordinal works on the wrong device",
                      ordinal, made.reported_ordinal()));
    }
    // A null device_handle is no finding: TensorFlow never reads it, and
    // plugins that keep their state elsewhere (TensorFlow's own test plugin,
    // the community sample) leave it null. details.devices records it.
  }
  check.details() = {{"device_count", count}, {"devices", devices}};
  if (created < count) check.details()["not_created"] = count - created;
}

SECTL_CHECK(
    "device.out_of_range", kRecommended,
    "create_device for an ordinal at or beyond the count fails cleanly and hands out no "
    "device",
    .tests = {kCreateDevice},
    .severity_reason =
        "No released TensorFlow asks for an ordinal at or beyond get_device_count, so a "
        "fixed count that ignores the ordinal harms none; an exception across the C API "
        "is still a failure (TensorFlow terminates)",
    .establishes =
        "`create_device` for ordinals `count` and `count+1` fails with a non-OK status; "
        "a success, or a failure that leaves a `device_handle` behind, warns, and a C++ "
        "exception thrown across the C API fails",
    .common_mistakes =
        "A `create_device` that ignores the ordinal (a fixed count with one device for "
        "every ordinal). In C++, validating the ordinal by throwing (`std::vector::at`) "
        "instead of setting an error status: TensorFlow calls the plugin from C++ code "
        "without a handler, and the process ends in `std::terminate`.",
    .how_to_fix =
        "Check `params->ordinal` against the device count and refuse an ordinal out of "
        "range with `TF_SetStatus(status, TF_INVALID_ARGUMENT, ...)`; catch every C++ "
        "exception inside the plugin and turn it into a status.",
    .proven_by = "`OUT_OF_RANGE_SUCCEEDS` (warns), `THROWS_FROM_CREATE_DEVICE` (fails)",
    .unusual_use =
        "TensorFlow asks create_device only for ordinals below what get_device_count reported") {
  host::Platform& platform = check.platform();
  const int count = RequireSomeDevices(check);
  nlohmann::json answers = nlohmann::json::array();
  std::vector<int> handed_out;
  // The count itself and the one after it; a plugin that reports INT_MAX
  // devices has no ordinal after its count.
  std::vector<int> ordinals{count};
  if (count < std::numeric_limits<int>::max()) ordinals.push_back(count + 1);
  for (int ordinal : ordinals) {
    const uint64_t exceptions_before = check.journal().exception_count();
    host::UnusualCalls::CreatedDevice answer = host::UnusualCalls::CreateDevice(platform, ordinal);
    if (check.journal().exception_count() != exceptions_before) {
      // Not a refusal: inside TensorFlow an exception across the C API is
      // std::terminate, whatever the ordinal.
      check.Abort(fmt::format(
          "create_device for ordinal {} (beyond the {}) threw a C++ exception across the C API "
          "instead of setting an error status: TensorFlow calls it from C++ code that cannot "
          "catch it, and the process terminates; refuse with a non-OK TF_Status",
          ordinal, Devices(count)));
    }
    answers.push_back({{"ordinal", ordinal},
                       {"status", answer.status ? "OK" : answer.status.error().message()},
                       {"device_handle_set", answer.device.device_handle != nullptr}});
    if (answer.status) {
      handed_out.push_back(ordinal);
      host::UnusualCalls::DestroyDevice(platform, answer.device);
    } else if (answer.device.device_handle != nullptr) {
      check.Warn(fmt::format(
          "create_device for ordinal {} failed but left a device_handle in SP_Device: "
          "TensorFlow never destroys a device whose creation failed, so whatever the handle "
          "points to leaks",
          ordinal));
    }
  }
  if (!handed_out.empty()) {
    ReportDeviceBehaviour(
        check, host::DeviceBehaviour::kOutOfRangeOrdinalAccepted,
        fmt::format(
            "create_device succeeded for ordinal {} although get_device_count reports {}: the "
            "count "
            "is read again and again, and when it shrinks TensorFlow must get an error for the "
            "vanished ordinal, not a device that does not exist",
            fmt::join(handed_out, " and "), Devices(count)));
  }
  check.details() = {{"device_count", count}, {"answers", answers}};
}

}  // namespace sectl::checks
