#include "conform/run_check_body.h"

#include <fmt/format.h>

#include <exception>

#include "conform/check_context.h"
#include "conform/tvm_check_context.h"
#include "host/host_defects.h"

namespace sectl::conform {
namespace {

template <typename Context>
CheckOutcome RunWith(const CheckDefinition& check, void (*body)(Context&),
                     const CheckSettings& settings, host::Journal& journal) {
  Context context(check, settings, journal);
  try {
    body(context);
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
  // sectl refused a call it was about to get wrong: whatever the check
  // concluded from that refusal, the result is sectl's error.
  if (auto defect = host::FirstHostDefect()) {
    return {report::CheckStatus::kError, fmt::format("sectl's own defect: {}", *defect),
            nlohmann::json::object()};
  }
  return context.TakeOutcome();
}

}  // namespace

CheckOutcome RunCheckBody(const CheckDefinition& check, const CheckSettings& settings,
                          host::Journal& journal) {
  if (check.tvm_body != nullptr) return RunWith(check, check.tvm_body, settings, journal);
  return RunWith(check, check.body, settings, journal);
}

}  // namespace sectl::conform
