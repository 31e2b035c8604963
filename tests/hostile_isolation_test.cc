// Forging results and escaping the process tree (issue 13): sectl end to end
// on the hostile_isolation_* plugins (reference_plugins/hostile/), each
// sectl_minimal with one act inside a check. A forged "pass" is not believed,
// garbage and floods on sectl's result channel are the plugin's failure with
// sectl's memory bounded, what a check leaves running is ended and counted,
// a stopped check is killed at once, and sectl's own failure to confine a
// process is sectl's error, never the plugin's.
#include <dirent.h>
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "sectl_process.h"

namespace sectl {
namespace {

using nlohmann::json;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string HostilePlugin(const std::string& name) {
  return std::string(SECTL_HOSTILE_PLUGIN_DIR) + "/" + name + ".so";
}

using testing::TemporaryDirectory;

// How long sectl may take on one hostile plugin before the test kills it:
// a plugin that hung sectl would otherwise hang the test.
constexpr auto kRunLimit = std::chrono::seconds(90);

// clang-tidy 14 reads nlohmann::json's noexcept move as throwing.
struct SectlRun : testing::CommandResult {  // NOLINT(bugprone-exception-escape)
  json report;                              // stdout, when it is JSON
};

// How to start sectl.
struct Launch {
  std::vector<std::string> arguments;
  std::vector<std::string> added_environment;  // "NAME=value"
  // When set, sectl runs under this hard RLIMIT_CPU (seconds), unable to
  // raise it: without CAP_SYS_RESOURCE, as an unprivileged user would be.
  std::optional<rlim_t> cpu_hard_limit;
};

// In the forked child, before exec: drops CAP_SYS_RESOURCE from every set
// (and from the bounding set, so that exec as root does not give it back).
void DropResourceCapability() {
  ::prctl(PR_CAPBSET_DROP, CAP_SYS_RESOURCE, 0, 0, 0);
  ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  std::array<__user_cap_data_struct, 2> data{};
  if (::syscall(SYS_capget, &header, data.data()) != 0) return;
  const uint32_t bit = 1U << (CAP_SYS_RESOURCE % 32);
  auto& word = data[CAP_SYS_RESOURCE / 32];
  word.effective &= ~bit;
  word.permitted &= ~bit;
  word.inheritable &= ~bit;
  ::syscall(SYS_capset, &header, data.data());
}

SectlRun RunSectl(const Launch& launch) {
  testing::RunOptions options{.added_environment = launch.added_environment,
                              .deadline = kRunLimit,
                              .own_process_group = true};
  if (launch.cpu_hard_limit) {
    options.before_exec = [limit = *launch.cpu_hard_limit] {
      DropResourceCapability();
      const rlimit hard{limit, limit};
      if (::setrlimit(RLIMIT_CPU, &hard) != 0) ::_exit(126);
    };
  }
  SectlRun run{testing::RunSectl(launch.arguments, options)};
  run.report = json::parse(run.out, nullptr, /*allow_exceptions=*/false);
  return run;
}

// A run of `sectl conform` on a hostile plugin, with what the plugin noted.
// clang-tidy 14 reads nlohmann::json's noexcept move as throwing.
struct HostileRun {  // NOLINT(bugprone-exception-escape)
  SectlRun sectl;
  std::vector<std::string> notes;  // lines the plugin wrote to SECTL_HOSTILE_LOG
  std::string tag;                 // the name its acting processes took
  std::filesystem::path log;
};

// A name of at most 15 characters (the kernel's limit for a process name)
// that no other test run uses.
std::string UniqueTag(const std::filesystem::path& directory) {
  const std::string name = directory.filename().string();
  return "hi-" + name.substr(name.size() > 6 ? name.size() - 6 : 0) +
         std::to_string(::getpid() % 10000);
}

HostileRun ConformHostile(const std::string& plugin, const TemporaryDirectory& directory,
                          std::vector<std::string> extra_arguments = {}) {
  HostileRun run;
  run.log = directory.path() / "hostile.log";
  run.tag = UniqueTag(directory.path());
  Launch launch;
  launch.arguments = {
      "conform",         HostilePlugin(plugin), "--report",      "json",
      "--pass-env",      "SECTL_HOSTILE_LOG",   "--pass-env",    "SECTL_HOSTILE_TAG",
      "--no-throughput", "--plugin-writes",     run.log.string()};
  launch.arguments.insert(launch.arguments.end(), extra_arguments.begin(), extra_arguments.end());
  launch.added_environment = {"SECTL_HOSTILE_LOG=" + run.log.string(),
                              "SECTL_HOSTILE_TAG=" + run.tag};
  run.sectl = RunSectl(launch);
  std::ifstream log_file(run.log);
  std::string line;
  while (std::getline(log_file, line)) run.notes.push_back(line);
  return run;
}

// The hostile plugins act in their first allocate. Before the checks, sectl
// tries a copy to the device and back in a process of its own
// (conform/helper_triage.h): one process that acts and is no check.
constexpr size_t kActsBeforeTheChecks = 1;

size_t CountNotes(const HostileRun& run, const std::string& note) {
  size_t count = 0;
  for (const std::string& line : run.notes) count += line == note ? 1 : 0;
  return count;
}

// The processes whose name is `tag`: what a hostile plugin's acting
// processes left running.
std::vector<pid_t> ProcessesNamed(const std::string& tag) {
  std::vector<pid_t> found;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return found;
  while (const dirent* entry = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    std::ifstream comm(std::string("/proc/") + entry->d_name + "/comm");
    std::string name;
    if (std::getline(comm, name) && name == tag) found.push_back(static_cast<pid_t>(pid));
  }
  ::closedir(proc);
  return found;
}

// The report is valid JSON from a run that finished, with every check run.
void ExpectACompleteReport(const SectlRun& run) {
  EXPECT_FALSE(run.timed_out) << "sectl did not finish within " << kRunLimit.count() << " s";
  ASSERT_TRUE(run.report.is_object()) << "stdout is not a JSON report:\n"
                                      << run.out.substr(0, 2000) << "\nstderr:\n"
                                      << run.err;
  EXPECT_TRUE(run.report["load_error"].is_null()) << run.report["load_error"];
  ASSERT_TRUE(run.report["results"].is_array());
  EXPECT_FALSE(run.report["results"].empty());
}

std::map<std::string, json> ResultsById(const json& report) {
  std::map<std::string, json> results;
  for (const auto& result : report.value("results", json::array())) {
    results[result.value("id", "")] = result;
  }
  return results;
}

// The checks that ended in one of `statuses`: what each observed, before a
// recommended check's failure was settled into a warn (or its blocked run
// into a skip).
std::set<std::string> IdsWithStatus(const json& report, const std::set<std::string>& statuses) {
  std::set<std::string> ids;
  for (const auto& [id, result] : ResultsById(report)) {
    const json observed = result.value("observed_status", json());
    const std::string status =
        observed.is_string() ? observed.get<std::string>() : result.value("status", "");
    if (statuses.count(status) != 0) ids.insert(id);
  }
  return ids;
}

const std::set<std::string> kPluginsFailure = {"crash", "timeout", "blocked", "fail"};

// No check is sectl's own error, and every check that did not pass or skip
// says `cause` in its message.
void ExpectOnlyThePluginBlamed(const json& report, const std::string& cause) {
  for (const auto& [id, result] : ResultsById(report)) {
    const std::string status = result.value("status", "");
    EXPECT_NE(status, "error") << id << ": " << result.value("message", "");
    if (kPluginsFailure.count(status) != 0) {
      EXPECT_TRUE(Contains(result.value("message", ""), cause))
          << id << " (" << status << "): " << result.value("message", "");
    }
  }
}

// The minimal plugin's own report: the hostile plugins are it with one act.
const json& MinimalReport() {
  static const json report = [] {
    const testing::CommandResult command =
        testing::RunSectl({"conform", testing::ReferencePlugin("sectl_minimal"), "--report", "json",
                           "--no-throughput"});
    return json::parse(command.out, nullptr, /*allow_exceptions=*/false);
  }();
  return report;
}

// The helper triage before the checks learned that allocate misbehaves
// (`cause` in what it learned), and every check that did not pass or skip
// blames allocate alone.
void ExpectAllocateLearnedAndBlamed(const nlohmann::json& report, const std::string& cause) {
  constexpr std::string_view kAllocate = "SP_StreamExecutor.allocate";
  bool learned = false;
  for (const auto& problem : report.value("learned_before_checks", nlohmann::json::array())) {
    learned = learned || (problem.value("function", "") == kAllocate &&
                          Contains(problem.value("problem", ""), cause));
  }
  EXPECT_TRUE(learned) << report["learned_before_checks"].dump(2);
  for (const auto& result : report["results"]) {
    const std::string status = result.value("status", "");
    if (status == "pass" || status == "skip") continue;
    EXPECT_EQ(result.value("culprits", nlohmann::json::array()), nlohmann::json::array({kAllocate}))
        << result.dump(2);
  }
}

TEST(HostileIsolation, GarbageOnEveryDescriptorIsThePluginsFailure) {
  TemporaryDirectory directory;
  const HostileRun run = ConformHostile("hostile_isolation_garbage", directory);
  ExpectACompleteReport(run.sectl);
  EXPECT_EQ(run.sectl.exit_code, 1) << run.sectl.err;
  // Into the result channel of a check's process, or (the plugin in its
  // server) the server's channel to the check's process.
  ExpectOnlyThePluginBlamed(run.sectl.report, "wrote to sectl's");
  // The plugin acts in its first allocate, which it first reaches in the
  // helper triage's copy before the checks, in the plugin server: its
  // garbage breaks the server's protocol while allocate is in flight, so
  // the triage learns that allocate is broken. The checks that test
  // allocate meet the act themselves; the others are blocked by it without
  // calling it. Every failure is allocate's.
  ExpectAllocateLearnedAndBlamed(run.sectl.report, "wrote to sectl's");
  EXPECT_FALSE(IdsWithStatus(run.sectl.report, {"crash"}).empty());
  // The triage's copy and every check that tests allocate made the act.
  EXPECT_GT(CountNotes(run, "writing garbage"), kActsBeforeTheChecks);
}

TEST(HostileIsolation, AForgedPassIsNotBelieved) {
  TemporaryDirectory directory;
  const HostileRun run = ConformHostile("hostile_isolation_forge_result", directory);
  ExpectACompleteReport(run.sectl);
  EXPECT_EQ(run.sectl.exit_code, 1) << run.sectl.err;
  EXPECT_NE(run.sectl.report["summary"].value("crash", 0) +
                run.sectl.report["summary"].value("blocked", 0),
            0);
  EXPECT_GT(CountNotes(run, "forging a pass"), 0U);
  // Into the result channel of a check's process, or (the plugin in its
  // server) the server's channel to the check's process.
  ExpectOnlyThePluginBlamed(run.sectl.report, "wrote to sectl's");
  // Every check that reached the act (those the garbage plugin, acting at
  // the same call, fails) failed; the others pass as for sectl_minimal.
  TemporaryDirectory garbage_directory;
  const HostileRun garbage = ConformHostile("hostile_isolation_garbage", garbage_directory);
  EXPECT_EQ(IdsWithStatus(run.sectl.report, kPluginsFailure),
            IdsWithStatus(garbage.sectl.report, kPluginsFailure));
  EXPECT_EQ(IdsWithStatus(run.sectl.report, {"pass"}),
            IdsWithStatus(garbage.sectl.report, {"pass"}));
  std::set<std::string> passed_by_minimal = IdsWithStatus(MinimalReport(), {"pass"});
  for (const std::string& id : IdsWithStatus(run.sectl.report, {"pass"})) {
    EXPECT_EQ(passed_by_minimal.count(id), 1U) << id;
  }
}

TEST(HostileIsolation, EndlessWritesLeaveSectlsMemoryBounded) {
  TemporaryDirectory directory;
  const HostileRun run = ConformHostile("hostile_isolation_flood", directory,
                                        {"--timeout", "2", "--filter", "memory.*"});
  ExpectACompleteReport(run.sectl);
  EXPECT_EQ(run.sectl.exit_code, 1) << run.sectl.err;
  const size_t acts = CountNotes(run, "flooding every descriptor");
  EXPECT_GT(acts, kActsBeforeTheChecks);
  for (const auto& [id, result] : ResultsById(run.sectl.report)) {
    EXPECT_NE(result.value("status", ""), "error") << id << ": " << result.value("message", "");
  }
  // A flooded check failed (a channel sectl reads overflowed or held
  // foreign bytes, or the check timed out), or, where the flood went only
  // to descriptors of the plugin server's that sectl never reads, passed as
  // the minimal plugin, whose calls it makes, passes it.
  // The triage's copy acted first, so allocate is learned before the
  // checks, and checks that only use it are blocked without acting: every
  // failure is allocate's.
  EXPECT_FALSE(IdsWithStatus(run.sectl.report, kPluginsFailure).empty());
  ExpectAllocateLearnedAndBlamed(run.sectl.report, "wrote to sectl's");
  const std::set<std::string> passed_by_minimal = IdsWithStatus(MinimalReport(), {"pass"});
  for (const std::string& id : IdsWithStatus(run.sectl.report, {"pass"})) {
    EXPECT_EQ(passed_by_minimal.count(id), 1U) << id;
  }
  // Each flooding process offered 25 MiB to the channel and to its output
  // before the check went on; sectl kept 16 MiB of the one and 64 KiB of
  // the other at most.
  constexpr uint64_t kBound = uint64_t{512} * 1024 * 1024;
  EXPECT_LT(run.sectl.peak_resident_bytes, kBound)
      << "sectl's peak resident memory: " << run.sectl.peak_resident_bytes / (uint64_t{1024} * 1024)
      << " MiB";
  EXPECT_TRUE(ProcessesNamed(run.tag).empty());
}

TEST(HostileIsolation, ProcessesThatLeaveTheSessionAreEndedAndCounted) {
  TemporaryDirectory directory;
  const HostileRun run = ConformHostile("hostile_isolation_stray", directory);
  ExpectACompleteReport(run.sectl);
  EXPECT_TRUE(ProcessesNamed(run.tag).empty()) << "a stray outlived sectl";
  const size_t strays = CountNotes(run, "forked a stray");
  ASSERT_GT(strays, kActsBeforeTheChecks);
  // Each check counts the strays its process left (one per process).
  size_t counted = 0;
  for (const auto& [id, result] : ResultsById(run.sectl.report)) {
    const json details = result.value("details", json::object());
    if (details.is_object() && details.contains("stray_processes")) {
      EXPECT_GE(details["stray_processes"].get<int>(), 1) << id;
      counted += details["stray_processes"].get<size_t>();
    }
  }
  // The stray of the process before the checks was ended just the same
  // (checked below), and counted by no check.
  EXPECT_EQ(counted, strays - kActsBeforeTheChecks);
  // A stray that survived writes its marker 3 s after it was forked, which
  // was before sectl returned.
  std::this_thread::sleep_for(std::chrono::milliseconds(3500));
  EXPECT_FALSE(std::filesystem::exists(run.log.string() + ".stray"))
      << "a stray outlived its check";
  EXPECT_TRUE(ProcessesNamed(run.tag).empty()) << "a stray outlived sectl";
}

// A check that stops itself, untraced or traced: killed when sectl sees the
// stop, not at its deadline, and reported as the plugin's doing.
void ExpectStoppedChecksKilled(const std::string& plugin) {
  TemporaryDirectory directory;
  const HostileRun run =
      ConformHostile(plugin, directory, {"--timeout", "3", "--filter", "memory.*"});
  ExpectACompleteReport(run.sectl);
  EXPECT_EQ(run.sectl.exit_code, 1) << run.sectl.err;
  EXPECT_GT(CountNotes(run, "stopping itself") + CountNotes(run, "PTRACE_TRACEME: refused") +
                CountNotes(run, "PTRACE_TRACEME: SUCCEEDED"),
            0U);
  EXPECT_EQ(CountNotes(run, "continued after stopping itself"), 0U);
  EXPECT_FALSE(IdsWithStatus(run.sectl.report, {"crash", "blocked"}).empty());
  for (const auto& [id, result] : ResultsById(run.sectl.report)) {
    const std::string status = result.value("status", "");
    const std::string message = result.value("message", "");
    EXPECT_NE(status, "error") << id << ": " << message;
    EXPECT_NE(status, "timeout") << id << ": " << message;
    EXPECT_FALSE(Contains(message, "status 19")) << id << ": " << message;
    if (status == "crash" || status == "blocked") {
      EXPECT_TRUE(Contains(message, "stopped itself with SIG")) << id << ": " << message;
    }
  }
  EXPECT_TRUE(ProcessesNamed(run.tag).empty()) << "a stopped check outlived sectl";
}

TEST(HostileIsolation, AStoppedCheckIsKilledAndBlamedOnThePlugin) {
  ExpectStoppedChecksKilled("hostile_isolation_stop");
}

TEST(HostileIsolation, ATracedStoppedCheckIsKilledAndBlamedOnThePlugin) {
  ExpectStoppedChecksKilled("hostile_isolation_traceme");
}

// The environment block sectl was started with stays readable through
// /proc/self/environ after clearenv(); the child overwrites it first.
TEST(HostileIsolation, ThePluginsOwnEnvironBlockHoldsNoneOfSectlsVariables) {
  TemporaryDirectory directory;
  const std::string secret = "s3cr3t-" + UniqueTag(directory.path());
  const std::filesystem::path log = directory.path() / "hostile.log";
  const SectlRun run = RunSectl(
      {.arguments = {"conform", HostilePlugin("hostile_isolation_self_environ"), "--report", "json",
                     "--no-throughput", "--filter", "memory.allocate", "--pass-env",
                     "SECTL_HOSTILE_LOG", "--plugin-writes", log.string()},
       .added_environment = {"SECTL_HOSTILE_LOG=" + log.string(), "SECTL_TEST_SECRET=" + secret}});
  ExpectACompleteReport(run);
  std::ifstream log_file(log);
  const std::string notes((std::istreambuf_iterator<char>(log_file)),
                          std::istreambuf_iterator<char>());
  EXPECT_TRUE(Contains(notes, "read /proc/self/environ:")) << notes;
  EXPECT_FALSE(Contains(notes, secret)) << notes;
  EXPECT_FALSE(Contains(notes, "SECTL_TEST_SECRET")) << notes;
  EXPECT_EQ(run.exit_code, 0) << run.err;
}

// A plugin thread bumping the counters in shared memory while the plugin
// hangs: the bench's deadline is on sectl's clock, the run's own (2 x
// --budget for each of the 2 steps of one size on one path and 4 x
// --timeout: 5 s) and --timeout for the step under way (6 s), never
// extended.
TEST(HostileIsolation, BumpedProgressCountersDoNotExtendTheBenchDeadline) {
  TemporaryDirectory directory;
  const std::filesystem::path log = directory.path() / "hostile.log";
  const std::string tag = UniqueTag(directory.path());
  const SectlRun run = RunSectl(
      {.arguments = {"bench", "memcpy", HostilePlugin("hostile_isolation_bump_progress"), "--sizes",
                     "4KiB", "--direction", "h2d", "--mode", "async", "--timeout", "1",
                     "--no-progress", "--pass-env", "SECTL_HOSTILE_LOG", "--pass-env",
                     "SECTL_HOSTILE_TAG", "--plugin-writes", log.string()},
       .added_environment = {"SECTL_HOSTILE_LOG=" + log.string(), "SECTL_HOSTILE_TAG=" + tag}});
  EXPECT_FALSE(run.timed_out) << "sectl bench did not finish within " << kRunLimit.count() << " s";
  std::ifstream log_file(log);
  const std::string notes((std::istreambuf_iterator<char>(log_file)),
                          std::istreambuf_iterator<char>());
  EXPECT_TRUE(Contains(notes, "bumping ")) << notes;
  EXPECT_FALSE(Contains(notes, "bumping 0 ")) << notes;
  EXPECT_NE(run.exit_code, 0) << run.out;
  EXPECT_NE(run.exit_code, 2) << run.err;  // the plugin's failure, not sectl's
  EXPECT_TRUE(Contains(run.err, "did not finish within 6 s (its deadline of 5 s")) << run.err;
  EXPECT_TRUE(ProcessesNamed(tag).empty());
}

// sectl under a hard CPU limit below --cpu-limit cannot confine its
// children as asked: that is sectl's error, not the plugin's.
TEST(HostileIsolation, SectlsOwnSetupFailureIsSectlsError) {
#if defined(SECTL_SANITIZED)
  GTEST_SKIP() << "the sanitizers' runtime may need more CPU limit head-room";
#endif
  const std::string plugin = testing::ReferencePlugin("sectl_minimal");
  const auto conform = [&](const std::string& cpu_limit) {
    return RunSectl({.arguments = {"conform", plugin, "--report", "json", "--no-throughput",
                                   "--filter", "memory.*", "--cpu-limit", cpu_limit},
                     .cpu_hard_limit = rlim_t{100}});
  };
  // The control: a limit below the hard one is set as usual.
  const SectlRun allowed = conform("50");
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err;

  const SectlRun refused = conform("500");
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_TRUE(Contains(refused.err, "sectl could not confine the plugin's process")) << refused.err;
  EXPECT_TRUE(Contains(refused.err, "--cpu-limit 500")) << refused.err;
  EXPECT_FALSE(Contains(refused.out + refused.err, "exit status 122"));

  const SectlRun probe =
      RunSectl({.arguments = {"probe", plugin, "--format", "json", "--cpu-limit", "500"},
                .cpu_hard_limit = rlim_t{100}});
  EXPECT_EQ(probe.exit_code, 2) << probe.out << probe.err;
  EXPECT_TRUE(Contains(probe.err, "sectl could not confine the plugin's process")) << probe.err;
  EXPECT_FALSE(Contains(probe.out + probe.err, "exit status 122"));
}

}  // namespace
}  // namespace sectl
