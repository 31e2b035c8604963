// The catalogue of conformance checks. A check registers itself with one
// declaration (see check.h); the runner, --list and the reports all read
// the same catalogue, so listing and running never disagree.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "abi/host_generations.h"
#include "abi/plugin_functions.h"
#include "report/conform_report.h"

namespace sectl::conform {

class CheckContext;
class TvmCheckContext;
using CheckBody = void (*)(CheckContext& check);
using TvmCheckBody = void (*)(TvmCheckContext& check);

// The profile every StreamExecutor check belongs to unless it says otherwise.
inline constexpr std::string_view kTensorFlowProfile = "tensorflow";

// What a check declares about itself beyond its id, severity and title.
struct CheckTraits {
  // The plugin functions the check tests. Every other plugin function it
  // calls it only uses, to set up or to observe; when one of those fails,
  // crashes or hangs, the check is blocked by that function (the check that
  // tests it reports the defect). Empty: every function it calls is tested.
  std::vector<abi::PluginFunction> tests;
  // For a check of one of a plugin's other modules: the entry point it needs
  // ("TF_InitKernel"). A plugin whose file does not export it skips the
  // check with `skip_reason`, decided from the file's symbols before any
  // process starts: a plugin without the module pays nothing for its checks.
  std::string_view needs_entry_point;
  std::string_view skip_reason;
  // Why the check has its severity. For a required check: the released
  // TensorFlow generation(s) whose behaviour a failure harms, and how.
  std::string_view severity_reason;
  // For a required check that only some generations need: the newest
  // generation ("2.10") that relies on it. Under a newer --tf-version the
  // check is only recommended. Empty: required under every generation.
  std::string_view required_through;

  // The explanation `sectl explain`, the README's table of checks and the
  // HTML report all show: one source, in the check's declaration. Sentences
  // that may mark code with `backticks`, as Markdown does (plain text drops
  // them). Every check has the first three (tests/explain_cli_test.cc).
  //
  // What the check establishes, concretely: the sizes and values it uses
  // and the observation it relies on.
  std::string_view establishes;
  // How plugins typically get it wrong (real plugins, and the faulty
  // reference plugins modelled on them).
  std::string_view common_mistakes;
  // What the plugin's author should do about a failure.
  std::string_view how_to_fix;
  // The faulty reference plugin(s) that make exactly this check fail, by
  // their FAULT_ name (reference_plugins/faulty/*.cmake): "`CORRUPT_DTOH`".
  std::string_view proven_by;

  // For a check that is not required: why the calls it makes are ones no
  // released TensorFlow makes in normal use ("TensorFlow never copies an
  // empty tensor: pluggable_device_util.cc guards every copy with
  // total_bytes > 0"). Without it, a crash or hang inside a function the
  // selected generation calls in normal registration and use makes the
  // check required (see CallsInNormalUse): TensorFlow's process would die
  // or stall there too.
  std::string_view unusual_use;
};

struct CheckDefinition {
  std::string id;     // dotted and hierarchical: "memcpy.round_trip"
  std::string title;  // one line
  report::CheckSeverity severity = report::CheckSeverity::kRequired;
  std::vector<std::string> profiles;
  CheckTraits traits;
  std::string file;  // where it is declared, for people reading a report
  int line = 0;
  CheckBody body = nullptr;         // a StreamExecutor check (SECTL_CHECK)
  TvmCheckBody tvm_body = nullptr;  // or a TVM C Device API check (SECTL_TVM_C_DEVICE_CHECK)

  // The first component of the id: "memcpy".
  std::string area() const;
  bool InProfile(std::string_view profile) const;
  // Whether the check tests `function` (see CheckTraits::tests).
  bool Tests(abi::PluginFunction function) const;
  // The severity when judging for `generation` (see required_through).
  report::CheckSeverity SeverityUnder(const abi::HostGeneration& generation) const;
};

class CheckRegistry {
 public:
  // The process-wide catalogue that SECTL_CHECK declarations add to.
  static CheckRegistry& Global();

  // Adds a check; a duplicate id is a programming error and aborts at start-up.
  void Add(CheckDefinition definition);

  // All checks, ordered by id (static initialisation order across files is
  // unspecified; ids give a stable order).
  const std::vector<CheckDefinition>& checks() const;

  const CheckDefinition* Find(std::string_view id) const;

  std::vector<std::string> Profiles() const;

  // The ids of the checks that declare they test `function`, for a blocked
  // result to say where the defect itself is reported.
  std::vector<std::string> CheckersOf(abi::PluginFunction function) const;

 private:
  mutable std::vector<CheckDefinition> checks_;
  mutable bool sorted_ = true;
};

// Registers a check during static initialisation.
struct CheckRegistrar {
  explicit CheckRegistrar(CheckDefinition definition);
};

}  // namespace sectl::conform
