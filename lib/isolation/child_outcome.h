// The one reading of how a child process ended: who is to blame, and a
// one-line description. Every command that runs plugin code in a child
// (conform, probe, bench, the TVM checks) judges its children here, so they
// cannot disagree on what an exit status or a signal means.
#pragma once

#include <string>

#include "isolation/child_exit_codes.h"
#include "isolation/child_process.h"
#include "isolation/confinement.h"

namespace sectl::isolation {

enum class Blame {
  kNone,    // the child reported: its answer is in ChildResult::result
  kPlugin,  // the plugin crashed, hung, exited, stopped or wrote on sectl's channel
  kLimit,   // the plugin ran out of a resource sectl limits (--cpu-limit, --memory-limit)
  kSectl,   // sectl could not set the child up, or sectl itself was interrupted
};

struct ChildOutcome {
  Blame blame = Blame::kNone;
  // For kPlugin and kLimit, what the plugin did, to follow "the plugin":
  // "crashed with SIGSEGV", "exited with status 7 without reporting", "did
  // not return within 5 s", "exceeded --cpu-limit 2 s of CPU time ...". For
  // kSectl, a sentence naming sectl: "sectl could not confine the plugin's
  // process: ...". Empty for kNone.
  std::string description;
};

ChildOutcome JudgeChild(const ChildResult& child, const Confinement& confinement);

}  // namespace sectl::isolation
