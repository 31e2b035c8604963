// The validation layer's JSON report (docs/validate-report.schema.json):
// where it ran (the provenance block every sectl report has), the plugin,
// the calls it saw, and its findings, each with its first occurrence.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "abi/plugin_functions.h"
#include "validate/finding_log.h"
#include "validate/layer_config.h"

namespace sectl::validate {

// 2: `calls` counts only calls passed on to the plugin; `withheld` (and
// summary.withheld) counts the ones the layer kept from it.
inline constexpr int kValidateReportSchemaVersion = 2;

struct ValidateReportContent {
  const LayerConfig* config = nullptr;
  std::string plugin_sha256;
  std::string platform_name;
  std::string how_ended;  // "teardown", "exit", "signal SIGSEGV", ...
  int64_t started_unix_ms = 0;
  std::string trace_error;  // why no trace was written, when one was asked for
  // Calls passed on to the plugin, per function.
  std::vector<std::pair<abi::PluginFunction, uint64_t>> calls;
  // Calls the layer did not pass on (a second destroy or deallocate, a
  // call it proved invalid), per function.
  std::vector<std::pair<abi::PluginFunction, uint64_t>> withheld;
  std::vector<Finding> findings;
};

std::string RenderValidateReport(const ValidateReportContent& content);

}  // namespace sectl::validate
