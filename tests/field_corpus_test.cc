// The field corpus (reference_plugins/field/): plugins written in the styles
// real plugins use. The correct ones must get no failure under
// --tf-version latest; each defect must be caught by a check that tests the
// broken function, while every other check passes, skips, warns or is
// blocked by that same function (a root cause, not a cascade).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sectl_process.h"

namespace sectl::testing {
namespace {

std::string FieldPlugin(const std::string& name) {
  return std::string(SECTL_FIELD_PLUGIN_DIR) + "/" + name + ".so";
}

// clang-tidy 14 reads nlohmann::json's noexcept move as throwing.
struct ConformRun {  // NOLINT(bugprone-exception-escape)
  CommandResult command;
  nlohmann::json report;
};

// Runs sectl conform on a field plugin under the newest TensorFlow.
ConformRun Conform(const std::string& plugin) {
  ConformRun run;
  run.command = RunSectl({"conform", FieldPlugin(plugin), "--report", "json", "--tf-version",
                          "latest", "--timeout", "20", "--no-throughput"});
  try {
    run.report = nlohmann::json::parse(run.command.out);
  } catch (const nlohmann::json::exception& error) {
    ADD_FAILURE() << plugin << ": stdout is not JSON (" << error.what() << "): " << run.command.err
                  << run.command.out;
  }
  return run;
}

// Every result that is not a pass, one per line, for failure messages.
std::string NonPassingResults(const nlohmann::json& report) {
  std::ostringstream out;
  for (const auto& result : report.value("results", nlohmann::json::array())) {
    if (result["status"] == "pass") continue;
    out << "  " << result["status"].get<std::string>() << " " << result["id"].get<std::string>()
        << " (" << result.value("severity", "") << "): " << result.value("message", "");
    if (result.contains("culprits") && !result["culprits"].empty()) {
      out << " [culprits " << result["culprits"].dump() << "]";
    }
    out << "\n";
  }
  return out.str();
}

bool Contains(const nlohmann::json& list, const std::string& value) {
  return list.is_array() && std::find(list.begin(), list.end(), value) != list.end();
}

// ---- Correct plugins --------------------------------------------------------

class CorrectFieldPlugin : public ::testing::TestWithParam<std::string> {};

TEST_P(CorrectFieldPlugin, HasNoFailureUnderLatest) {
  const ConformRun run = Conform(GetParam());
  ASSERT_TRUE(run.report.is_object());
  ASSERT_TRUE(run.report["load_error"].is_null()) << run.report["load_error"];
  std::vector<std::string> failed;
  for (const auto& result : run.report["results"]) {
    const std::string status = result["status"];
    if (status == "fail" || status == "crash" || status == "timeout" || status == "blocked") {
      failed.push_back(result["id"]);
    }
  }
  EXPECT_TRUE(failed.empty()) << GetParam() << " is correct for TensorFlow latest, yet "
                              << failed.size() << " check(s) did not accept it. Every result "
                              << "that is not a pass:\n"
                              << NonPassingResults(run.report);
  EXPECT_TRUE(run.report["root_causes"].empty()) << run.report["root_causes"].dump(2);
  // Nothing misbehaved when the checks' helpers were tried before them.
  ASSERT_TRUE(run.report.contains("learned_before_checks"));
  EXPECT_TRUE(run.report["learned_before_checks"].empty())
      << run.report["learned_before_checks"].dump(2);
  EXPECT_EQ(run.command.exit_code, 0) << NonPassingResults(run.report) << run.command.err;
}

INSTANTIATE_TEST_SUITE_P(FieldCorpus, CorrectFieldPlugin,
                         ::testing::Values("field_test_util_style", "field_sizeof_style",
                                           "field_memset_style", "field_no_struct_size",
                                           "field_synchronous", "field_constant_device_count",
                                           "field_cxx_whole_struct", "field_sample_kernels",
                                           "field_framework_linked", "field_every_module"),
                         [](const auto& info) { return info.param; });

// ---- Defects ----------------------------------------------------------------

struct FieldDefect {
  std::string plugin;  // field_defect_<name>
  // The broken plugin function(s): the crash may show in the function that
  // trips over the defect (nanoseconds over create_timer's unset handle).
  std::vector<std::string> functions;
  // A check that tests one of `functions` and must catch the defect.
  std::string catching_check;
};

void PrintTo(const FieldDefect& defect, std::ostream* out) { *out << defect.plugin; }

// The checks whose declared `.tests` include one of `functions`, from
// `sectl conform --list --format json`.
std::set<std::string> ChecksTesting(const std::vector<std::string>& functions) {
  const CommandResult listed = RunSectl({"conform", "--list", "--format", "json"});
  std::set<std::string> testing;
  for (const auto& check : nlohmann::json::parse(listed.out)) {
    for (const auto& function : functions) {
      if (Contains(check.value("tests", nlohmann::json::array()), function)) {
        testing.insert(check["id"].get<std::string>());
      }
    }
  }
  return testing;
}

bool NamesAny(const nlohmann::json& culprits, const std::vector<std::string>& functions) {
  return std::any_of(functions.begin(), functions.end(),
                     [&](const std::string& function) { return Contains(culprits, function); });
}

class FieldDefectPlugin : public ::testing::TestWithParam<FieldDefect> {};

TEST_P(FieldDefectPlugin, CaughtByTheCheckThatTestsItAndBlocksTheRest) {
  const FieldDefect& defect = GetParam();
#if defined(SECTL_SANITIZED)
  // mallinfo2 cannot see a sanitizer's allocator, so leaks go unmeasured.
  if (defect.plugin == "field_defect_leaking_destroys") {
    GTEST_SKIP() << "the heap cannot be measured under a sanitizer's allocator";
  }
#endif
  const std::set<std::string> testing = ChecksTesting(defect.functions);
  EXPECT_TRUE(testing.count(defect.catching_check))
      << defect.catching_check << " does not declare .tests on any of "
      << nlohmann::json(defect.functions).dump();

  const ConformRun run = Conform(defect.plugin);
  ASSERT_TRUE(run.report.is_object());
  ASSERT_TRUE(run.report["load_error"].is_null()) << run.report["load_error"];
  const std::string all = NonPassingResults(run.report);

  bool caught = false;
  bool required = false;
  for (const auto& result : run.report["results"]) {
    const std::string id = result["id"];
    const std::string status = result["status"];
    const bool failing = status == "fail" || status == "crash" || status == "timeout" ||
                         (status == "warn" && result["severity"] != "required");
    if (id == defect.catching_check) {
      required = result["severity"] == "required";
      caught = failing && NamesAny(result["culprits"], defect.functions);
      EXPECT_TRUE(caught) << id << " should catch " << defect.plugin << ", blaming "
                          << nlohmann::json(defect.functions).dump() << ":\n"
                          << result.dump(2);
      continue;
    }
    if (testing.count(id) && failing) {
      // Another check testing the broken function may fail too, on it.
      EXPECT_TRUE(NamesAny(result["culprits"], defect.functions)) << result.dump(2);
      continue;
    }
    if (status == "blocked") {
      EXPECT_TRUE(NamesAny(result["culprits"], defect.functions))
          << id << " is blocked by another function than the defect's:\n"
          << result.dump(2);
      continue;
    }
    EXPECT_TRUE(status == "pass" || status == "skip" || status == "warn")
        << id << " should pass, skip or be blocked by " << nlohmann::json(defect.functions).dump()
        << ", not " << status << ":\n"
        << result.dump(2);
  }
  EXPECT_TRUE(caught) << "every result that is not a pass:\n" << all;

  // The root-cause summary names the broken function, and nothing else.
  // (One line per broken function: a defect may break more than one.)
  const nlohmann::json& causes = run.report["root_causes"];
  ASSERT_FALSE(causes.empty()) << all;
  ASSERT_LE(causes.size(), defect.functions.size()) << causes.dump(2) << "\n" << all;
  for (const auto& cause : causes) {
    EXPECT_TRUE(NamesAny(nlohmann::json::array({cause["function"]}), defect.functions))
        << causes.dump(2);
  }
  const auto& first = causes[0];
  EXPECT_TRUE(Contains(first["failed"], defect.catching_check) ||
              Contains(first["warned"], defect.catching_check))
      << causes.dump(2);
  EXPECT_EQ(run.command.exit_code, required ? 1 : 0) << run.command.err;
}

INSTANTIATE_TEST_SUITE_P(
    FieldCorpus, FieldDefectPlugin,
    ::testing::Values(
        FieldDefect{
            "field_defect_noop_allocate", {"SP_StreamExecutor.allocate"}, "memory.allocate"},
        FieldDefect{"field_defect_callback_false",
                    {"SP_StreamExecutor.host_callback"},
                    "callback.enqueued"},
        // Accepted, never run (TensorFlow's test plugin): tests/hidden_defect_test.cc
        // asserts each check's status and how little time it takes.
        FieldDefect{"field_defect_callback_never_runs",
                    {"SP_StreamExecutor.host_callback"},
                    "callback.called_once"},
        FieldDefect{"field_defect_timer_unset",
                    {"SP_StreamExecutor.create_timer", "SP_TimerFns.nanoseconds"},
                    "timer.nanoseconds_unit"},
        FieldDefect{"field_defect_throw_create_device",
                    {"SP_PlatformFns.create_device"},
                    "device.out_of_range"},
        FieldDefect{"field_defect_exit_sync_htod",
                    {"SP_StreamExecutor.sync_memcpy_htod"},
                    "memcpy.sync_htod"},
        FieldDefect{"field_defect_zero_deallocate_crash",
                    {"SP_StreamExecutor.deallocate"},
                    "memory.allocate_zero"},
        FieldDefect{
            "field_defect_overrun_small_blocks", {"SP_StreamExecutor.allocate"}, "memory.allocate"},
        FieldDefect{"field_defect_leaking_destroys",
                    {"SP_StreamExecutor.destroy_stream", "SP_StreamExecutor.destroy_event"},
                    "lifecycle.no_growth"}),
    [](const auto& info) { return info.param.plugin; });

}  // namespace
}  // namespace sectl::testing
