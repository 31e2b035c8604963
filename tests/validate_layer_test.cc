// libsectl_validate.so, the validation layer (lib/validate), end to end: a
// host loads the layer as its plugin, the layer loads the vendor plugin
// named by SECTL_VALIDATE_PLUGIN, and each process writes a JSON report.
//
// - Correct plugins (cpu, the field corpus) through the layer get the same
//   conformance verdicts as without it, and no error or warning finding.
// - Each faulty plugin makes its plugin-side finding fire, blaming the plugin.
// - Each misuse of sectl_validate_misuse_host (a stand-in for TensorFlow)
//   makes its host-side finding fire, blaming the host; its well-behaved
//   TensorFlow-like sequence makes none fire.
// - The report's schema, abort on first error, reports from crashing
//   processes, a missing SECTL_VALIDATE_PLUGIN, the exported symbols, and
//   the stderr line per first finding.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sectl_process.h"

namespace sectl::testing {
namespace {

using json = nlohmann::json;

const std::string kLayer = SECTL_VALIDATE_LAYER;
const std::string kMisuseHost = SECTL_VALIDATE_MISUSE_HOST;

std::string CpuPlugin() { return ReferencePlugin("sectl_cpu"); }
std::string FaultyPlugin(const std::string& fault) {
  return std::string(SECTL_FAULTY_PLUGIN_DIR) + "/faulty_" + fault + ".so";
}
std::string FieldPlugin(const std::string& name) {
  return std::string(SECTL_FIELD_PLUGIN_DIR) + "/" + name + ".so";
}

// The child environment that points the layer at `plugin` and makes every
// process write its own report into `directory` ("%r": the checks of sectl
// conform all run as pid 2 of their own PID namespace).
std::vector<std::string> LayerEnvironment(const std::string& plugin,
                                          const std::filesystem::path& directory,
                                          bool quiet = true) {
  std::vector<std::string> environment{
      "SECTL_VALIDATE_PLUGIN=" + plugin,
      "SECTL_VALIDATE_REPORT=" + (directory / "r-%r.json").string()};
  if (quiet) environment.emplace_back("SECTL_VALIDATE_QUIET=1");
  return environment;
}

// Every report the layer wrote into `directory`.
std::vector<json> ReadReports(const std::filesystem::path& directory) {
  std::vector<json> reports;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("r-", 0) != 0 || entry.path().extension() != ".json") continue;
    std::ifstream file(entry.path());
    try {
      reports.push_back(json::parse(file));
    } catch (const json::exception& error) {
      ADD_FAILURE() << name << " is not JSON: " << error.what();
    }
  }
  return reports;
}

std::vector<json> AllFindings(const std::vector<json>& reports) {
  std::vector<json> findings;
  for (const json& report : reports) {
    for (const json& finding : report.at("findings")) findings.push_back(finding);
  }
  return findings;
}

bool IsErrorOrWarning(const json& finding) {
  return finding.at("severity") == "error" || finding.at("severity") == "warning";
}

// Findings of error or warning severity, one per line, for messages.
std::string Describe(const std::vector<json>& findings) {
  std::ostringstream out;
  for (const json& finding : findings) {
    out << "  " << finding.value("severity", "") << " " << finding.value("id", "") << " at "
        << finding.value("function", "") << " (" << finding.value("fault", "")
        << "): " << finding.value("message", "") << "\n";
  }
  return out.str();
}

std::vector<json> ErrorsAndWarnings(const std::vector<json>& reports) {
  std::vector<json> serious;
  for (const json& finding : AllFindings(reports)) {
    if (IsErrorOrWarning(finding)) serious.push_back(finding);
  }
  return serious;
}

// The first finding with `id`, or null.
json FindingWithId(const std::vector<json>& reports, const std::string& id) {
  for (const json& finding : AllFindings(reports)) {
    if (finding.at("id") == id) return finding;
  }
  return nullptr;
}

// clang-tidy 14 reads nlohmann::json's noexcept move as throwing.
struct ConformRun {  // NOLINT(bugprone-exception-escape)
  CommandResult command;
  json report;
};

// sectl conform on `plugin` with `environment` added, its JSON report read
// back from `output`.
ConformRun Conform(const std::string& plugin, const std::filesystem::path& output,
                   const std::vector<std::string>& arguments,
                   const std::vector<std::string>& environment = {}) {
  std::vector<std::string> words{"conform",  plugin,          "--report",       "json",
                                 "--output", output.string(), "--no-throughput"};
  words.insert(words.end(), arguments.begin(), arguments.end());
  ConformRun run;
  run.command = RunSectl(words, RunOptions{.added_environment = environment});
  std::ifstream file(output);
  try {
    run.report = json::parse(file);
  } catch (const json::exception& error) {
    ADD_FAILURE() << "no JSON report from sectl conform " << plugin << ": " << error.what() << "\n"
                  << run.command.err;
  }
  return run;
}

ConformRun ConformThroughLayer(const std::string& vendor, const TemporaryDirectory& directory,
                               const std::vector<std::string>& arguments) {
  return Conform(kLayer, directory.path() / "layer.json", arguments,
                 LayerEnvironment(vendor, directory.path()));
}

std::map<std::string, std::string> StatusById(const json& report) {
  std::map<std::string, std::string> statuses;
  for (const json& result : report.value("results", json::array())) {
    statuses[result.at("id")] = result.at("status");
  }
  return statuses;
}

// Runs the misuse host on `plugin` (the cpu plugin) through the layer.
CommandResult RunMisuseHost(const std::string& scenario, const TemporaryDirectory& directory,
                            std::vector<std::string> extra_environment = {}, bool quiet = true,
                            const std::string& plugin = CpuPlugin()) {
  std::vector<std::string> environment = LayerEnvironment(plugin, directory.path(), quiet);
  environment.insert(environment.end(), extra_environment.begin(), extra_environment.end());
  return Run({kMisuseHost, kLayer, scenario}, RunOptions{.added_environment = environment,
                                                         .deadline = std::chrono::seconds(60),
                                                         .own_process_group = true});
}

// ---- Correct plugins: same verdicts, no findings ---------------------------

