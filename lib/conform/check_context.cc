#include "conform/check_context.h"

#include <fmt/format.h>

#include <algorithm>
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

CheckContext::CheckContext(const CheckDefinition& definition, const CheckSettings& settings,
                           host::Journal& journal)
    : definition_(definition),
      settings_(settings),
      journal_(journal),
      exceptions_seen_(journal.exception_count()) {}

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
    if (!opened) StopOn("loading the plugin", opened.error());
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
    if (settings_.plugin_reports_no_devices) Skip(std::string(kNoDevicesReason));
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

bool CheckContext::Avoids(abi::PluginFunction function) const {
  auto among = [function](const auto& list) {
    return std::find(list.begin(), list.end(), function) != list.end();
  };
  return among(settings_.avoid) || among(avoided_);
}

void CheckContext::Avoid(abi::PluginFunction function) {
  if (!Avoids(function)) avoided_.push_back(function);
}

void CheckContext::Expect(bool condition, std::string_view failure_message) {
  if (!condition) Fail(std::string(failure_message));
}

void CheckContext::Fail(std::string message) {
  // With one function under test, that is the one a failure speaks of.
  if (definition_.traits.tests.size() == 1) {
    FailIn(definition_.traits.tests.front(), std::move(message));
    return;
  }
  failures_.push_back(std::move(message));
}

void CheckContext::FailIn(abi::PluginFunction culprit, std::string message) {
  failures_.push_back(std::move(message));
  auto& culprits = outcome_.culprits;
  if (std::find(culprits.begin(), culprits.end(), culprit) == culprits.end()) {
    culprits.push_back(culprit);
  }
}

void CheckContext::Warn(std::string message) { warnings_.push_back(std::move(message)); }

void CheckContext::WarnIn(abi::PluginFunction culprit, std::string message) {
  warnings_.push_back(std::move(message));
  auto& culprits = outcome_.culprits;
  if (std::find(culprits.begin(), culprits.end(), culprit) == culprits.end()) {
    culprits.push_back(culprit);
  }
}

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

void CheckContext::Blocked(abi::PluginFunction function, std::string what_happened) {
  // Blocked hands the defect to the check that tests the function; with no
  // such check, this one must report it or nobody would.
  if (Tests(function) || CheckRegistry::Global().CheckersOf(function).empty()) {
    FailIn(function, std::move(what_happened));
    throw CheckStopped{};
  }
  Avoid(function);
  if (!failures_.empty()) {
    // What was already found stands; say why the check went no further.
    failures_.push_back(fmt::format("the check stopped there: {}", what_happened));
    throw CheckStopped{};
  }
  outcome_.status = report::CheckStatus::kBlocked;
  outcome_.message = std::move(what_happened);
  outcome_.culprits = {function};
  throw CheckStopped{};
}

void CheckContext::StopOn(std::string_view doing, const Error& error) {
  const std::string message = DescribeFailure(doing, error);
  if (error.code() == ErrorCode::kInputChanged) throw CheckCannotGoOn{message};
  if (auto culprit = error.culprit()) {
    if (Tests(*culprit) || CheckRegistry::Global().CheckersOf(*culprit).empty()) {
      FailIn(*culprit, message);
      throw CheckStopped{};
    }
    Blocked(*culprit, message);
  }
  Abort(message);
}

void CheckContext::BlameExceptionsAcrossTheApi() {
  if (journal_.exception_count() == exceptions_seen_) return;
  const auto function = journal_.LastThrowingFunction();
  const std::string message = fmt::format(
      "{} threw a C++ exception across the C API; every TensorFlow generation calls the plugin "
      "from C++ without a handler there, so the process ends in std::terminate",
      function ? std::string(abi::QualifiedName(*function)) : std::string("a plugin function"));
  outcome_.exception_across_api = true;
  // Required wherever it happens: it is a defect of the function that threw,
  // whichever check saw it, and it outranks being blocked.
  if (outcome_.status == report::CheckStatus::kBlocked) {
    outcome_.status = report::CheckStatus::kPass;
    outcome_.culprits.clear();
  }
  // The dispatcher's shorter account of the same exception says less.
  std::erase_if(failures_, [](const std::string& failure) {
    return failure.find("threw a C++ exception across the C API") != std::string::npos;
  });
  failures_.insert(failures_.begin(), message);
  auto& culprits = outcome_.culprits;
  if (function && std::find(culprits.begin(), culprits.end(), *function) == culprits.end()) {
    culprits.insert(culprits.begin(), *function);
  }
}

CheckOutcome CheckContext::TakeOutcome() {
  BlameExceptionsAcrossTheApi();
  if (outcome_.status == report::CheckStatus::kBlocked) return std::move(outcome_);
  if (!failures_.empty()) {
    outcome_.status = report::CheckStatus::kFail;
    outcome_.message = JoinMessages(failures_);
  } else if (outcome_.status != report::CheckStatus::kSkip && !warnings_.empty()) {
    outcome_.status = report::CheckStatus::kWarn;
    outcome_.message = JoinMessages(warnings_);
  }
  return std::move(outcome_);
}

CheckOutcome RunCheckBody(const CheckDefinition& check, const CheckSettings& settings,
                          host::Journal& journal) {
  CheckContext context(check, settings, journal);
  try {
    check.body(context);
    context.TearDown();
  } catch (const CheckStopped&) {
    context.TearDown();
  } catch (const CheckCannotGoOn& stop) {
    return {report::CheckStatus::kError, stop.message, nlohmann::json::object()};
  } catch (const std::exception& error) {
    return {report::CheckStatus::kError,
            fmt::format("sectl failed while running the check: {}", error.what()),
            nlohmann::json::object()};
  }
  return context.TakeOutcome();
}

}  // namespace sectl::conform
