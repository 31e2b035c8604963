// sectl's exit statuses, documented in the README and `sectl --help`.
#pragma once

#include "bench/bench_compare.h"
#include "report/conform_report.h"

namespace sectl::tool {

inline constexpr int kExitSuccess = 0;
// The plugin cannot be loaded or initialised, crashed, hung, or TensorFlow
// would refuse it (probe) / it is not conformant (conform).
inline constexpr int kExitPluginProblem = 1;
// A usage error (bad flag, bad value) or an internal error of sectl.
inline constexpr int kExitUsageOrInternal = 2;
// bench --compare: most results both reports hold could not be judged
// (unstable or not comparable), so the gate can say neither passed nor
// failed (bench::JudgeGate). A CI job should measure again, not pass.
inline constexpr int kExitGateInconclusive = 3;
// sectl was interrupted by SIGINT, SIGTERM or SIGHUP (isolation/
// interruption.h): 128 + the signal's number, as a shell reports a process
// the signal killed (130, 143, 129). conform still writes its report,
// marked incomplete; probe and bench write none.
inline constexpr int kExitInterruptedBase = 128;
constexpr int ExitStatusOfInterruption(int signal) { return kExitInterruptedBase + signal; }

// conform's and report's exit status, from the report's one verdict (so the
// table, the JSON "verdict", JUnit and the exit status always agree):
// conformant 0; not conformant, or incomplete (shards missing) 1;
// inconclusive (a check ended in sectl's own error) 2. An interrupted run
// exits with ExitStatusOfInterruption instead.
constexpr int ExitStatusOfVerdict(report::Verdict verdict) {
  switch (verdict) {
    case report::Verdict::kConformant:
      return kExitSuccess;
    case report::Verdict::kNotConformant:
    case report::Verdict::kIncomplete:
      return kExitPluginProblem;
    case report::Verdict::kInconclusive:
      return kExitUsageOrInternal;
  }
  return kExitUsageOrInternal;
}

// bench --compare's exit status from its gate, once every copy was verified
// and measurable (else the run already fails with kExitPluginProblem).
constexpr int ExitStatusOfGate(bench::GateVerdict verdict) {
  switch (verdict) {
    case bench::GateVerdict::kPassed:
      return kExitSuccess;
    case bench::GateVerdict::kFailed:
      return kExitPluginProblem;
    case bench::GateVerdict::kInconclusive:
      return kExitGateInconclusive;
  }
  return kExitUsageOrInternal;
}

}  // namespace sectl::tool