// The same check statuses through the layer as without it, and only the
// info findings sectl's own checks cause on purpose: they emulate other
// TensorFlow generations, whose struct sizes differ from the layer's.
// Returns the layer's reports.
std::vector<json> ExpectLayerIsTransparent(const std::string& plugin) {
  const TemporaryDirectory directory("sectl-validate-test-");
  const ConformRun direct = Conform(plugin, directory.path() / "direct.json", {});
  const ConformRun layered = ConformThroughLayer(plugin, directory, {});
  EXPECT_TRUE(layered.report.is_object() && layered.report["load_error"].is_null())
      << layered.report.dump();
  EXPECT_EQ(StatusById(layered.report), StatusById(direct.report));
  EXPECT_EQ(layered.command.exit_code, direct.command.exit_code);

  std::vector<json> reports = ReadReports(directory.path());
  // One report per check process at least (the runner itself loads
  // nothing). The checks of modules the plugin does not export skip without
  // a process.
  size_t processes = 0;
  for (const json& result : direct.report.value("results", json::array())) {
    const std::string message = result.value("message", "");
    if (message.find("the plugin exports no TF_Init") == std::string::npos) ++processes;
  }
  EXPECT_GE(reports.size(), processes);
  const std::vector<json> serious = ErrorsAndWarnings(reports);
  EXPECT_TRUE(serious.empty()) << plugin << " is correct, yet the layer found:\n"
                               << Describe(serious);
  return reports;
}

TEST(ValidateLayerConform, CpuPluginGetsSameVerdictsAndNoFindings) {
  // Not even an info finding but struct_size.differs_from_host.
  for (const json& finding : AllFindings(ExpectLayerIsTransparent(CpuPlugin()))) {
    EXPECT_EQ(finding["id"], "struct_size.differs_from_host") << finding.dump();
    EXPECT_EQ(finding["severity"], "info") << finding.dump();
  }
}

// Under sectl conform every check process is pid 2 of a PID namespace of
// its own: "%p" alone would give every process the same report name, and
// only the last report would survive.
TEST(ValidateLayerConform, PercentPGivesEveryCheckProcessAReportOfItsOwn) {
  const TemporaryDirectory directory("sectl-validate-test-");
  const ConformRun run =
      Conform(kLayer, directory.path() / "layer.json", {"--filter", "memory.*"},
              {"SECTL_VALIDATE_PLUGIN=" + CpuPlugin(),
               "SECTL_VALIDATE_REPORT=" + (directory.path() / "r-%p.json").string(),
               "SECTL_VALIDATE_QUIET=1"});
  ASSERT_EQ(run.command.exit_code, 0) << run.command.err;
  const size_t checks = StatusById(run.report).size();
  ASSERT_GE(checks, 2u);
  EXPECT_GE(ReadReports(directory.path()).size(), checks);
}

class CorrectFieldPluginThroughLayer : public ::testing::TestWithParam<std::string> {};

