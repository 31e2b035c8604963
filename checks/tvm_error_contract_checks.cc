// The error contract of a TVM runtime's C entry points (profile
// tvm-device-api, TVM runtime routes only): every failure comes back as
// the documented error, nonzero or nullptr with the message in
// TVMGetLastError (on tvm-ffi: -1 and a raised Error), never as a C++
// exception thrown across the C ABI and never as a crash. TVM's
// c_runtime_api.h and c_backend_api.h promise it; the callers are C and
// the code TVM generates, which cannot catch.
#include <fmt/format.h>

#include <array>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "abi/plugin_functions.h"
#include "conform/check.h"
#include "tvm/device_api_route.h"
#include "tvm/runtime_call.h"

namespace sectl::checks {
namespace {

constexpr const char* kProfile = "tvm-device-api";
// 1 EiB: no device has it, and TVM's tensor size rule (bits x elements in
// a size_t) still holds it without wrapping.
constexpr size_t kImpossible = size_t{1} << 60;
constexpr int kMostIdsAsked = 64;

using F = abi::PluginFunction;

// The entry point a case reached: the first call into the runtime since
// `calls_before` that is not bookkeeping (looking a global up, fetching
// the last error, building a shape, releasing a reference).
std::string EntryPointCalled(const host::Journal& journal, uint64_t calls_before) {
  for (const host::JournalEntry& entry : journal.Entries()) {
    if (entry.sequence <= calls_before || !abi::IsTvmRuntimeFunction(entry.function)) continue;
    switch (entry.function) {
      case F::kTvmGetLastError:
      case F::kTvmFuncGetGlobal:
      case F::kTvmFfiFunctionGetGlobal:
      case F::kTvmFfiErrorMoveFromRaised:
      case F::kTvmFfiObjectDecRef:
      case F::kTvmGlobalMakeShape:
        continue;
      default:
        return std::string(abi::QualifiedName(entry.function));
    }
  }
  return "no entry point";
}

// One failure path: what is asked. An escaped exception is always a
// deviation; a success, and a failure without a message, are where the
// flags say so (false where tvm_device_api.errors_reported owns that
// judgement: TVMDeviceAllocDataSpace's failures).
struct Case {
  std::string input;  // "device 0, 2^60 bytes"
  bool judge_success = true;
  bool judge_message = true;
  // A null result is the device's default stream, not a resource: TVM's
  // one-queue backends (Vulkan, OpenCL) answer it for any device id.
  bool null_is_nothing_made = false;
};

// The first line of a runtime's message: TVM's go on with a stack trace.
std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

class ContractProbe {
 public:
  ContractProbe(conform::CheckContext& check, tvm::DeviceApiRoute& api)
      : check_(check), api_(api) {}

  // Runs `call`, which must fail; records how it ended, and a deviation
  // when it did not fail as documented. `release` undoes a success.
  template <typename Call, typename Release>
  void Expect(const Case& what, Call call, Release release) {
    const uint64_t calls_before = check_.journal().call_count();
    const uint64_t exceptions_before = check_.journal().exception_count();
    auto result = call();
    const std::string entry = EntryPointCalled(check_.journal(), calls_before);
    const std::string label = fmt::format("{}({})", entry, what.input);
    if (check_.journal().exception_count() != exceptions_before) {
      Deviation(label, fmt::format("{}; C and TVM's generated code cannot catch it, so the "
                                   "process ends in std::terminate",
                                   result ? "an exception escaped" : result.error().message()));
      return;
    }
    if (result) {
      if constexpr (std::is_pointer_v<std::decay_t<decltype(*result)>>) {
        if (what.null_is_nothing_made && *result == nullptr) {
          Record(label, "gave the null stream: nothing was made", "");
          return;
        }
      }
      release(*result);
      Record(label, "succeeded", what.judge_success ? "succeeded where it cannot" : "");
      return;
    }
    const auto message = api_.LastRuntimeError();
    if (!message || message->empty()) {
      Record(label, "failed: " + FirstLine(result.error().message()),
             what.judge_message ? fmt::format("failed, but left no message for the caller ({})",
                                              result.error().message())
                                : "");
      return;
    }
    Record(label, "failed cleanly: " + FirstLine(*message), "");
  }

