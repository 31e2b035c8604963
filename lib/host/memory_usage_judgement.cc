#include "host/memory_usage_judgement.h"

#include <fmt/format.h>

namespace sectl::host {

std::vector<std::string> MemoryUsageProblems(const MemoryUsage& usage) {
  std::vector<std::string> problems;
  if (usage.total_bytes <= 0) {
    problems.push_back(
        fmt::format("device_memory_usage reports total = {}: TensorFlow sizes the device's "
                    "memory pool from these numbers",
                    usage.total_bytes));
  }
  if (usage.free_bytes < 0 || usage.free_bytes > usage.total_bytes) {
    problems.push_back(
        fmt::format("device_memory_usage reports free = {} of total = {}: free must lie in "
                    "[0, total], and TensorFlow sizes its memory pool from it",
                    usage.free_bytes, usage.total_bytes));
  }
  return problems;
}

}  // namespace sectl::host
