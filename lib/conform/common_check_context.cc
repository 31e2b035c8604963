#include "conform/common_check_context.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>

#include "conform/check_process_server.h"
#include "tvm/runtime_call.h"

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

CommonCheckContext::CommonCheckContext(const CheckDefinition& definition,
                                       const CheckSettings& settings, host::Journal& journal)
    : definition_(definition),
      settings_(settings),
      journal_(journal),
      exceptions_seen_(journal.exception_count()) {}

CommonCheckContext::~CommonCheckContext() = default;

std::string CommonCheckContext::DescribeFailure(std::string_view doing, const Error& error) {
  return fmt::format("{}: {}", doing, error.message());
}

const loader::PluginLibrary& CommonCheckContext::library() {
  if (!library_) {
    auto opened = [&]() -> Expected<loader::PluginLibrary> {
      if (remote::PluginServer* in = server()) {
        return loader::PluginLibrary::OpenInServer(settings_.plugin_path, {.lazy = settings_.lazy},
                                                   *in);
      }
      return loader::PluginLibrary::Open(
          settings_.plugin_path,
          {.lazy = settings_.lazy, .abi = settings_.abi, .tvm_core = settings_.tvm_core});
    }();
    if (!opened) StopOn("loading the plugin", opened.error());
    library_ = std::make_unique<loader::PluginLibrary>(std::move(*opened));
  }
  return *library_;
}

remote::PluginServer* CommonCheckContext::server() {
  if (settings_.plugin_server.empty() || settings_.abi != loader::PluginAbi::kStreamExecutor) {
    return nullptr;
  }
  auto started = StartCheckProcessServer(settings_.plugin_server, settings_.guard_malloc);
  if (!started)
    throw CheckCannotGoOn{DescribeFailure("starting the plugin server", started.error())};
  return *started;
}

bool CommonCheckContext::Avoids(abi::PluginFunction function) const {
  auto among = [function](const auto& list) {
    return std::find(list.begin(), list.end(), function) != list.end();
  };
  return among(settings_.avoid) || among(avoided_);
}

void CommonCheckContext::Avoid(abi::PluginFunction function) {
  if (!Avoids(function)) avoided_.push_back(function);
}

const LearnedProblem* CommonCheckContext::LearnedBeforeChecks(abi::PluginFunction function) const {
  for (const LearnedProblem& learned : settings_.learned_before_checks) {
    if (learned.function == function) return &learned;
  }
  return nullptr;
}

std::string CommonCheckContext::WhyAvoided(abi::PluginFunction function) const {
  if (const LearnedProblem* learned = LearnedBeforeChecks(function)) {
    return fmt::format("{} (learned before the checks)", learned->problem);
  }
  const std::string_view member = abi::InfoOf(function).member;
  const auto& earlier = settings_.avoid;
  if (std::find(earlier.begin(), earlier.end(), function) != earlier.end()) {
    return fmt::format("{} crashed or hung in an earlier run of this check", member);
  }
  if (std::find(avoided_.begin(), avoided_.end(), function) != avoided_.end()) {
    return fmt::format("{} failed earlier in this check", member);
  }
  return {};
}

std::chrono::milliseconds CommonCheckContext::Patience(abi::PluginFunction function,
                                                       std::chrono::milliseconds usual) const {
  return LearnedBeforeChecks(function) != nullptr ? std::min(usual, kBriefPatience) : usual;
}

std::string CommonCheckContext::AsLearnedBeforeChecks(abi::PluginFunction function) const {
  const LearnedProblem* learned = LearnedBeforeChecks(function);
  if (learned == nullptr) return {};
  return fmt::format(", as before the checks, where {}", learned->problem);
}

void CommonCheckContext::Expect(bool condition, std::string_view failure_message) {
  if (!condition) Fail(std::string(failure_message));
}

void CommonCheckContext::Fail(std::string message) {
  // With one function under test, that is the one a failure speaks of.
  if (definition_.traits.tests.size() == 1) {
    FailIn(definition_.traits.tests.front(), std::move(message));
    return;
  }
  failures_.push_back(std::move(message));
}

void CommonCheckContext::FailIn(abi::PluginFunction culprit, std::string message) {
  failures_.push_back(std::move(message));
  auto& culprits = outcome_.culprits;
  if (std::find(culprits.begin(), culprits.end(), culprit) == culprits.end()) {
    culprits.push_back(culprit);
  }
}

void CommonCheckContext::Warn(std::string message) { warnings_.push_back(std::move(message)); }

void CommonCheckContext::WarnIn(abi::PluginFunction culprit, std::string message) {
  warnings_.push_back(std::move(message));
  auto& culprits = outcome_.culprits;
  if (std::find(culprits.begin(), culprits.end(), culprit) == culprits.end()) {
    culprits.push_back(culprit);
  }
}

void CommonCheckContext::Skip(std::string reason) {
  if (failures_.empty()) {
    outcome_.status = report::CheckStatus::kSkip;
    outcome_.message = std::move(reason);
  }
  throw CheckStopped{};
}

void CommonCheckContext::Abort(std::string message) {
  Fail(std::move(message));
  throw CheckStopped{};
}

void CommonCheckContext::AbortIn(abi::PluginFunction culprit, std::string message) {
  FailIn(culprit, std::move(message));
  throw CheckStopped{};
}

void CommonCheckContext::Blocked(abi::PluginFunction function, std::string what_happened) {
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

void CommonCheckContext::StopOn(std::string_view doing, const Error& error) {
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

void CommonCheckContext::BlameExceptionsAcrossTheApi() {
  if (journal_.exception_count() == exceptions_seen_) return;
  const auto function = journal_.LastThrowingFunction();
  const bool tvm_runtime = function && abi::IsTvmRuntimeFunction(*function);
  const std::string message =
      tvm_runtime ? fmt::format(
                        "{} {}; its callers are C and TVM's generated code, which cannot catch "
                        "it, so the process ends in std::terminate",
                        abi::QualifiedName(*function), tvm::kExceptionEscaped)
                  : fmt::format(
                        "{} threw a C++ exception across the C API; every TensorFlow generation "
                        "calls the plugin from C++ without a handler there, so the process ends "
                        "in std::terminate",
                        function ? std::string(abi::QualifiedName(*function))
                                 : std::string("a plugin function"));
  outcome_.exception_across_api = true;
  // Required wherever it happens: it is a defect of the function that threw,
  // whichever check saw it, and it outranks being blocked.
  if (outcome_.status == report::CheckStatus::kBlocked) {
    outcome_.status = report::CheckStatus::kPass;
    outcome_.culprits.clear();
  }
  // The dispatcher's shorter account of the same exception says less. A
  // TVM runtime route's account names the call's input and what the
  // function promises: kept, and this one only where the check gave none.
  std::erase_if(failures_, [](const std::string& failure) {
    return failure.find("threw a C++ exception across the C API") != std::string::npos;
  });
  const bool accounted = std::any_of(failures_.begin(), failures_.end(), [](const auto& failure) {
    return failure.find(tvm::kExceptionEscaped) != std::string::npos;
  });
  if (!tvm_runtime || !accounted) failures_.insert(failures_.begin(), message);
  auto& culprits = outcome_.culprits;
  if (function && std::find(culprits.begin(), culprits.end(), *function) == culprits.end()) {
    culprits.insert(culprits.begin(), *function);
  }
}

CheckOutcome CommonCheckContext::TakeOutcome() {
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

}  // namespace sectl::conform
