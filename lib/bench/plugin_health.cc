#include "bench/plugin_health.h"

#include <algorithm>

namespace sectl::bench {
namespace {

std::optional<std::string> Find(const std::map<abi::PluginFunction, std::string>& learned,
                                abi::PluginFunction function) {
  const auto found = learned.find(function);
  if (found == learned.end()) return std::nullopt;
  return found->second;
}

}  // namespace

const AvoidedFunction* PluginHealth::Avoided(abi::PluginFunction function) const {
  const auto found =
      std::find_if(avoided_.begin(), avoided_.end(),
                   [function](const auto& avoided) { return avoided.function == function; });
  return found == avoided_.end() ? nullptr : &*found;
}

void PluginHealth::LearnStall(abi::PluginFunction function, std::string why) {
  stalls_.emplace(function, std::move(why));
}

void PluginHealth::LearnEarlyCompletion(abi::PluginFunction function, std::string why) {
  early_completions_.emplace(function, std::move(why));
}

std::optional<std::string> PluginHealth::Stall(abi::PluginFunction function) const {
  return Find(stalls_, function);
}

std::optional<std::string> PluginHealth::EarlyCompletion(abi::PluginFunction function) const {
  return Find(early_completions_, function);
}

bool PluginHealth::Usable(abi::PluginFunction function) const {
  return Avoided(function) == nullptr && !stalls_.contains(function) &&
         !early_completions_.contains(function);
}

}  // namespace sectl::bench
