// TVM C Device API behaviour the RFC leaves unspecified: a NULL context,
// Activate twice, Close without Open, two threads at once. Reported, not
// graded (severity info): each probe runs in a process of its own, and only
// a crash or a hang, which no application could guard against, warns.
#include <fmt/format.h>

#include <atomic>
#include <string_view>
#include <thread>

#include "tvm_c_device_support.h"

namespace sectl::conform {
namespace {

constexpr auto kProbeLimit = std::chrono::seconds(5);

// Why these checks only inform.
constexpr std::string_view kUnspecifiedReason =
    "RFC 0031 leaves this behaviour unspecified, so it is reported, not graded; only a crash "
    "or a hang, which no application could guard against, warns";

// "Activate 0, Open -1": the results of `hooks` called in order on `context`.
std::string CallInOrder(const tvm::CDeviceSession& device, std::initializer_list<tvm::Hook> hooks,
                        void* context) {
  std::string results;
  for (tvm::Hook hook : hooks) {
    const auto result = device.CallWith(hook, context);
    results += fmt::format("{}{} {}", results.empty() ? "" : ", ", tvm::HookName(hook),
                           result ? std::to_string(*result) : result.error().message());
  }
  return results;
}

// Reports a sequence probe: the results as the check's message, or a
// warning when it crashed or hung.
void ReportSequence(TvmCheckContext& check, const std::string& what,
                    const std::function<std::string()>& probe, const std::string& consequence) {
  const auto outcome = RunIsolated(check, probe, kProbeLimit);
  check.details()["probe"] = outcome.text;
  if (!outcome.answered) {
    check.Warn(fmt::format("{} {}; {}", what, outcome.text, consequence));
  } else {
    check.details()["results"] = outcome.text;
  }
}

}  // namespace

SECTL_TVM_C_DEVICE_CHECK(
    "tvm_c_device.null_context", kInfo,
    "Each generated-code hook given a NULL context fails cleanly rather than "
    "crashing (unspecified: reported)",
    .severity_reason = kUnspecifiedReason,
    .establishes =
        "each generated-code hook called with a NULL context, each in a "
        "process of its own: the results are reported, and a crash or hang "
        "warns",
    .common_mistakes =
        "Reading the context without checking it (the faulty plugin's "
        "Activate); generated code passes whatever the application put in "
        "`tvmgen_<mod>_devices`, NULL included.",
    .how_to_fix = "Check the context first and return a non-zero error for NULL.",
    .proven_by = "`NULL_CONTEXT_CRASH`") {
  auto& device = check.tvm_device();
  std::string results;
  for (tvm::Hook hook : tvm::kGeneratedCodeHooks) {
    const auto outcome = RunIsolated(
        check, [&] { return CallInOrder(device, {hook}, nullptr); }, kProbeLimit);
    results += (results.empty() ? "" : "; ") + outcome.text;
    if (!outcome.answered) {
      check.Warn(
          fmt::format("{}(NULL) {}; generated code passes whatever the application put "
                      "in tvmgen_<mod>_devices, NULL included",
                      device.SymbolOf(hook), outcome.text));
    }
  }
  check.details()["results"] = results;
}

SECTL_TVM_C_DEVICE_CHECK(
    "tvm_c_device.double_activate", kInfo,
    "Activate twice in a row, then a run, is survived (unspecified: reported)",
    .severity_reason = kUnspecifiedReason,
    .establishes =
        "Activate twice in a row, then Open, Close, Deactivate, in a process of its own: the "
        "results are reported, and a crash or hang warns",
    .common_mistakes =
        "Asserting that an idle device is never activated twice (the faulty plugin aborts); an "
        "application that retries a run re-activates a device.",
    .how_to_fix =
        "Treat a second Activate as a restart, or refuse it with a non-zero error; never abort.",
    .proven_by = "`DOUBLE_ACTIVATE_ABORT`") {
  auto& device = check.tvm_device();
  ReportSequence(
      check, "Activate, Activate, Open, Close, Deactivate",
      [&] {
        return CallInOrder(device,
                           {tvm::Hook::kActivate, tvm::Hook::kActivate, tvm::Hook::kOpen,
                            tvm::Hook::kClose, tvm::Hook::kDeactivate},
                           device.context());
      },
      "an application that retries a run re-activates a device");
}

SECTL_TVM_C_DEVICE_CHECK("tvm_c_device.close_without_open", kInfo,
                         "Close without Open is survived (unspecified: reported)",
                         .severity_reason = kUnspecifiedReason,
                         .establishes =
                             "Activate, Close without Open, Deactivate, in a process of its own: "
                             "the results are reported, and a crash or hang warns",
                         .common_mistakes =
                             "Close using the session Open would have set up without checking "
                             "that there is one (the faulty plugin).",
                         .how_to_fix =
                             "Make Close check that the device is open, and return a non-zero "
                             "error when it is not.",
                         .proven_by = "`CLOSE_WITHOUT_OPEN_CRASH`") {
  auto& device = check.tvm_device();
  ReportSequence(
      check, "Activate, Close, Deactivate",
      [&] {
        return CallInOrder(device,
                           {tvm::Hook::kActivate, tvm::Hook::kClose, tvm::Hook::kDeactivate},
                           device.context());
      },
      "a stray Close should fail, not take the application down");
}

SECTL_TVM_C_DEVICE_CHECK("tvm_c_device.two_threads", kInfo,
                         "Two threads running models at once, each with its own context, both "
                         "succeed (unspecified: reported)",
                         .severity_reason = kUnspecifiedReason,
                         .establishes =
                             "two threads, each with its own context, each running 25 models of "
                             "2 operators at once: any failure, crash or hang warns",
                         .common_mistakes =
                             "State shared by all contexts (a global \"busy\" flag, a static "
                             "buffer), so two threads with two contexts collide (the faulty "
                             "plugin's second Open fails).",
                         .how_to_fix =
                             "Keep all state in the context; guard what the hardware really "
                             "shares with a lock that no hook holds across calls.",
                         .proven_by = "`RACY_ACROSS_CONTEXTS`") {
  auto& first = check.tvm_device();
  auto second = check.NewTvmSession(false);
  RequireWorkingRun(check, first);
  // Enough to overlap many times; few enough that a plugin's fixed table
  // (tvm_c_device.aot_order's subject) is not what this check finds.
  constexpr int kRunsPerThread = 25;
  const auto outcome = RunIsolated(
      check,
      [&] {
        std::atomic<int> ready{0};
        std::array<std::string, 2> failures;
        auto runs = [&](const tvm::CDeviceSession* device, std::string& failure) {
          ready.fetch_add(1);
          while (ready.load() < 2) std::this_thread::yield();
          for (int run = 1; run <= kRunsPerThread && failure.empty(); ++run) {
            const auto result = tvm::RunAsGeneratedCode({device}, tvm::OperatorsOnOneDevice(2));
            if (result.returned != 0) failure = fmt::format("run {}: {}", run, result.failure);
          }
        };
        std::thread one(runs, &first, std::ref(failures[0]));
        std::thread two(runs, second.get(), std::ref(failures[1]));
        one.join();
        two.join();
        std::string text;
        for (size_t i = 0; i < failures.size(); ++i) {
          if (!failures[i].empty())
            text += fmt::format("thread {} failed at {}. ", i + 1, failures[i]);
        }
        return text;
      },
      kProbeLimit);
  if (!outcome.answered) {
    check.Warn(fmt::format("two threads running models at once: the process {}", outcome.text));
  } else if (!outcome.text.empty()) {
    check.Warn(
        fmt::format("two threads running models at once, each with its own context: {}"
                    "Each alone succeeds; an application with two model instances on "
                    "two threads would see failures",
                    outcome.text));
  }
}

}  // namespace sectl::conform
