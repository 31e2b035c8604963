// What a benchmark run knows to be broken in the plugin: told beforehand
// (conform's checks found it) or learned while measuring (a host callback
// that never ran, a completion signalled before the bytes arrived). Learned
// once, it holds for the rest of the run, so that a plugin whose callbacks
// never run costs one bounded wait, not one per sample or per path.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "abi/plugin_functions.h"

namespace sectl::bench {

// A plugin function a run must not rely on.
struct AvoidedFunction {
  abi::PluginFunction function = abi::PluginFunction::kCount;
  // What showed it broken: "stream.block_host_until_done failed".
  std::string why;
  // Whether calling it may end or stall the measuring process (it crashed
  // or hung), rather than only answer wrongly.
  bool crashes_or_hangs = false;
};

class PluginHealth {
 public:
  PluginHealth() = default;
  explicit PluginHealth(std::vector<AvoidedFunction> avoided) : avoided_(std::move(avoided)) {}

  // How `function` was found broken before the run; nullptr if it was not.
  const AvoidedFunction* Avoided(abi::PluginFunction function) const;

  // `function` accepted work that never ran (host_callback).
  void LearnStall(abi::PluginFunction function, std::string why);
  // `function` signalled a completion before the work was done.
  void LearnEarlyCompletion(abi::PluginFunction function, std::string why);
  // What was learned of `function`, or nullopt.
  std::optional<std::string> Stall(abi::PluginFunction function) const;
  std::optional<std::string> EarlyCompletion(abi::PluginFunction function) const;

  // Whether an optional helper (the gate's host callback, the plugin's
  // timers) may use `function`: neither avoided nor learned broken.
  bool Usable(abi::PluginFunction function) const;

  // A destination read back wrong and stayed wrong: the copies are wrong
  // (verification's to say), and later probes need not wait for it.
  bool read_back_never_settled = false;

 private:
  std::vector<AvoidedFunction> avoided_;
  std::map<abi::PluginFunction, std::string> stalls_;
  std::map<abi::PluginFunction, std::string> early_completions_;
};

}  // namespace sectl::bench
