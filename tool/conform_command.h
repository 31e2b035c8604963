// `sectl conform [PLUGIN]`: run the conformance suite, isolated, and report.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tool/confinement_flags.h"
#include "tool/output_flags.h"

namespace sectl::tool {

struct ConformCommandOptions {
  std::string plugin;         // empty: the bundled cpu plugin
  std::string report_format;  // --report; empty: table, or what --format says
  std::string output;
  std::string junit_output;
  std::string html_output;  // --html
  std::string filter;
  std::string shard;
  std::string tf_version = "latest";
  std::string isolation = "process";
  std::string baseline;
  std::string write_baseline;
  // --format: of --list (table, json), or else of the report, as --report.
  std::string format;
  std::string profile = "tensorflow";
  // TVM's C Device API: --abi, --tvm-device, --context-bytes.
  std::string abi = "auto";
  std::string tvm_device;
  size_t context_bytes = 256;
  // A TVM runtime library (profile tvm-device-api): --tvm-device-type (a name
  // such as cpu or cuda, or a DLDeviceType number; empty: the type a backend
  // library's file name says it serves, else cpu), --tvm-device-id and
  // --tvm-core (TVM's core library, for a backend library).
  std::string tvm_device_type;
  std::string tvm_core;
  std::optional<int> tvm_device_id;
  std::vector<std::string> command_line;
  std::optional<uint64_t> seed;
  double timeout_seconds = 30;
  int jobs = 0;  // 0: one per core
  int repeat = 1;
  int device = 0;
  bool shuffle = false;
  bool list = false;
  bool lazy = false;
  bool verbose = false;
  OutputFlags output_flags;  // --color, --quiet
  bool no_throughput = false;
  bool throughput = false;  // --throughput: measured on a partial run too
  bool no_guard_malloc = false;
  ConfinementFlags confinement;
};

CLI::App* AddConformCommand(CLI::App& app, ConformCommandOptions& options);

int RunConformCommand(const ConformCommandOptions& options);

}  // namespace sectl::tool
