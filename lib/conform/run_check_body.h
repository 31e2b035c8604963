// Running one check's body in the current process: a fresh context of the
// kind the check declares (CheckContext or TvmCheckContext), the body, the
// teardown, and the outcome.
#pragma once

#include "conform/common_check_context.h"

namespace sectl::conform {

// The outcome of the check's body: what it reported, or `error` when sectl
// itself failed (an exception of sectl's) or could not go on.
CheckOutcome RunCheckBody(const CheckDefinition& check, const CheckSettings& settings,
                          host::Journal& journal);

}  // namespace sectl::conform
