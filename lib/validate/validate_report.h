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

inline constexpr int kValidateReportSchemaVersion = 1;

struct ValidateReportContent {
  const LayerConfig* config = nullptr;
  std::string plugin_sha256;
  std::string platform_name;
  std::string how_ended;  // "teardown", "exit", "signal SIGSEGV", ...
  int64_t started_unix_ms = 0;
  std::string trace_error;  // why no trace was written, when one was asked for
  std::vector<std::pair<abi::PluginFunction, uint64_t>> calls;
  std::vector<Finding> findings;
};

std::string RenderValidateReport(const ValidateReportContent& content);

}  // namespace sectl::validate
