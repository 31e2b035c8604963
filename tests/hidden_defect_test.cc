// No defect hides (issue 25): behind a host_callback that never runs, an
// allocate that does nothing or an event status that is always UNKNOWN, a
// broken timer or event function is still reported by the check that tests
// it, with the right root cause, and quickly: what misbehaves is learned
// once, before the checks (conform/helper_triage.h), and every check routes
// around it at once.
//
// The plugins are the field corpus's (reference_plugins/field/), written in
// the styles of TensorFlow's own test plugin and the community sample.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "sectl_process.h"

namespace sectl::testing {
namespace {

using nlohmann::json;

const std::string kHostCallback = "SP_StreamExecutor.host_callback";
const std::string kAllocate = "SP_StreamExecutor.allocate";
const std::string kGetEventStatus = "SP_StreamExecutor.get_event_status";
const std::string kCreateTimer = "SP_StreamExecutor.create_timer";
const std::string kNanoseconds = "SP_TimerFns.nanoseconds";

// A check waits this long for what a correct plugin does at once; what was
// learned before the checks makes it wait far less.
constexpr double kPatienceSeconds = 3.0;

std::string FieldPlugin(const std::string& name) {
  return std::string(SECTL_FIELD_PLUGIN_DIR) + "/" + name + ".so";
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// clang-tidy 14 reads nlohmann::json's noexcept move as throwing.
struct ConformRun {  // NOLINT(bugprone-exception-escape)
  CommandResult command;
  json report;
  std::map<std::string, json> results;  // by id

  // The result of `id`, or an empty object (and a test failure).
  json Result(const std::string& id) const {
    const auto found = results.find(id);
    if (found != results.end()) return found->second;
    ADD_FAILURE() << id << " did not run";
    return json::object();
  }

  // Every result that is not a pass, one per line, for failure messages.
  std::string NotPassing() const {
    std::string lines;
    for (const auto& [id, result] : results) {
      if (result["status"] == "pass") continue;
      lines += "  " + result["status"].get<std::string>() + " " + id + " " +
               result["culprits"].dump() + ": " + result["message"].get<std::string>() + "\n";
    }
    return lines;
  }
};

ConformRun Conform(const std::string& plugin, const std::vector<std::string>& extra) {
  std::vector<std::string> arguments = {"conform",   plugin, "--report",       "json",
                                        "--timeout", "20",   "--no-throughput"};
  arguments.insert(arguments.end(), extra.begin(), extra.end());
  ConformRun run;
  run.command = RunSectl(arguments);
  run.report = json::parse(run.command.out, nullptr, false);
  if (!run.report.is_object()) {
    ADD_FAILURE() << "stdout is not a JSON report: " << run.command.err << run.command.out;
    run.report = json::object();
    return run;
  }
  for (const auto& result : run.report["results"]) {
    run.results[result["id"].get<std::string>()] = result;
  }
  return run;
}

// The functions the run learned about before the checks.
std::set<std::string> Learned(const ConformRun& run) {
  std::set<std::string> functions;
  for (const auto& entry : run.report.value("learned_before_checks", json::array())) {
    functions.insert(entry["function"].get<std::string>());
  }
  return functions;
}

std::string LearnedProblemOf(const ConformRun& run, const std::string& function) {
  for (const auto& entry : run.report.value("learned_before_checks", json::array())) {
    if (entry["function"] == function) return entry["problem"];
  }
  return "(nothing learned about " + function + ")";
}

// `id` observed `status`, blaming exactly `culprits`. A check that is not
// required reports a settled status (a failure a warning, blocked a skip:
// report::SettleStatus) and keeps what it observed in observed_status.
void ExpectResult(const ConformRun& run, const std::string& id, const std::string& status,
                  const std::vector<std::string>& culprits = {}) {
  const json result = run.Result(id);
  const json& observed = result.contains("observed_status") && result["observed_status"].is_string()
                             ? result["observed_status"]
                             : result["status"];
  EXPECT_EQ(observed, status) << result.dump(2);
  if (observed != result["status"]) {
    EXPECT_NE(result["severity"], "required") << "a required check's status is never settled";
  }
  EXPECT_EQ(result.value("culprits", json::array()), json(culprits)) << result.dump(2);
}

// The root-cause summary: function -> the checks it failed, and blocked.
struct Cause {
  std::set<std::string> failed;
  std::set<std::string> blocked;
};
std::map<std::string, Cause> RootCauses(const ConformRun& run) {
  std::map<std::string, Cause> causes;
  for (const auto& cause : run.report.value("root_causes", json::array())) {
    Cause& entry = causes[cause["function"].get<std::string>()];
    for (const auto& id : cause["failed"]) entry.failed.insert(id.get<std::string>());
    for (const auto& id : cause["blocked"]) entry.blocked.insert(id.get<std::string>());
  }
  return causes;
}

std::set<std::string> Functions(const std::map<std::string, Cause>& causes) {
  std::set<std::string> functions;
  for (const auto& [function, cause] : causes) functions.insert(function);
  return functions;
}

// No check waited out its patience: what was learned spared every wait.
void ExpectNoCheckWaitedSeconds(const ConformRun& run) {
  for (const auto& [id, result] : run.results) {
    EXPECT_LT(result["duration_s"].get<double>(), kPatienceSeconds * 2 / 3)
        << id << " waited as if nothing had been learned: " << result.dump(2);
  }
}

class EachGeneration : public ::testing::TestWithParam<std::string> {};

// ---- A host_callback that returns true and never runs the callback ------------

using CallbackNeverRuns = EachGeneration;

TEST_P(CallbackNeverRuns, IsLearnedOnceAndFailsOnlyTheChecksThatTestIt) {
  const ConformRun run =
      Conform(FieldPlugin("field_defect_callback_never_runs"), {"--tf-version", GetParam()});
  EXPECT_EQ(run.command.exit_code, 1) << run.command.err;
  EXPECT_EQ(Learned(run), std::set<std::string>{kHostCallback});
  EXPECT_TRUE(Contains(LearnedProblemOf(run, kHostCallback), "had not run it 1 s later"))
      << run.report["learned_before_checks"].dump(2);

  ExpectResult(run, "callback.enqueued", "pass");
  for (const char* id :
       {"callback.called_once", "callback.after_earlier_work", "callback.error_reaches_stream"}) {
    ExpectResult(run, id, "fail", {kHostCallback});
  }
  EXPECT_TRUE(Contains(run.Result("callback.called_once")["message"],
                       "within 250 ms, as before "
                       "the checks"))
      << run.Result("callback.called_once").dump(2);
  // Nothing else can hold one stream while watching another, or time a
  // callback of known duration: blocked at once, saying why.
  for (const char* id :
       {"stream.dependency", "stream.wait_for_event", "timer.measures_stream_time"}) {
    ExpectResult(run, id, "blocked", {kHostCallback});
    EXPECT_TRUE(Contains(run.Result(id)["message"], "(learned before the checks)"))
        << run.Result(id).dump(2);
  }
  // The rest keep the stream busy with a copy instead, and pass.
  for (const char* id :
       {"event.completes_when_reached", "event.status_values", "event.rerecord_resets",
        "event.block_host_for_event", "stream.block_host_until_done",
        "stream.synchronize_all_activity", "stream.in_order", "timer.nanoseconds_unit"}) {
    ExpectResult(run, id, "pass");
  }
  const auto causes = RootCauses(run);
  ASSERT_EQ(Functions(causes), std::set<std::string>{kHostCallback}) << run.NotPassing();
  EXPECT_EQ(causes.at(kHostCallback).failed,
            (std::set<std::string>{"callback.called_once", "callback.after_earlier_work",
                                   "callback.error_reaches_stream"}));
  ExpectNoCheckWaitedSeconds(run);
}

INSTANTIATE_TEST_SUITE_P(FieldCorpus, CallbackNeverRuns, ::testing::Values("2.10", "latest"),
                         [](const auto& info) {
                           return info.param == "2.10" ? "tf2_10" : "latest";
                         });

// ---- TensorFlow's own test plugin ---------------------------------------------

using TfTestPlugin = EachGeneration;

TEST_P(TfTestPlugin, HasEveryDefectReportedByTheCheckThatTestsIt) {
  const ConformRun run = Conform(FieldPlugin("field_tf_test_plugin"), {"--tf-version", GetParam()});
  EXPECT_EQ(run.command.exit_code, 1) << run.command.err;
  EXPECT_EQ(Learned(run), (std::set<std::string>{kHostCallback, kGetEventStatus, kAllocate}))
      << run.report["learned_before_checks"].dump(2);

  // create_timer sets nothing; nanoseconds reads timer->timer_id through the
  // null handle. Found on an idle stream, behind callbacks that never run
  // and an allocate that does nothing; required where TensorFlow uses timers.
  const json timer = run.Result("timer.nanoseconds_unit");
  ExpectResult(run, "timer.nanoseconds_unit", "crash", {kCreateTimer, kNanoseconds});
  // Built with the sanitizers, the plugin's own UBSan report ends the
  // process before the dereference can: the null handle is named alike.
  EXPECT_TRUE(Contains(timer["message"],
                       "nanoseconds dereferenced the null handle create_timer returned") ||
              Contains(timer["message"],
                       "nanoseconds ended the process on the null handle create_timer returned"))
      << timer.dump(2);
  EXPECT_EQ(timer["severity"], GetParam() == "2.10" ? "required" : "recommended");

  // get_event_status answers UNKNOWN, on which TensorFlow's EventMgr aborts.
  ExpectResult(run, "event.status_values", "fail", {kGetEventStatus});
  ExpectResult(run, "event.completes_when_reached", "fail", {kGetEventStatus});
  EXPECT_TRUE(Contains(run.Result("event.status_values")["message"], "answered UNKNOWN"));
  // What an idle stream cannot show is blocked by the busy work's route.
  ExpectResult(run, "event.rerecord_resets", "blocked", {kHostCallback});
  ExpectResult(run, "event.block_host_for_event", "blocked", {kHostCallback});

  ExpectResult(run, "callback.called_once", "fail", {kHostCallback});
  ExpectResult(run, "memory.allocate", "fail", {kAllocate});

  const auto causes = RootCauses(run);
  for (const std::string& function : {kCreateTimer, kNanoseconds}) {
    ASSERT_TRUE(causes.count(function)) << run.NotPassing();
    EXPECT_EQ(causes.at(function).failed, std::set<std::string>{"timer.nanoseconds_unit"});
  }
  ASSERT_TRUE(causes.count(kGetEventStatus)) << run.NotPassing();
  EXPECT_EQ(causes.at(kGetEventStatus).failed,
            (std::set<std::string>{"event.completes_when_reached", "event.status_values"}));
  ExpectNoCheckWaitedSeconds(run);
}

INSTANTIATE_TEST_SUITE_P(FieldCorpus, TfTestPlugin, ::testing::Values("2.10", "latest"),
                         [](const auto& info) {
                           return info.param == "2.10" ? "tf2_10" : "latest";
                         });

// ---- UNKNOWN events where nothing can keep a stream busy ----------------------

using EventUnknownNoBusyWork = EachGeneration;

TEST_P(EventUnknownNoBusyWork, IsFoundOnAnIdleStream) {
  const ConformRun run =
      Conform(FieldPlugin("field_defect_event_unknown_no_busy_work"), {"--tf-version", GetParam()});
  EXPECT_EQ(run.command.exit_code, 1) << run.command.err;
  EXPECT_EQ(Learned(run), (std::set<std::string>{kHostCallback, kGetEventStatus, kAllocate}));

  ExpectResult(run, "event.status_values", "fail", {kGetEventStatus});
  EXPECT_TRUE(Contains(run.Result("event.status_values")["message"],
                       "answered UNKNOWN for an event just recorded on an idle stream"))
      << run.Result("event.status_values").dump(2);
  ExpectResult(run, "event.completes_when_reached", "fail", {kGetEventStatus});
  for (const char* id : {"event.rerecord_resets", "event.block_host_for_event",
                         "stream.block_host_until_done", "stream.synchronize_all_activity"}) {
    ExpectResult(run, id, "blocked", {kHostCallback});
  }
  // The timer is correct, and an idle stream shows it: start, the host's
  // sleep, stop.
  ExpectResult(run, "timer.nanoseconds_unit", "pass");
  EXPECT_TRUE(Contains(run.Result("timer.nanoseconds_unit")["details"].value("kept_busy_by", ""),
                       "nothing (an idle stream"))
      << run.Result("timer.nanoseconds_unit").dump(2);

  const auto causes = RootCauses(run);
  EXPECT_EQ(Functions(causes), (std::set<std::string>{kAllocate, kHostCallback, kGetEventStatus}))
      << run.NotPassing();
  ExpectNoCheckWaitedSeconds(run);
}

INSTANTIATE_TEST_SUITE_P(FieldCorpus, EventUnknownNoBusyWork, ::testing::Values("2.10", "latest"),
                         [](const auto& info) {
                           return info.param == "2.10" ? "tf2_10" : "latest";
                         });

// ---- A check keeps what it saw before it was blocked ---------------------------

// In sectl's own process nothing is learned before the checks, so
// event.status_values keeps the stream busy with a host callback, sees the
// UNKNOWN, and only then finds that the callback never runs: the UNKNOWN it
// saw is its failure, and it says what stopped the rest.
TEST(ObservedBeforeBlocked, IsReportedAsTheChecksFailure) {
  const ConformRun run = Conform(FieldPlugin("field_tf_test_plugin"),
                                 {"--isolation", "none", "--filter", "event.status_values"});
  ASSERT_TRUE(run.report.contains("learned_before_checks")) << run.command.out;
  EXPECT_TRUE(run.report["learned_before_checks"].empty());
  ExpectResult(run, "event.status_values", "fail", {kGetEventStatus});
  const std::string message = run.Result("event.status_values").value("message", "");
  EXPECT_TRUE(Contains(message, "get_event_status answered UNKNOWN")) << message;
  EXPECT_TRUE(Contains(message, "the check stopped there")) << message;
  EXPECT_EQ(run.command.exit_code, 1);
}

// ---- A skip never hides a broken function ---------------------------------------

// A check that cannot establish what it should because a plugin function
// is broken says so: blocked by that function, or failed where it tests it,
// never skipped (a skip would let a run of only this check pass).
struct StoppedByABrokenFunction {
  std::string fault;  // faulty_<fault>.so
  std::string check;
  std::string status;   // "blocked" or "fail"
  std::string culprit;  // the broken function
  std::vector<std::string> arguments = {};
};

void PrintTo(const StoppedByABrokenFunction& stop, std::ostream* out) { *out << stop.fault; }

class SkipNeverHides : public ::testing::TestWithParam<StoppedByABrokenFunction> {};

TEST_P(SkipNeverHides, TheBrokenFunctionBlocksOrFailsTheCheck) {
  const StoppedByABrokenFunction& stop = GetParam();
  std::vector<std::string> arguments = {"--filter", stop.check};
  arguments.insert(arguments.end(), stop.arguments.begin(), stop.arguments.end());
  const ConformRun run =
      Conform(std::string(SECTL_FAULTY_PLUGIN_DIR) + "/faulty_" + stop.fault + ".so", arguments);
  ExpectResult(run, stop.check, stop.status, {stop.culprit});
}

INSTANTIATE_TEST_SUITE_P(
    Faults, SkipNeverHides,
    ::testing::Values(
        // Two live blocks share their bytes: a copy between them is not judged.
        StoppedByABrokenFunction{"allocate_one_block", "memcpy.dtod", "blocked", kAllocate},
        // UNKNOWN while pending: the event never says it completed.
        StoppedByABrokenFunction{"event_status_unknown", "event.completes_when_reached", "fail",
                                 kGetEventStatus},
        // COMPLETE at once: a second record cannot be told from the first.
        StoppedByABrokenFunction{"event_complete_early", "event.rerecord_resets", "blocked",
                                 kGetEventStatus},
        StoppedByABrokenFunction{"callback_never_called", "callback.after_earlier_work", "fail",
                                 kHostCallback},
        StoppedByABrokenFunction{"usage_returns_false", "memory.usage_tracks_allocations", "fail",
                                 "SP_StreamExecutor.device_memory_usage"},
        // A device table that fills up: growth over 50 cycles cannot be measured.
        StoppedByABrokenFunction{"device_table_exhausted", "lifecycle.no_growth", "blocked",
                                 "SP_PlatformFns.create_device"},
        // A reading in microseconds: what the timer measures cannot be told.
        StoppedByABrokenFunction{"timer_in_microseconds",
                                 "timer.measures_stream_time",
                                 "blocked",
                                 kNanoseconds,
                                 {"--tf-version", "2.10"}}),
    [](const auto& info) { return info.param.fault; });

// ---- Every helper honours the avoid list ----------------------------------------

// sync_memcpy_htod ends the process. memory.allocate writes and reads back
// both ends of each block: its run again without sync_memcpy_htod copies
// through a stream instead, and passes, where it once called the crashing
// copy again and was blocked.
TEST(AvoidedFunction, IsNotCalledAgainByTheMemoryChecks) {
  const ConformRun run =
      Conform(FieldPlugin("field_defect_exit_sync_htod"), {"--filter", "memory.allocate"});
  ExpectResult(run, "memory.allocate", "pass");
  const json earlier = run.Result("memory.allocate")["details"].value("earlier_runs", json());
  ASSERT_EQ(earlier.size(), 1u) << run.Result("memory.allocate").dump(2);
  EXPECT_TRUE(Contains(earlier[0]["message"], "SP_StreamExecutor.sync_memcpy_htod"))
      << earlier.dump(2);
}

}  // namespace
}  // namespace sectl::testing
