// Each fault in lifecycle is caught by exactly its check, and each leak is
// blamed on the destroy function that should have given back what leaked.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "faulty_plugin_test.h"
#include "sectl_process.h"

namespace sectl::testing {
namespace {

class LifecycleFaults : public ::testing::TestWithParam<FaultCase> {};

TEST_P(LifecycleFaults, AreCaughtByExactlyTheirCheck) {
#if defined(SECTL_SANITIZED)
  // A sanitizer's allocator is invisible to mallinfo2, so the heap is not
  // measured there (lifecycle.no_growth says so in its details).
  GTEST_SKIP() << "the heap cannot be measured under a sanitizer's allocator";
#endif
  ExpectCaughtByExactlyItsCheck(GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Faults, LifecycleFaults,
    // One small heap object left per cycle: far below the resident-memory
    // slack, seen by measuring the heap object by object.
    ::testing::Values(FaultCase{"stream_destroy_leaks", "lifecycle.no_growth", "warn"},
                      FaultCase{"event_destroy_leaks", "lifecycle.no_growth", "warn"},
                      FaultCase{"stream_and_event_destroy_leak", "lifecycle.no_growth", "warn"}),
    [](const auto& info) { return info.param.fault; });

// Seen only as the plugin's process lives on and exits: every other check
// ends its process with _exit, so no other check notices these.
class ExitFaults : public ::testing::TestWithParam<FaultCase> {};

TEST_P(ExitFaults, AreCaughtByExactlyTheirCheck) { ExpectCaughtByExactlyItsCheck(GetParam()); }

INSTANTIATE_TEST_SUITE_P(
    Faults, ExitFaults,
    ::testing::Values(FaultCase{"destructor_crashes", "lifecycle.process_exit", "fail"},
                      FaultCase{"destructor_hangs", "lifecycle.process_exit", "fail"},
                      FaultCase{"destructor_changes_exit_status", "lifecycle.process_exit",
                                "fail"}),
    [](const auto& info) { return info.param.fault; });

// lifecycle.process_exit's result on faulty_<fault>.so, alone.
nlohmann::json ProcessExitResult(const std::string& fault) {
  const CommandResult run = RunSectl(
      {"conform", FaultyPlugin(fault), "--filter", "lifecycle.process_exit", "--report", "json"});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  const auto report = nlohmann::json::parse(run.out, nullptr, false);
  for (const auto& result : report.value("results", nlohmann::json::array())) {
    if (result.value("id", "") == "lifecycle.process_exit") return result;
  }
  ADD_FAILURE() << "no result for lifecycle.process_exit: " << run.out << run.err;
  return {};
}

struct LateFault {
  std::string fault;
  std::string message;  // a part of the result's message
  bool backtrace;       // the server's crash report is attached
};

void PrintTo(const LateFault& late, std::ostream* out) { *out << late.fault; }

class LateFaults : public ::testing::TestWithParam<LateFault> {};

TEST_P(LateFaults, AreDescribedAsWhatHappenedAndWhen) {
  const LateFault& late = GetParam();
  const nlohmann::json result = ProcessExitResult(late.fault);
  EXPECT_EQ(result.value("status", ""), "fail") << result.dump(2);
  EXPECT_NE(result.value("message", "").find(late.message), std::string::npos) << result.dump(2);
  EXPECT_EQ(result["details"].contains("backtrace"), late.backtrace) << result.dump(2);
  // Nothing the plugin did is blamed on a call: none was in flight.
  EXPECT_TRUE(result.value("culprits", nlohmann::json::array()).empty()) << result.dump(2);
}

INSTANTIATE_TEST_SUITE_P(
    Faults, LateFaults,
    ::testing::Values(
        // 300 ms after SE_InitPlugin, within the window the process lives
        // on; in a whole run it also crashes whichever checks outlast it.
        LateFault{"thread_crashes_late", "died of SIGSEGV within", true},
        LateFault{"destructor_crashes",
                  "it died of SIGSEGV in a library destructor or atexit handler", true},
        LateFault{"destructor_hangs", "exit(0) had not ended the plugin's process after 5000 ms",
                  false},
        LateFault{"destructor_changes_exit_status",
                  "exit(0) ended the plugin's process with status 3", false}),
    [](const auto& info) { return info.param.fault; });

// lifecycle.no_growth's result on faulty_<fault>.so.
nlohmann::json NoGrowthResult(const std::string& fault) {
  const CommandResult run =
      RunSectl({"conform", FaultyPlugin(fault), "--filter", "lifecycle.no_growth", "--report",
                "json", "--no-throughput"});
  const auto report = nlohmann::json::parse(run.out, nullptr, false);
  for (const auto& result : report.value("results", nlohmann::json::array())) {
    if (result.value("id", "") == "lifecycle.no_growth") return result;
  }
  ADD_FAILURE() << "no result for lifecycle.no_growth: " << run.out << run.err;
  return {};
}

std::vector<std::string> Culprits(const nlohmann::json& result) {
  std::vector<std::string> culprits;
  for (const auto& culprit : result.value("culprits", nlohmann::json::array())) {
    culprits.push_back(culprit.get<std::string>());
  }
  std::sort(culprits.begin(), culprits.end());
  return culprits;
}

struct Blame {
  std::string fault;
  std::vector<std::string> culprits;  // sorted
  std::string message;                // a part of the result's message
};

void PrintTo(const Blame& blame, std::ostream* out) { *out << blame.fault; }

class LeakBlame : public ::testing::TestWithParam<Blame> {};

TEST_P(LeakBlame, NamesExactlyTheLeakingDestroyFunction) {
  const Blame& blame = GetParam();
  const bool heap_leak = blame.fault.find("destroy_leak") != std::string::npos;
#if defined(SECTL_SANITIZED)
  if (heap_leak) GTEST_SKIP() << "the heap cannot be measured under a sanitizer's allocator";
#endif
  (void)heap_leak;
  const nlohmann::json result = NoGrowthResult(blame.fault);
  EXPECT_EQ(result.value("status", ""), "warn") << result.dump(2);
  EXPECT_EQ(Culprits(result), blame.culprits) << result.dump(2);
  EXPECT_NE(result.value("message", "").find(blame.message), std::string::npos) << result.dump(2);
}

INSTANTIATE_TEST_SUITE_P(Faults, LeakBlame,
                         ::testing::Values(
                             // Growth over device cycles is destroy_device's, not destroy_stream's.
                             Blame{"device_destroy_leaks_memory",
                                   {"SP_PlatformFns.destroy_device"},
                                   "destroy_device leaks memory: resident memory grew by"},
                             Blame{"device_destroy_leaks_thread",
                                   {"SP_PlatformFns.destroy_device"},
                                   "destroy_device leaks threads"},
                             Blame{"leaks_stream_threads",
                                   {"SP_StreamExecutor.destroy_stream"},
                                   "destroy_stream leaks threads"},
                             Blame{"leaks_memory_per_stream",
                                   {"SP_StreamExecutor.destroy_stream"},
                                   "destroy_stream leaks memory"},
                             // The minimal base waits for a stream through an event: the event's
                             // device memory is not the stream's.
                             Blame{"leaks_device_memory_per_event",
                                   {"SP_StreamExecutor.destroy_event"},
                                   "destroy_event leaks device memory"},
                             // Both leak, and each is judged on its own: the event's leak, which
                             // every wait for a stream repeats, hides nothing of the stream's.
                             Blame{"stream_and_event_destroy_leak",
                                   {"SP_StreamExecutor.destroy_event",
                                    "SP_StreamExecutor.destroy_stream"},
                                   "destroy_stream leaks: the process's heap grew"}),
                         [](const auto& info) { return info.param.fault; });

}  // namespace
}  // namespace sectl::testing