  // How each case ended, by its label.
  nlohmann::json& cases() { return check_.details()["cases"]; }

 private:
  void Record(const std::string& label, const std::string& outcome, const std::string& deviation) {
    cases()[label] = outcome;
    if (!deviation.empty()) Deviation(label, deviation);
  }

  void Deviation(const std::string& label, const std::string& what) {
    cases()[label] = "deviates: " + what;
    check_.Fail(fmt::format("{}: {}", label, what));
  }

  conform::CheckContext& check_;
  tvm::DeviceApiRoute& api_;
};

// A call that answers nothing on success, as a case's result.
Expected<int> Done(Expected<void> result) {
  if (!result) return tl::unexpected(result.error());
  return 0;
}

// The first device id from 0 that kExist answers 0 for, if any below 64:
// TVM's CPU backend answers 1 for every id, and has no absent device.
std::optional<int> FirstAbsentDevice(tvm::DeviceApiRoute& api) {
  for (int id = 0; id < kMostIdsAsked; ++id) {
    auto exists = api.GetAttr(id, tvm::DeviceAttrKind::kExist);
    if (!exists) return std::nullopt;  // tvm_device_api.exist reports it
    const auto* answer = std::get_if<int64_t>(&*exists);
    if (answer != nullptr && *answer == 0) return id;
  }
  return std::nullopt;
}

}  // namespace

SECTL_CHECK_IN_PROFILES(
    "tvm_device_api.c_error_contract", kRequired,
    "Every C entry point's failure comes back as its documented error (nonzero or nullptr, with "
    "TVMGetLastError set), never as a C++ exception across the C ABI or a crash",
    {kProfile},
    .tests = {kTvmDeviceAllocDataSpace, kTvmDeviceCopyDataFromTo, kTvmStreamCreate, kTvmSynchronize,
              kTvmBackendAllocWorkspace, kTvmBackendFreeWorkspace, kTvmGlobalStreamCreate,
              kTvmGlobalStreamSync, kTvmGlobalTensorAlloc, kTvmGlobalArrayAlloc,
              kTvmGlobalTensorCopy, kTvmGlobalArrayCopy},
    .severity_reason =
        "TVM's C entry points are called from C and from the code TVM generates, which check "
        "the result and read `TVMGetLastError`: they cannot catch a C++ exception, so one that "
        "escapes ends the process in std::terminate, and a failure with no message leaves the "
        "caller nothing to report",
    .establishes =
        "on a TVM runtime, each of these fails with its documented error and a message, never "
        "an exception or a crash: `TVMBackendAllocWorkspace` of 2^60 bytes (nullptr), "
        "`TVMBackendFreeWorkspace` of a host address it never handed out (-1), "
        "`TVMDeviceCopyDataFromTo` between tensors of 64 and 32 bytes (-1), and, on the first "
        "device id kExist answers 0 for (none on TVM's CPU backend), `TVMDeviceAllocDataSpace`, "
        "`TVMBackendAllocWorkspace`, `TVMStreamCreate` (the null stream is accepted: TVM's "
        "one-queue backends give it for any id) and `TVMSynchronize`; "
        "`TVMDeviceAllocDataSpace` of 2^60 bytes must not throw (`errors_reported` judges the "
        "rest of it). Through tvm-ffi the same with the `runtime.*` globals, which must return "
        "-1 with a raised Error. Every deviation is listed with the entry point and its input",
    .common_mistakes =
        "a C entry point with no try/catch around the C++ it calls: TVM's own "
        "`TVMBackendAllocWorkspace` and `TVMBackendFreeWorkspace` (src/runtime/device_api.cc) "
        "let `std::bad_alloc` and `InternalError` escape, up to v0.26",
    .how_to_fix =
        "wrap every exported C function's body in TVM's `API_BEGIN()`/`API_END()` (or a "
        "try/catch that sets the last error and returns -1 or nullptr), as "
        "`TVMDeviceAllocDataSpace` already is",
    .proven_by =
        "`FAULT_WORKSPACE_THROWS` (reference_plugins/tvm_runtime, C API and tvm-ffi) and "
        "`FAULT_STREAM_CREATE_CRASHES_ON_ABSENT_DEVICE` (C API)") {
  tvm::DeviceApiRoute& api = check.tvm_route();
  if (!api.IsTvmRuntime()) {
    check.Skip(
        "runs on a TVM runtime library: the adapter over a StreamExecutor plugin is sectl's own "
        "code, and the memory.* checks cover the plugin's failures");
  }
  const int id = check.settings().device_ordinal;
  ContractProbe probe(check, api);
  auto free_data = [&](void* pointer) {
    if (pointer != nullptr) (void)api.FreeDataSpace(id, pointer);
  };
  auto free_workspace = [&](void* pointer) {
    if (pointer != nullptr) (void)api.FreeWorkspace(id, pointer);
  };
  auto nothing = [](auto&&...) {};

  probe.Expect(
      {fmt::format("device {}, 2^60 bytes", id), /*judge_success=*/false,
       /*judge_message=*/false},
      [&] { return api.AllocDataSpace(id, kImpossible, tvm::kAllocAlignment); }, free_data);
  probe.Expect(
      {fmt::format("device {}, 2^60 bytes", id)},
      [&] { return api.AllocWorkspace(id, kImpossible); }, free_workspace);

  // A host address of sectl's that the runtime never handed out: TVM's
  // workspace pool looks it up, and never writes through it.
  std::array<unsigned char, 256> never_allocated{};
  probe.Expect(
      {fmt::format("device {}, a host address it never handed out", id)},
      [&] { return Done(api.FreeWorkspace(id, never_allocated.data())); }, nothing);

  // Unequal sizes, host to device: the device side is large enough for
  // either, so a runtime that copies anyway writes nothing out of bounds.
  constexpr size_t kLarger = 64;
  constexpr size_t kSmaller = 32;
  void* device_memory = check.Require(api.AllocDataSpace(id, kLarger, tvm::kAllocAlignment),
                                      "AllocDataSpace of 64 bytes");
  std::array<unsigned char, kLarger> host{};
  probe.Expect(
      {fmt::format("device {}, a {}-byte host tensor into a {}-byte device tensor", id, kLarger,
                   kSmaller)},
      [&] {
        return Done(api.CopyUnequalSizes({tvm::Side::kHost, host.data(), 0}, kLarger,
                                         {tvm::Side::kDevice, device_memory, 0}, kSmaller, id,
                                         nullptr));
      },
      nothing);
  check.Require(api.StreamSync(id, nullptr), "StreamSync");
  check.Require(api.FreeDataSpace(id, device_memory), "FreeDataSpace");

  const std::optional<int> absent = FirstAbsentDevice(api);
  if (!absent) {
    check.details()["absent_device"] =
        "none: kExist answers 1 for every id from 0 to 63 (as TVM's CPU backend), so no "
        "absent device was asked for";
    return;
  }
  check.details()["absent_device"] = *absent;
  const std::string on_absent = fmt::format("absent device {}", *absent);
  probe.Expect(
      {on_absent + ", 256 bytes", /*judge_success=*/true, /*judge_message=*/false},
      [&] { return api.AllocDataSpace(*absent, 256, tvm::kAllocAlignment); },
      [&](void* pointer) {
        if (pointer != nullptr) (void)api.FreeDataSpace(*absent, pointer);
      });
  probe.Expect(
      {on_absent + ", 256 bytes"}, [&] { return api.AllocWorkspace(*absent, 256); },
      [&](void* pointer) {
        if (pointer != nullptr) (void)api.FreeWorkspace(*absent, pointer);
      });
  probe.Expect(
      {on_absent, /*judge_success=*/true, /*judge_message=*/true, /*null_is_nothing_made=*/true},
      [&] { return api.CreateStream(*absent); },
      [&](tvm::RouteStream stream) { (void)api.FreeStream(*absent, stream); });
  probe.Expect(
      {on_absent + ", the null stream"}, [&] { return Done(api.StreamSync(*absent, nullptr)); },
      nothing);
}

}  // namespace sectl::checks