TEST_P(CorrectFieldPluginThroughLayer, GetsSameVerdictsAndNoFindings) {
  ExpectLayerIsTransparent(FieldPlugin(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Field, CorrectFieldPluginThroughLayer,
                         ::testing::Values("field_test_util_style", "field_sizeof_style",
                                           "field_memset_style", "field_no_struct_size",
                                           "field_synchronous", "field_constant_device_count",
                                           "field_cxx_whole_struct"));

// ---- Plugin-side findings --------------------------------------------------

struct PluginFault {
  std::string fault;                   // faulty_<fault>.so
  std::string id;                      // the finding it must raise
  std::string function;                // at this function
  std::vector<std::string> arguments;  // sectl conform's: the check that provokes it
  // When set, sectl_validate_misuse_host's scenario provokes it instead of
  // sectl conform: the defect is one that sectl's own host, built with
  // UBSan, cannot even read (an enum value outside the enum).
  std::string host_scenario;
};

void PrintTo(const PluginFault& fault, std::ostream* out) { *out << fault.fault; }

class PluginSideFinding : public ::testing::TestWithParam<PluginFault> {};

TEST_P(PluginSideFinding, BlamesThePlugin) {
  const PluginFault& fault = GetParam();
  const TemporaryDirectory directory("sectl-validate-test-");
  std::string output;
  if (fault.host_scenario.empty()) {
    output = ConformThroughLayer(FaultyPlugin(fault.fault), directory, fault.arguments).command.err;
  } else {
    const CommandResult run =
        RunMisuseHost(fault.host_scenario, directory, {}, true, FaultyPlugin(fault.fault));
    EXPECT_EQ(run.exit_code, 0) << run.err;
    output = run.err;
  }
  const std::vector<json> reports = ReadReports(directory.path());
  const json finding = FindingWithId(reports, fault.id);
  ASSERT_FALSE(finding.is_null()) << "no " << fault.id << "; found:\n"
                                  << Describe(AllFindings(reports)) << output;
  EXPECT_EQ(finding["fault"], "plugin");
  EXPECT_EQ(finding["function"], fault.function);
  EXPECT_FALSE(finding["message"].get<std::string>().empty());
  EXPECT_TRUE(finding["arguments"].is_object()) << finding.dump();
  EXPECT_GE(finding["thread"].get<int64_t>(), 1);
  EXPECT_GT(finding["os_thread"].get<int64_t>(), 0);
  EXPECT_GE(finding["sequence"].get<int64_t>(), 1);
  EXPECT_GE(finding["occurrences"].get<int64_t>(), 1);
  // sectl's checks use the API correctly: the plugin's fault must not be
  // blamed on them, even where it leaves work undone.
  std::vector<json> blaming_host;
  for (const json& any : AllFindings(reports)) {
    if (any["fault"] == "host") blaming_host.push_back(any);
  }
  EXPECT_TRUE(blaming_host.empty()) << Describe(blaming_host);
}

INSTANTIATE_TEST_SUITE_P(
    Faulty, PluginSideFinding,
    ::testing::Values(PluginFault{"callback_called_twice",
                                  "callback.called_twice",
                                  "SP_StreamExecutor.host_callback",
                                  {"--filter", "callback.called_once"}},
                      // Its base (minimal) has no block_host_until_done: the check of
                      // synchronize_all_activity is the one that waits for the stream.
                      // In sectl's own process nothing is learned before the checks, so
                      // the check keeps its streams busy with host callbacks (elsewhere it
                      // knows they never run, and copies instead).
                      PluginFault{
                          "callback_never_called",
                          "callback.not_run_by_sync",
                          "SP_StreamExecutor.synchronize_all_activity",
                          {"--filter", "stream.synchronize_all_activity", "--isolation", "none"}},
                      PluginFault{"event_status_out_of_range",
                                  "event.status_out_of_range",
                                  "SP_StreamExecutor.get_event_status",
                                  {},
                                  "poll-event"},
                      PluginFault{"throws_from_create_device",
                                  "api.exception_escaped",
                                  "SP_PlatformFns.create_device",
                                  {"--filter", "device.out_of_range"}},
                      PluginFault{"zero_struct_size",
                                  "struct_size.zero",
                                  "SE_InitPlugin",
                                  {"--filter", "struct_size.zero"}},
                      PluginFault{"overlapping_allocations",
                                  "memory.allocation_overlaps",
                                  "SP_StreamExecutor.allocate",
                                  {"--filter", "memory.concurrent_allocation"}},
                      // TensorFlow 2.10 still creates timers.
                      PluginFault{"timer_handle_unset",
                                  "status.ok_without_handle",
                                  "SP_StreamExecutor.create_timer",
                                  {"--filter", "timer.nanoseconds_unit", "--tf-version", "2.10"}},
                      PluginFault{"create_event_error_with_handle",
                                  "status.error_with_handle",
                                  "SP_StreamExecutor.create_event",
                                  {"--filter", "event.completes_when_reached"}},
                      // The copy inside the large block, past the nested one, is
                      // the host's correct use: no memory.range_outside_allocation
                      // (the test's check that nothing blames the host).
                      PluginFault{"nested_allocation",
                                  "memory.allocation_overlaps",
                                  "SP_StreamExecutor.allocate",
                                  {},
                                  "copy-inside-overlapped-allocation"},
                      // A host that does not validate, as the misuse host: it goes on
                      // with calls that stay inside the old layout's common part.
                      PluginFault{"old_stream_executor_layout",
                                  "struct_size.older_layout_leaves_function_null",
                                  "SP_PlatformFns.create_stream_executor",
                                  {},
                                  "poll-event"}),
    [](const auto& info) { return info.param.fault; });

// Issue 28: a plugin that filled TensorFlow 2.5-2.6's 264-byte
// SP_StreamExecutor in a newer host got only the info
// struct_size.differs_from_host, although the host then finds
// host_callback null: TensorFlow refuses such a plugin, and calls
// host_callback without a null check. An error now says so.
TEST(ValidateLayerStructSize, OldStreamExecutorLayoutLeavingHostCallbackNullIsAnError) {
  const TemporaryDirectory directory("sectl-validate-test-");
  const CommandResult run =
      RunMisuseHost("poll-event", directory, {}, true, FaultyPlugin("old_stream_executor_layout"));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const std::vector<json> reports = ReadReports(directory.path());
  const json finding = FindingWithId(reports, "struct_size.older_layout_leaves_function_null");
  ASSERT_FALSE(finding.is_null()) << Describe(AllFindings(reports)) << run.err;
  EXPECT_EQ(finding["severity"], "error");
  const std::string message = finding["message"];
  for (const std::string expected :
       {"SP_StreamExecutor.struct_size is 264 bytes", "the host's is 288",
        "host_callback, memset, memset32 are null", "mem_zero holds the plugin's host_callback",
        "'host_callback' field in SP_StreamExecutor must be set.", "a call through null"}) {
    EXPECT_NE(message.find(expected), std::string::npos) << expected << " not in: " << message;
  }
  // The size difference itself is still only an info.
  const json differs = FindingWithId(reports, "struct_size.differs_from_host");
  ASSERT_FALSE(differs.is_null());
  EXPECT_EQ(differs["severity"], "info");
  // The same plugin in the host it was built for (TensorFlow 2.5, emulated
  // by sectl conform) is correct: no error.
  const TemporaryDirectory old_host("sectl-validate-test-");
  (void)ConformThroughLayer(FaultyPlugin("old_stream_executor_layout"), old_host,
                            {"--filter", "stream.create_destroy", "--tf-version", "2.5"});
  const std::vector<json> old_reports = ReadReports(old_host.path());
  ASSERT_FALSE(old_reports.empty());
  EXPECT_TRUE(FindingWithId(old_reports, "struct_size.older_layout_leaves_function_null").is_null())
      << Describe(AllFindings(old_reports));
}

// ---- Host-side findings ----------------------------------------------------

struct HostMisuse {
  std::string scenario;  // sectl_validate_misuse_host's
  std::string id;        // the one error or warning it must raise
};

void PrintTo(const HostMisuse& misuse, std::ostream* out) { *out << misuse.scenario; }

class HostSideFinding : public ::testing::TestWithParam<HostMisuse> {};

TEST_P(HostSideFinding, BlamesTheHostForExactlyItsMisuse) {
  const HostMisuse& misuse = GetParam();
  const TemporaryDirectory directory("sectl-validate-test-");
  const CommandResult run = RunMisuseHost(misuse.scenario, directory);
  // The host survives its misuse: a second destroy or deallocate, which
  // would be a double free in the plugin, is reported and not passed on.
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const std::vector<json> reports = ReadReports(directory.path());
  ASSERT_EQ(reports.size(), 1U) << run.err;
  const json finding = FindingWithId(reports, misuse.id);
  ASSERT_FALSE(finding.is_null()) << "no " << misuse.id << "; found:\n"
                                  << Describe(AllFindings(reports)) << run.err;
  EXPECT_EQ(finding["fault"], "host");
  std::set<std::string> serious_ids;
  for (const json& serious : ErrorsAndWarnings(reports)) serious_ids.insert(serious["id"]);
  EXPECT_EQ(serious_ids, std::set<std::string>{misuse.id}) << Describe(ErrorsAndWarnings(reports));
}

INSTANTIATE_TEST_SUITE_P(
    Misuse, HostSideFinding,
    ::testing::Values(
        HostMisuse{"use-stream-after-destroy", "handle.use_after_destroy"},
        HostMisuse{"double-destroy-event", "handle.double_destroy"},
        HostMisuse{"unknown-stream", "handle.unknown"},
        HostMisuse{"stream-on-other-device", "handle.wrong_device"},
        HostMisuse{"destroy-stream-with-pending-work", "stream.destroyed_with_pending_work"},
        HostMisuse{"copy-past-allocation-end", "memory.range_outside_allocation"},
        HostMisuse{"copy-to-unallocated", "memory.range_outside_allocation"},
        // A withheld copy is no pending work: no stream.destroyed_with_pending_work.
        HostMisuse{"enqueue-to-unallocated", "memory.range_outside_allocation"},
        HostMisuse{"htod-from-device-memory", "memory.host_pointer_in_device_memory"},
        HostMisuse{"device-arg-in-host-memory", "memory.device_pointer_in_host_memory"},
        HostMisuse{"deallocate-unknown", "memory.deallocate_unknown"},
        HostMisuse{"deallocate-twice", "memory.deallocate_twice"},
        HostMisuse{"leak-at-teardown", "memory.leaked_at_teardown"},
        HostMisuse{"null-status", "status.null_from_host"},
        HostMisuse{"deallocate-on-other-device", "memory.deallocate_on_other_device"},
        HostMisuse{"use-device-after-destroy", "device.used_after_destroy"},
        HostMisuse{"stream-outlives-device", "handle.outlived_device"}),
    [](const auto& info) {
      std::string name = info.param.scenario;
      std::replace(name.begin(), name.end(), '-', '_');
      return name;
    });

TEST(ValidateLayerHost, WellBehavedTensorFlowSequenceRaisesNothing) {
  const TemporaryDirectory directory("sectl-validate-test-");
  const CommandResult run = RunMisuseHost("well-behaved", directory);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const std::vector<json> reports = ReadReports(directory.path());
  ASSERT_EQ(reports.size(), 1U) << run.err;
  const std::vector<json> serious = ErrorsAndWarnings(reports);
  EXPECT_TRUE(serious.empty()) << Describe(serious);
  EXPECT_EQ(reports[0]["ended"], "exit");
  // The sequence reached the plugin through the layer.
  EXPECT_GT(reports[0]["summary"]["calls"].get<int64_t>(), 40);
}

// A plugin that hands every caller one shared stream: destroying one
// holder's handle while another holder's work is pending is no misuse.
// Before the layer judged pending work at the last holder only, sectl
// conform through the layer raised this now and then, when a concurrency
// check's threads interleaved so.
TEST(ValidateLayerHost, SharedStreamIsJudgedWhenItsLastHolderDestroysIt) {
  const TemporaryDirectory directory("sectl-validate-test-");
  const CommandResult run = RunMisuseHost("two-holders-of-one-stream", directory, {}, true,
                                          FieldPlugin("field_no_struct_size"));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const std::vector<json> reports = ReadReports(directory.path());
  ASSERT_EQ(reports.size(), 1U) << run.err;
  const std::vector<json> serious = ErrorsAndWarnings(reports);
  EXPECT_TRUE(serious.empty()) << Describe(serious);
}

// A callback enqueued while another thread synchronises its stream is owed
// to that synchronisation only if host_callback returned before it began
// (issue 28): on correct plugins, in any interleaving, no finding. The
// plugin that never calls its callbacks is still caught (PluginSideFinding).
TEST(ValidateLayerHost, CallbacksEnqueuedDuringASynchronisationAreNotOwedToIt) {
  for (const std::string& plugin :
       {CpuPlugin(), FieldPlugin("field_cxx_whole_struct"), FieldPlugin("field_memset_style")}) {
    SCOPED_TRACE(plugin);
    for (int run_number = 0; run_number < 5; ++run_number) {
      const TemporaryDirectory directory("sectl-validate-test-");
      const CommandResult run =
          RunMisuseHost("enqueue-while-synchronising", directory, {}, true, plugin);
      EXPECT_EQ(run.exit_code, 0) << run.err;
      const std::vector<json> reports = ReadReports(directory.path());
      ASSERT_EQ(reports.size(), 1U) << run.err;
      const std::vector<json> serious = ErrorsAndWarnings(reports);
      EXPECT_TRUE(serious.empty()) << Describe(serious);
    }
  }
}

// The report rewritten at exit still names each finding's function (a
// static the names live in may be gone by then).
TEST(ValidateLayerHost, ReportWrittenAtExitNamesTheFunctions) {
  const TemporaryDirectory directory("sectl-validate-test-");
  const CommandResult run = RunMisuseHost("use-stream-after-destroy", directory);
  const std::vector<json> reports = ReadReports(directory.path());
  ASSERT_EQ(reports.size(), 1U) << run.err;
  EXPECT_EQ(reports[0]["ended"], "exit");
  const json finding = FindingWithId(reports, "handle.use_after_destroy");
  ASSERT_FALSE(finding.is_null());
  EXPECT_EQ(finding["function"], "SP_StreamExecutor.create_stream_dependency");
  // Kept from the plugin (a destroyed stream), so counted as withheld.
  EXPECT_EQ(reports[0]["withheld"].value("SP_StreamExecutor.create_stream_dependency", 0), 1)
      << reports[0]["withheld"].dump();
}

// Issue 28: `calls` counted the second deallocate and destroy the layer
// swallowed, and the calls it withheld, as if the plugin had received
// them. Now `calls` is what the plugin received and `withheld` the rest,
// per function and in the summary.
TEST(ValidateLayerReport, CallsCountOnlyWhatReachedThePlugin) {
  struct Expected {
    std::string scenario;
    std::string function;
    int64_t passed_on;  // calls of `function` the plugin received
  };
  for (const Expected& expected :
       {Expected{"deallocate-twice", "SP_StreamExecutor.deallocate", 1},
        Expected{"double-destroy-event", "SP_StreamExecutor.destroy_event", 1},
        Expected{"use-stream-after-destroy", "SP_StreamExecutor.create_stream_dependency", 0}}) {
    SCOPED_TRACE(expected.scenario);
    const TemporaryDirectory directory("sectl-validate-test-");
    const CommandResult run = RunMisuseHost(expected.scenario, directory);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    const std::vector<json> reports = ReadReports(directory.path());
    ASSERT_EQ(reports.size(), 1U) << run.err;
    const json& report = reports[0];
    EXPECT_EQ(report["calls"].value(expected.function, 0), expected.passed_on)
        << report["calls"].dump();
    EXPECT_EQ(report["withheld"], json({{expected.function, 1}})) << report["withheld"].dump();
    int64_t calls = 0;
    for (const auto& [function, count] : report["calls"].items()) calls += count.get<int64_t>();
    EXPECT_EQ(report["summary"]["calls"], calls);
    EXPECT_EQ(report["summary"]["withheld"], 1);
  }
  // Nothing withheld from a host that makes no mistake.
  const TemporaryDirectory directory("sectl-validate-test-");
  ASSERT_EQ(RunMisuseHost("well-behaved", directory).exit_code, 0);
  const std::vector<json> reports = ReadReports(directory.path());
  ASSERT_EQ(reports.size(), 1U);
  EXPECT_EQ(reports[0]["withheld"], json::object());
  EXPECT_EQ(reports[0]["summary"]["withheld"], 0);
}

// ---- The report ------------------------------------------------------------

TEST(ValidateLayerReport, FollowsItsSchema) {
  const TemporaryDirectory directory("sectl-validate-test-");
  // Findings with arguments, and a trace, so that every part is present.
  const CommandResult run =
      RunMisuseHost("leak-at-teardown", directory,
                    {"SECTL_VALIDATE_TRACE=" + (directory.path() / "calls.trace").string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::vector<std::filesystem::path> paths;
  for (const auto& entry : std::filesystem::directory_iterator(directory.path())) {
    if (entry.path().extension() == ".json") paths.push_back(entry.path());
  }
  ASSERT_EQ(paths.size(), 1U);
  constexpr const char* kValidate =
      "import json,jsonschema,sys; "
      "jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))";
  const CommandResult validated =
      RunCommand({SECTL_SYSTEM_PYTHON, "-c", kValidate, paths[0].string(), SECTL_VALIDATE_SCHEMA});
  EXPECT_EQ(validated.exit_code, 0) << validated.err;
}

TEST(ValidateLayerReport, AbortOnFirstErrorSaysSo) {
  const TemporaryDirectory directory("sectl-validate-test-");
  const CommandResult run =
      RunMisuseHost("deallocate-twice", directory, {"SECTL_VALIDATE_ABORT=1"});
  EXPECT_EQ(run.term_signal, SIGABRT) << run.err;
  const std::vector<json> reports = ReadReports(directory.path());
  ASSERT_EQ(reports.size(), 1U) << run.err;
  EXPECT_EQ(reports[0]["ended"], "abort on first error");
  EXPECT_FALSE(FindingWithId(reports, "memory.deallocate_twice").is_null());
}

// Issue 28: with two or more threads crashing at once, the second used to
// re-fault under the default action before the first had renamed the
// report into place, and the report was lost.
TEST(ValidateLayerReport, IsWrittenWhenManyThreadsCrashAtOnce) {
  for (int run_number = 0; run_number < 3; ++run_number) {
    const TemporaryDirectory directory("sectl-validate-test-");
    const CommandResult run = RunMisuseHost("crash-in-many-threads", directory);
#if defined(SECTL_SANITIZED)
    // The host's sanitizer ends it (exit 1) after the layer's handler.
    EXPECT_NE(run.exit_code, 0) << run.err;
#else
    EXPECT_EQ(run.term_signal, SIGSEGV) << run.err;
#endif
    const std::vector<json> reports = ReadReports(directory.path());
    ASSERT_EQ(reports.size(), 1U) << run.err;
    EXPECT_EQ(reports[0]["ended"], "signal SIGSEGV");
  }
}

TEST(ValidateLayerReport, IsWrittenWhenTheProcessIsTerminated) {
  const TemporaryDirectory directory("sectl-validate-test-");
  const CommandResult run = RunMisuseHost("terminated", directory);
  EXPECT_EQ(run.term_signal, SIGTERM) << run.err;
  const std::vector<json> reports = ReadReports(directory.path());
  ASSERT_EQ(reports.size(), 1U) << run.err;
  EXPECT_EQ(reports[0]["ended"], "signal SIGTERM");
  EXPECT_GT(reports[0]["summary"]["calls"].get<int64_t>(), 40);
}

TEST(ValidateLayerReport, IsWrittenWhenThePluginCrashes) {
  const TemporaryDirectory directory("sectl-validate-test-");
  const ConformRun run = ConformThroughLayer(FaultyPlugin("sync_htod_crash"), directory,
                                             {"--filter", "memcpy.sync_htod"});
  EXPECT_EQ(StatusById(run.report)["memcpy.sync_htod"], "crash");
  std::vector<std::string> endings;
  for (const json& report : ReadReports(directory.path())) endings.push_back(report["ended"]);
  const auto crashed = std::find_if(endings.begin(), endings.end(), [](const std::string& ended) {
    return ended.rfind("signal ", 0) == 0;
  });
  ASSERT_NE(crashed, endings.end()) << ::testing::PrintToString(endings);
  // As the schema documents it: "signal SIGSEGV".
  EXPECT_EQ(*crashed, "signal SIGSEGV");
}

// A plugin that aborts in create_stream (TensorFlow cannot use it): the
// report names the call in flight, the trace holds it, and a replay issues
// it again, crashing where the recording did; a fixed build returns.
TEST(ValidateLayerReport, NamesTheCallInFlightAtACrashAndTheTraceReplaysIt) {
  const TemporaryDirectory directory("sectl-validate-test-");
  const std::filesystem::path trace = directory.path() / "crash.trace";
  const CommandResult run =
      RunMisuseHost("well-behaved", directory, {"SECTL_VALIDATE_TRACE=" + trace.string()}, true,
                    FaultyPlugin("create_stream_aborts"));
  EXPECT_NE(run.exit_code, 0) << run.err;
  const std::vector<json> reports = ReadReports(directory.path());
  ASSERT_EQ(reports.size(), 1U) << run.err;
  EXPECT_EQ(reports[0]["ended"], "signal SIGABRT");
  const json crashed = FindingWithId(reports, "api.crashed_in_call");
  ASSERT_FALSE(crashed.is_null()) << Describe(AllFindings(reports));
  EXPECT_EQ(crashed["function"], "SP_StreamExecutor.create_stream");
  EXPECT_EQ(crashed["fault"], "plugin");

  const CommandResult shown = RunSectl({"trace", "show", trace.string(), "--format", "json"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  const json summary = json::parse(shown.out);
  ASSERT_TRUE(summary["crashed_in"].is_object()) << shown.out;
  EXPECT_EQ(summary["crashed_in"]["function"], "SP_StreamExecutor.create_stream");

  const CommandResult again = RunSectl(
      {"replay", trace.string(), FaultyPlugin("create_stream_aborts"), "--format", "json"});
  EXPECT_EQ(again.exit_code, 1) << again.out << again.err;
  EXPECT_EQ(json::parse(again.out)["outcome"], "crashed") << again.out;
  EXPECT_NE(again.out.find("create_stream"), std::string::npos) << again.out;

  const CommandResult fixed = RunSectl({"replay", trace.string(), CpuPlugin(), "--format", "json"});
  EXPECT_EQ(fixed.exit_code, 0) << fixed.out << fixed.err;
  EXPECT_NE(fixed.out.find("crashed in SP_StreamExecutor.create_stream"), std::string::npos)
      << fixed.out;
}

// Registration that fails, crashes, or never starts because the vendor's
// library crashes while it loads: each leaves a report saying so.
TEST(ValidateLayerReport, IsWrittenWhenRegistrationFails) {
  const TemporaryDirectory directory("sectl-validate-test-");
  const CommandResult run =
      RunMisuseHost("well-behaved", directory, {}, true, FaultyPlugin("init_fails"));
  EXPECT_EQ(run.exit_code, 3) << run.err;  // the host's SE_InitPlugin step failed
  const std::vector<json> reports = ReadReports(directory.path());
  ASSERT_EQ(reports.size(), 1U) << run.err;
  const std::string ended = reports[0]["ended"];
  EXPECT_EQ(ended.rfind("SE_InitPlugin failed: ", 0), 0U) << ended;
  EXPECT_NE(ended.find("no device driver is loaded"), std::string::npos) << ended;
}

// The vendor's message is the plugin's text: a 1 MB one is cut to 4 KiB
// with a note, as every report cuts a plugin's message.
TEST(ValidateLayerReport, CutsALongRegistrationFailureMessage) {
  const TemporaryDirectory directory("sectl-validate-test-");
  const CommandResult run =
      RunMisuseHost("well-behaved", directory, {}, true,
                    std::string(SECTL_HOSTILE_PLUGIN_DIR) + "/hostile_input_long_init_message.so");
  EXPECT_EQ(run.exit_code, 3) << run.err;
  const std::vector<json> reports = ReadReports(directory.path());
  ASSERT_EQ(reports.size(), 1U) << run.err;
  const std::string ended = reports[0]["ended"];
  EXPECT_EQ(ended.rfind("SE_InitPlugin failed: 14 ", 0), 0U) << ended.substr(0, 100);
  EXPECT_LT(ended.size(), 4200U);
  EXPECT_NE(ended.find("(1000000 bytes in all; cut at"), std::string::npos)
      << ended.substr(ended.size() - 100);
}

TEST(ValidateLayerReport, IsWrittenWhenRegistrationOrLoadingCrashes) {
  for (const std::string fault : {"init_crashes", "constructor_crashes"}) {
    SCOPED_TRACE(fault);
    const TemporaryDirectory directory("sectl-validate-test-");
    const CommandResult run =
        RunMisuseHost("well-behaved", directory, {}, true, FaultyPlugin(fault));
    EXPECT_NE(run.exit_code, 0) << run.err;
    const std::vector<json> reports = ReadReports(directory.path());
    ASSERT_EQ(reports.size(), 1U) << run.err;
    EXPECT_EQ(reports[0]["ended"], "signal SIGSEGV");
    const json crashed = FindingWithId(reports, "api.crashed_in_call");
    ASSERT_FALSE(crashed.is_null()) << Describe(AllFindings(reports));
    EXPECT_EQ(crashed["function"], "SE_InitPlugin");
  }
}

// ---- Configuration, exports, stderr ---------------------------------------

TEST(ValidateLayerConfiguration, WithoutAPluginSaysWhichVariableToSet) {
  const TemporaryDirectory directory("sectl-validate-test-");
  const CommandResult run =
      RunSectl({"probe", kLayer},
               RunOptions{.added_environment = {"SECTL_VALIDATE_REPORT=" +
                                                (directory.path() / "r-%r.json").string()}});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE((run.out + run.err).find("SECTL_VALIDATE_PLUGIN"), std::string::npos)
      << run.out << run.err;
}

TEST(ValidateLayerExports, OnlyTheEntryPoints) {
  const CommandResult nm = RunCommand({"nm", "-D", "--defined-only", kLayer});
  ASSERT_EQ(nm.exit_code, 0) << nm.err;
  std::set<std::string> exported;
  std::istringstream lines(nm.out);
  std::string address;
  std::string type;
  std::string name;
  while (lines >> address >> type >> name) exported.insert(name);
  // The entry points, and the mark by which the layer knows a copy of itself.
  EXPECT_EQ(exported, (std::set<std::string>{"SE_InitPlugin", "TF_InitKernel", "TF_InitGraph",
                                             "TF_InitProfiler", "TFNPD_InitPlugin", "GetPjrtApi",
                                             "sectl_validate_layer_identity"}));
}

// SECTL_VALIDATE_PLUGIN naming the layer, or a copy of it, used to recurse
// until the stack ran out (SIGSEGV, no message). SE_InitPlugin now fails
// with one line that says what to name instead.
TEST(ValidateLayerConfiguration, NamingTheLayerItselfIsRefusedInOneLine) {
  const TemporaryDirectory directory("sectl-validate-test-");
  const std::filesystem::path copy = directory.path() / "libcopy.so";
  std::filesystem::copy_file(kLayer, copy);
  for (const std::string& plugin : {std::string(kLayer), copy.string()}) {
    SCOPED_TRACE(plugin);
    const CommandResult run = RunMisuseHost("well-behaved", directory, {}, false, plugin);
    EXPECT_EQ(run.term_signal, 0) << run.err;
    EXPECT_NE(run.exit_code, 0) << run.err;
    EXPECT_NE(run.err.find("SECTL_VALIDATE_PLUGIN names the validation layer itself"),
              std::string::npos)
        << run.err;
  }
}

// In a child of its own (the layer is one per process, configured once):
// what dlsym on the layer gives for the forwarded entry points with
// `vendor` as the plugin. Exit status: 0 all as expected, else the number
// of the first expectation that failed.
int ForwardedEntryPointsInChild(const std::string& vendor, bool vendor_has_init_kernel) {
  ::setenv("SECTL_VALIDATE_PLUGIN", vendor.c_str(), 1);
  ::setenv("SECTL_VALIDATE_QUIET", "1", 1);
  ::setenv("SECTL_VALIDATE_REPORT", "/dev/null", 1);
  void* layer = ::dlopen(kLayer.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (layer == nullptr) return 10;
  void* own = ::dlopen(vendor.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (own == nullptr) return 11;
  void* init_kernel = ::dlsym(layer, "TF_InitKernel");
  if (vendor_has_init_kernel) {
    if (init_kernel == nullptr) return 12;
    if (init_kernel != ::dlsym(own, "TF_InitKernel")) return 13;
  } else if (init_kernel != nullptr) {
    return 14;
  }
  // Absent from every vendor here: absent from the layer too.
  for (const char* name : {"TF_InitGraph", "TF_InitProfiler", "TFNPD_InitPlugin", "GetPjrtApi"}) {
    if (::dlsym(layer, name) != nullptr) return 15;
  }
  return 0;
}

int ExitStatusOfChild(const std::string& vendor, bool vendor_has_init_kernel) {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(ForwardedEntryPointsInChild(vendor, vendor_has_init_kernel));
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(ValidateLayerExports, ForwardsTheVendorsOwnEntryPoints) {
  EXPECT_EQ(ExitStatusOfChild(FieldPlugin("field_test_util_style"), true), 0);
  EXPECT_EQ(ExitStatusOfChild(CpuPlugin(), false), 0);
}

TEST(ValidateLayerStderr, OneLinePerFindingKindAndFunction) {
  const TemporaryDirectory directory("sectl-validate-test-");
  // Both of create_stream_dependency's arguments are the destroyed stream:
  // one finding with two occurrences, so one line.
  const CommandResult run = RunMisuseHost("use-stream-after-destroy", directory, {}, false);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  std::vector<std::string> announced;
  std::istringstream lines(run.err);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("handle.use_after_destroy") != std::string::npos) announced.push_back(line);
  }
  ASSERT_EQ(announced.size(), 1U) << run.err;
  EXPECT_EQ(announced[0].rfind("sectl-validate: ", 0), 0U) << announced[0];
  const json finding = FindingWithId(ReadReports(directory.path()), "handle.use_after_destroy");
  ASSERT_FALSE(finding.is_null());
  EXPECT_EQ(finding["occurrences"], 2);
}

// ---- sectl validate ---------------------------------------------------------

TEST(ValidateCommand, WhereNamesTheLayerBesideSectl) {
  const CommandResult where = RunSectl({"validate", "where"});
  ASSERT_EQ(where.exit_code, 0) << where.err;
  EXPECT_EQ(std::filesystem::canonical(where.out.substr(0, where.out.find('\n'))),
            std::filesystem::canonical(kLayer));
}

TEST(ValidateCommand, ShowMergesReportsAndGatesOnSeverity) {
  const TemporaryDirectory directory("sectl-validate-test-");
  ASSERT_EQ(RunMisuseHost("deallocate-twice", directory).exit_code, 0);
  ASSERT_EQ(RunMisuseHost("leak-at-teardown", directory).exit_code, 0);
  std::vector<std::string> words{"validate", "show"};
  for (const auto& entry : std::filesystem::directory_iterator(directory.path())) {
    words.push_back(entry.path().string());
  }
  ASSERT_EQ(words.size(), 4U);

  const CommandResult table = RunSectl(words);
  EXPECT_EQ(table.exit_code, 1) << table.out << table.err;  // an error finding
  EXPECT_NE(table.out.find("memory.deallocate_twice"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("memory.leaked_at_teardown"), std::string::npos) << table.out;

  words.insert(words.end(), {"--format", "json", "--fail-on", "never"});
  const CommandResult merged = RunSectl(words);
  EXPECT_EQ(merged.exit_code, 0) << merged.err;
  const json document = json::parse(merged.out);
  EXPECT_EQ(document["reports"], 2);
  std::set<std::string> ids;
  for (const json& finding : document["findings"]) ids.insert(finding["id"]);
  EXPECT_TRUE(ids.count("memory.deallocate_twice") == 1 &&
              ids.count("memory.leaked_at_teardown") == 1)
      << merged.out;
}

TEST(ValidateCommand, ShowRefusesWhatIsNotALayerReportInOneLine) {
  const TemporaryDirectory directory("sectl-validate-test-");
  const std::filesystem::path other = directory.path() / "other.json";
  std::ofstream(other) << R"({"kind": "sectl.conform", "schema_version": 3})";
  const CommandResult shown = RunSectl({"validate", "show", other.string()});
  EXPECT_EQ(shown.exit_code, 2);
  EXPECT_NE(shown.err.find("not a validation layer report"), std::string::npos) << shown.err;
  EXPECT_EQ(std::count(shown.err.begin(), shown.err.end(), '\n'), 1) << shown.err;
}

// Hostile reports: a number where a string belongs is a one-line error, not
// an internal one; occurrences that add up past 2^64 - 1 are refused rather
// than wrapped; a message is shown with its escapes and layout characters
// written out, and cut at 4 KiB with a note.
TEST(ValidateCommand, ShowRefusesWrongTypesAndCountsThatWrapInOneLine) {
  const TemporaryDirectory directory("sectl-validate-test-");
  const auto write = [&](const std::string& name, const std::string& text) {
    const std::filesystem::path path = directory.path() / name;
    std::ofstream(path) << text;
    return path.string();
  };
  const auto expect_one_line = [](const CommandResult& shown, const std::string& fragment) {
    EXPECT_EQ(shown.exit_code, 2) << shown.err;
    EXPECT_EQ(shown.err.rfind("sectl: error: ", 0), 0U) << shown.err;
    EXPECT_NE(shown.err.find(fragment), std::string::npos) << shown.err;
    EXPECT_EQ(std::count(shown.err.begin(), shown.err.end(), '\n'), 1) << shown.err;
  };
  expect_one_line(
      RunSectl({"validate", "show", write("kind.json", R"({"kind": 5, "findings": []})")}),
      "not a validation layer report");
  expect_one_line(RunSectl({"validate", "show", write("version.json", R"({"kind": "sectl.validate",
                                  "schema_version": "2", "findings": []})")}),
                  "schema_version \"2\" is not one this sectl reads");
  expect_one_line(RunSectl({"validate", "show", write("severity.json", R"({"kind": "sectl.validate",
                "schema_version": 2, "findings": [{"id": "x", "occurrences": 1, "severity": 1}]})")}),
                  "finding 0: \"severity\" is a number, not a string");
  const std::string huge = write("huge.json", R"({"kind": "sectl.validate", "schema_version": 2,
      "findings": [{"id": "memory.x", "function": "f", "severity": "error",
                    "occurrences": 18446744073709551615}]})");
  expect_one_line(RunSectl({"validate", "show", huge, huge}),
                  "the occurrences of memory.x at f add up to more than 18446744073709551615");
}

TEST(ValidateCommand, ShowWritesOutEscapesAndCutsALongMessage) {
  const TemporaryDirectory directory("sectl-validate-test-");
  const std::filesystem::path path = directory.path() / "hostile.json";
  json finding = {{"id", "memory.x"},
                  {"severity", "error"},
                  {"occurrences", 1},
                  {"message", "\x1b]0;owned\x07\x1b[2J\u202eALL CHECKS PASSED\u2028" +
                                  std::string(100'000, 'm')}};
  std::ofstream(path) << json{{"kind", "sectl.validate"},
                              {"schema_version", 2},
                              {"findings", json::array({finding})}}
                             .dump();
  const CommandResult shown = RunSectl({"validate", "show", path.string()});
  EXPECT_EQ(shown.exit_code, 1) << shown.err;
  EXPECT_EQ(shown.out.find('\x1b'), std::string::npos) << shown.out;
  EXPECT_EQ(shown.out.find("\u202e"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("\\x1b]0;owned\\x07\\x1b[2J\\u{202e}ALL CHECKS PASSED\\u{2028}"),
            std::string::npos)
      << shown.out.substr(0, 400);
  EXPECT_LT(shown.out.size(), 5000U);
  EXPECT_NE(shown.out.find("bytes in all; cut at"), std::string::npos) << shown.out.substr(4000);
}

// ---- Record and replay -----------------------------------------------------

// The traces the layer wrote into `directory` (t-<token>.trace).
std::vector<std::filesystem::path> Traces(const std::filesystem::path& directory) {
  std::vector<std::filesystem::path> traces;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    if (entry.path().extension() == ".trace") traces.push_back(entry.path());
  }
  std::sort(traces.begin(), traces.end());
  return traces;
}

TEST(ValidateLayerTrace, ConformTracesReplayCleanOnTheSamePlugin) {
  const TemporaryDirectory directory("sectl-validate-test-");
  std::vector<std::string> environment = LayerEnvironment(CpuPlugin(), directory.path());
  environment.push_back("SECTL_VALIDATE_TRACE=" + (directory.path() / "t-%r.trace").string());
  const ConformRun run =
      Conform(kLayer, directory.path() / "layer.json",
              {"--filter", "memcpy.*:stream.*:event.*:callback.*:memory.*"}, environment);
  EXPECT_EQ(run.command.exit_code, 0) << run.command.err;
  const std::vector<std::filesystem::path> traces = Traces(directory.path());
  // One per check process, each a whole trace (an end record).
  ASSERT_GE(traces.size(), 10U);
  for (const auto& trace : traces) {
    const CommandResult shown = RunSectl({"trace", "show", trace.string(), "--format", "json"});
    ASSERT_EQ(shown.exit_code, 0) << shown.err;
    const json summary = json::parse(shown.out);
    EXPECT_FALSE(summary.dump().find("\"truncated\":true") != std::string::npos) << trace;
    const CommandResult replayed = RunSectl({"replay", trace.string(), CpuPlugin()});
    EXPECT_EQ(replayed.exit_code, 0) << trace << "\n" << replayed.out << replayed.err;
  }
}

TEST(ValidateLayerTrace, HostTraceReplaysCleanAndFindsTheFaultyBuild) {
  const TemporaryDirectory directory("sectl-validate-test-");
  const std::filesystem::path trace = directory.path() / "host.trace";
  const CommandResult recorded =
      RunMisuseHost("well-behaved", directory, {"SECTL_VALIDATE_TRACE=" + trace.string()});
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;

  const CommandResult clean = RunSectl({"replay", trace.string(), CpuPlugin()});
  EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;

  // The same calls on a build whose sync_memcpy_dtod copies the wrong bytes.
  const CommandResult faulty =
      RunSectl({"replay", trace.string(), FaultyPlugin("sync_dtod_wrong"), "--format", "json"});
  EXPECT_EQ(faulty.exit_code, 1) << faulty.out << faulty.err;
  EXPECT_NE(faulty.out.find("sync_memcpy_dtoh"), std::string::npos) << faulty.out;
}

// Issue 28: a call the layer proved invalid and did not pass on is traced
// as withheld. `trace show` counts it apart from the calls, and a replay
// does not issue it: the plugin never saw it, and a destroyed stream or an
// unallocated range would crash the replay where the recording did not.
TEST(ValidateLayerTrace, WithheldCallsAreTracedAsSuchAndNeverReplayed) {
  for (const char* scenario : {"use-stream-after-destroy", "copy-to-unallocated"}) {
    SCOPED_TRACE(scenario);
    const TemporaryDirectory directory("sectl-validate-test-");
    const std::filesystem::path trace = directory.path() / "withheld.trace";
    const CommandResult recorded =
        RunMisuseHost(scenario, directory, {"SECTL_VALIDATE_TRACE=" + trace.string()});
    ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
    const std::vector<json> recorded_reports = ReadReports(directory.path());
    ASSERT_EQ(recorded_reports.size(), 1U);
    ASSERT_TRUE(recorded_reports[0].contains("withheld")) << recorded_reports[0].dump();
    uint64_t withheld = 0;
    for (const auto& [function, count] : recorded_reports[0]["withheld"].items()) {
      withheld += count.get<uint64_t>();
    }
    ASSERT_GT(withheld, 0U) << recorded_reports[0].dump();

    const CommandResult shown = RunSectl({"trace", "show", trace.string(), "--format", "json"});
    ASSERT_EQ(shown.exit_code, 0) << shown.out << shown.err;
    EXPECT_EQ(json::parse(shown.out)["withheld"], withheld) << shown.out;

    const std::filesystem::path replayed = directory.path() / "replayed";
    std::filesystem::create_directory(replayed);
    const CommandResult replay =
        RunSectl({"replay", trace.string(), kLayer, "--format", "json"},
                 RunOptions{.added_environment = LayerEnvironment(CpuPlugin(), replayed)});
    ASSERT_EQ(replay.exit_code, 0) << replay.out << replay.err;
    EXPECT_EQ(json::parse(replay.out)["outcome"], "clean") << replay.out;
    const std::vector<json> replayed_reports = ReadReports(replayed);
    ASSERT_EQ(replayed_reports.size(), 1U) << replay.err;
    EXPECT_FALSE(replayed_reports[0].contains("withheld") &&
                 !replayed_reports[0]["withheld"].empty())
        << "the replay issued a call the recording withheld: " << replayed_reports[0].dump();
  }
}

// Issue 28: replaying a host's allocations of 0 bytes on the very build it
// was recorded with told of "an allocation of 0 bytes that failed in the
// recording succeeded now", and freed each null it got: deallocates the
// trace does not hold. Now the replay is clean and makes exactly the
// traced memory calls (seen by the layer itself, replayed through it),
// while a build that crashes on 0 bytes still fails the replay.
TEST(ValidateLayerTrace, ZeroByteAllocationsReplayCleanAndExactlyOnAnUnchangedBuild) {
  const TemporaryDirectory directory("sectl-validate-test-");
  const std::filesystem::path trace = directory.path() / "zero.trace";
  const CommandResult recorded =
      RunMisuseHost("allocate-zero", directory, {"SECTL_VALIDATE_TRACE=" + trace.string()});
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  const std::vector<json> recorded_reports = ReadReports(directory.path());
  ASSERT_EQ(recorded_reports.size(), 1U);

  const CommandResult clean = RunSectl({"replay", trace.string(), CpuPlugin(), "--format", "json"});
  ASSERT_EQ(clean.exit_code, 0) << clean.out << clean.err;
  const json replay = json::parse(clean.out);
  EXPECT_EQ(replay["outcome"], "clean") << clean.out;
  EXPECT_EQ(replay["records_skipped"], 0) << clean.out;
  EXPECT_EQ(replay["notes"], json::array()) << clean.out;

  // The replay, through the layer: its report counts the calls it made.
  const std::filesystem::path replayed = directory.path() / "replayed";
  std::filesystem::create_directory(replayed);
  const CommandResult through_layer =
      RunSectl({"replay", trace.string(), kLayer},
               RunOptions{.added_environment = LayerEnvironment(CpuPlugin(), replayed)});
  ASSERT_EQ(through_layer.exit_code, 0) << through_layer.out << through_layer.err;
  const std::vector<json> replayed_reports = ReadReports(replayed);
  ASSERT_EQ(replayed_reports.size(), 1U) << through_layer.err;
  for (const char* function :
       {"SP_StreamExecutor.allocate", "SP_StreamExecutor.deallocate",
        "SP_StreamExecutor.host_memory_allocate", "SP_StreamExecutor.host_memory_deallocate"}) {
    EXPECT_EQ(replayed_reports[0]["calls"].value(function, 0),
              recorded_reports[0]["calls"].value(function, 0))
        << function << ": replayed " << replayed_reports[0]["calls"].dump() << ", recorded "
        << recorded_reports[0]["calls"].dump();
  }

  const CommandResult crashing =
      RunSectl({"replay", trace.string(), FaultyPlugin("allocate_zero_crash"), "--format", "json"});
  EXPECT_EQ(crashing.exit_code, 1) << crashing.out << crashing.err;
  EXPECT_NE(crashing.out.find("SP_StreamExecutor.allocate"), std::string::npos) << crashing.out;
}

}  // namespace
}  // namespace sectl::testing
