// The common shape of "learn something from the plugin in a child process":
// run a collector there, and hand back the text it produced, or an error
// that blames the right party (isolation/child_outcome.h). Preflights and
// the TVM probes, which learn one answer each, use it; conform's runner,
// probe's journal and bench judge their children themselves, as they report
// more than one answer.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "base/error.h"
#include "isolation/confinement.h"

namespace sectl::isolation {

struct CollectOptions {
  std::chrono::milliseconds timeout{30'000};
  Confinement confinement;
  // What the child was doing, to follow the plugin's path in an error:
  // "loading the TVM runtime and asking kExist".
  std::string doing;
  // The plugin's path, first in every error about the plugin.
  std::string plugin_path;
  // The child's name in sectl's own errors: "the preflight process".
  std::string process_name = "the child process";
};

// Runs `collect` in a confined child. Its text, or its error (carried over
// with EncodeChildError), comes back. A child that crashed, hung or exited
// without answering is the plugin's kCrashed, kTimeout or kPluginError: "PATH:
// DOING crashed with SIGSEGV"; a child sectl could not set up is kInternal.
Expected<std::string> CollectInChild(const std::function<Expected<std::string>()>& collect,
                                     const CollectOptions& options);

}  // namespace sectl::isolation
