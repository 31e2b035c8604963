#include "conform/check_context.h"

#include <fmt/format.h>

#include <exception>

namespace sectl::conform {
namespace {

// Enough failures to act on; the rest are counted, not listed.
constexpr size_t kMaxListedFailures = 5;

std::string JoinMessages(const std::vector<std::string>& messages) {
  std::string joined;
  for (size_t i = 0; i < messages.size() && i < kMaxListedFailures; ++i) {
    if (i > 0) joined += "; ";
    joined += messages[i];
  }
  if (messages.size() > kMaxListedFailures) {
    joined += fmt::format("; and {} more", messages.size() - kMaxListedFailures);
  }
  return joined;
}

}  // namespace

CheckContext::CheckContext(const CheckSettings& settings, host::Journal& journal)
    : settings_(settings), journal_(journal) {}

CheckContext::~CheckContext() { TearDown(); }

void CheckContext::TearDown() {
  tvm_device_.reset();
  device_.reset();
  platform_.reset();
}

std::string CheckContext::DescribeFailure(std::string_view doing, const Error& error) {
  return fmt::format("{}: {}", doing, error.message());
}

const loader::PluginLibrary& CheckContext::library() {
  if (!library_) {
    auto opened = loader::PluginLibrary::Open(settings_.plugin_path,
                                              {.lazy = settings_.lazy, .abi = settings_.abi});
    if (!opened) Abort(DescribeFailure("loading the plugin", opened.error()));
    library_ = std::make_unique<loader::PluginLibrary>(std::move(*opened));
  }
  return *library_;
}

host::Platform& CheckContext::platform() {
  if (!platform_) {
    auto created =
        host::Platform::Create(library(), journal_, {.generation = settings_.generation});
    if (!created) Abort(DescribeFailure("registering the plugin", created.error()));
    platform_ = std::move(*created);
  }
  return *platform_;
}

const host::Device& CheckContext::device() {
  if (!device_) {
    auto created = platform().CreateDevice(settings_.device_ordinal);
    if (!created) {
      Abort(DescribeFailure(fmt::format("creating device {}", settings_.device_ordinal),
                            created.error()));
    }
    device_ = std::move(*created);
  }
  return *device_;
}

const tvm::CDeviceCatalog& CheckContext::tvm_catalog() {
  if (!tvm_catalog_) {
    auto catalog = tvm::ReadCDeviceCatalog(settings_.plugin_path);
    if (!catalog) Abort(DescribeFailure("reading the plugin's exported hooks", catalog.error()));
    tvm_catalog_ = std::move(*catalog);
  }
  return *tvm_catalog_;
}

const tvm::DevicesUnderTest& CheckContext::tvm_devices_under_test() {
  if (!tvm_devices_) {
    auto chosen = tvm::ChooseDevicesUnderTest(tvm_catalog(), settings_.tvm_device);
    if (!chosen) Abort(chosen.error().message());
    tvm_devices_ = std::move(*chosen);
    abi::SetTvmDeviceNames(tvm_devices_->device, tvm_devices_->second.value_or("<none>"));
  }
  return *tvm_devices_;
}

std::unique_ptr<tvm::CDeviceSession> CheckContext::NewTvmSession(bool second_device) {
  const auto& chosen = tvm_devices_under_test();
  if (second_device && !chosen.second) {
    Skip(fmt::format("the plugin has one device ({}); this check needs two", chosen.device));
  }
  const std::string& c_name = second_device ? *chosen.second : chosen.device;
  const tvm::CDeviceEntry* entry = tvm_catalog().Find(c_name);
  if (entry != nullptr) {
    if (auto missing = entry->MissingGeneratedCodeHooks(); !missing.empty()) {
      Skip(
          fmt::format("{} is not exported with C linkage (tvm_c_device.hooks_exported reports "
                      "it); generated code could not be linked",
                      tvm::HookSymbol(c_name, missing.front())));
    }
  }
  auto session = tvm::CDeviceSession::Start(library(), journal_, c_name, second_device ? 1 : 0,
                                            settings_.tvm_context_bytes);
  if (!session) Abort(DescribeFailure(fmt::format("starting device {}", c_name), session.error()));
  return std::move(*session);
}

tvm::CDeviceSession& CheckContext::tvm_device() {
  if (!tvm_device_) tvm_device_ = NewTvmSession(false);
  return *tvm_device_;
}

Expected<std::unique_ptr<host::Platform>> CheckContext::CreatePlatform(
    const host::PlatformOptions& options) {
  return host::Platform::Create(library(), journal_, options);
}

void CheckContext::Expect(bool condition, std::string_view failure_message) {
  if (!condition) Fail(std::string(failure_message));
}

void CheckContext::Fail(std::string message) { failures_.push_back(std::move(message)); }

void CheckContext::Warn(std::string message) { warnings_.push_back(std::move(message)); }

void CheckContext::Skip(std::string reason) {
  if (failures_.empty()) {
    outcome_.status = report::CheckStatus::kSkip;
    outcome_.message = std::move(reason);
  }
  throw CheckStopped{};
}

void CheckContext::Abort(std::string message) {
  Fail(std::move(message));
  throw CheckStopped{};
}

CheckOutcome CheckContext::TakeOutcome() {
  if (!failures_.empty()) {
    outcome_.status = report::CheckStatus::kFail;
    outcome_.message = JoinMessages(failures_);
  } else if (outcome_.status != report::CheckStatus::kSkip && !warnings_.empty()) {
    outcome_.status = report::CheckStatus::kWarn;
    outcome_.message = JoinMessages(warnings_);
  }
  return std::move(outcome_);
}

CheckOutcome RunCheckBody(void (*body)(CheckContext&), const CheckSettings& settings,
                          host::Journal& journal) {
  CheckContext context(settings, journal);
  try {
    body(context);
    context.TearDown();
  } catch (const CheckStopped&) {
    context.TearDown();
  } catch (const std::exception& error) {
    return {report::CheckStatus::kError,
            fmt::format("sectl failed while running the check: {}", error.what()),
            nlohmann::json::object()};
  }
  return context.TakeOutcome();
}

}  // namespace sectl::conform
