// sectl interrupted (Ctrl-C, a cancelled CI job; issue 13): it ends every
// child at once, starts nothing new, still writes a complete conform report
// marked incomplete, exits with 128 + the signal's number, and leaves no
// process behind. First the mechanism in this process
// (isolation/interruption.h), then end to end on plugins that hang.
#include "isolation/interruption.h"

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "isolation/child_outcome.h"
#include "isolation/child_process.h"
#include "report/conform_json.h"
#include "report/conform_junit.h"
#include "report/conform_report.h"
#include "report/conform_table.h"
#include "report/merge_reports.h"
#include "sectl_process.h"

extern char** environ;  // NOLINT: POSIX declares it nowhere in C++

namespace sectl {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// ---------------------------------------------------------------------------
// The mechanism, in this process

TEST(InterruptionTest, ASignalKillsTheLiveChildAndItEndsInterrupted) {
  isolation::InstallInterruptHandlers();
  isolation::ResetInterruptionForTesting();
  auto child = isolation::ChildProcess::Start(
      [](int) -> int {
        for (;;) ::pause();
      },
      {.timeout = 60s});
  ASSERT_TRUE(child.has_value()) << child.error().message();
  // Once the child has started, so that its death is the handler's doing.
  std::this_thread::sleep_for(100ms);
  ASSERT_EQ(::raise(SIGINT), 0);
  EXPECT_EQ(isolation::InterruptedBy(), SIGINT);

  const auto signalled = Clock::now();
  while (!child->Poll()) {
    auto descriptors = child->PollDescriptors();
    ::poll(descriptors.data(), descriptors.size(), 100);
    ASSERT_LT(Clock::now() - signalled, 10s) << "the child outlived sectl's interruption";
  }
  const isolation::ChildResult& ended = child->result();
  EXPECT_EQ(ended.end, isolation::ChildEnd::kInterrupted);
  EXPECT_EQ(ended.signal, SIGINT);
  // sectl stopped it: no plugin is blamed.
  EXPECT_EQ(isolation::JudgeChild(ended, {}).blame, isolation::Blame::kSectl);
  isolation::ResetInterruptionForTesting();
  EXPECT_EQ(isolation::InterruptedBy(), 0);
}

TEST(InterruptionTest, ASecondSignalEndsSectlAtOnce) {
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    isolation::InstallInterruptHandlers();
    ::raise(SIGTERM);
    if (isolation::InterruptedBy() != SIGTERM) ::_exit(10);  // the first one is recorded
    ::raise(SIGTERM);
    ::_exit(11);  // not reached: the second one kills
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
}

// ---------------------------------------------------------------------------
// The report of an interrupted run

report::CheckResult Result(const std::string& id, report::CheckStatus status,
                           const std::string& message) {
  report::CheckResult result;
  result.id = id;
  result.title = id;
  result.area = id.substr(0, id.find('.'));
  result.status = status;
  result.message = message;
  return result;
}

report::ConformReport InterruptedReport() {
  report::ConformReport report;
  report.tool.version = "0.0.0";
  report.plugin.path = "/plugins/x.so";
  report.started_at = "2026-11-25T10:00:00Z";
  report.profile = "tensorflow";
  report.tf_version = "latest";
  report.interrupted = "SIGINT";
  report.results.push_back(Result("memcpy.dtoh", report::CheckStatus::kPass, ""));
  report::CheckResult stopped = Result(
      "memcpy.htod", report::CheckStatus::kSkip,
      "not finished: sectl was interrupted by SIGINT while the check ran, and ended its process");
  stopped.details["interrupted"] = "SIGINT";
  report.results.push_back(stopped);
  report::CheckResult not_run = Result("memcpy.sync_htod", report::CheckStatus::kSkip,
                                       "not run: sectl was interrupted by SIGINT");
  not_run.details["interrupted"] = "SIGINT";
  report.results.push_back(not_run);
  report.summary = report::Summarize(report.results);
  return report;
}

TEST(InterruptedReportTest, IsNeverConformantAndSaysSoInEveryFormat) {
  const report::ConformReport report = InterruptedReport();
  EXPECT_FALSE(report::IsConformant(report));

  const auto json = nlohmann::json::parse(report::ConformReportToJson(report));
  EXPECT_EQ(json.at("interrupted"), "SIGINT");
  auto read = report::ConformReportFromJson(json.dump());
  ASSERT_TRUE(read.has_value()) << read.error().message();
  EXPECT_EQ(read->interrupted, std::optional<std::string>("SIGINT"));

  const std::string table = report::RenderConformTable(report, {});
  EXPECT_NE(table.find("THE RUN IS INCOMPLETE: sectl was interrupted by SIGINT"), std::string::npos)
      << table;
  EXPECT_NE(table.find("2 checks did not finish"), std::string::npos) << table;
  EXPECT_NE(table.find("INCOMPLETE (sectl was interrupted by SIGINT)"), std::string::npos) << table;
  EXPECT_EQ(table.find("conformant"), std::string::npos) << table;

  const std::string junit = report::RenderConformJunit(report);
  EXPECT_NE(junit.find(R"(<testcase classname="sectl.run" name="run.complete")"), std::string::npos)
      << junit;
  EXPECT_NE(junit.find(R"(type="interrupted")"), std::string::npos) << junit;
  EXPECT_NE(junit.find(R"(errors="1")"), std::string::npos) << junit;
}

TEST(InterruptedReportTest, ACompleteReportHasNoMarkerAndVersionTwoReportsAreRead) {
  report::ConformReport complete = InterruptedReport();
  complete.interrupted.reset();
  const auto json = nlohmann::json::parse(report::ConformReportToJson(complete));
  ASSERT_TRUE(json.contains("interrupted"));
  EXPECT_TRUE(json.at("interrupted").is_null());
  EXPECT_EQ(report::RenderConformJunit(complete).find("run.complete"), std::string::npos);

  nlohmann::json version_two = json;
  version_two["schema_version"] = 2;
  version_two.erase("interrupted");
  auto read = report::ConformReportFromJson(version_two.dump());
  ASSERT_TRUE(read.has_value()) << read.error().message();
  EXPECT_FALSE(read->interrupted.has_value());
}

TEST(InterruptedReportTest, OneInterruptedShardMakesTheMergedRunIncomplete) {
  report::ConformReport first = InterruptedReport();
  first.interrupted.reset();
  first.results.resize(1);
  report::ConformReport second = InterruptedReport();
  second.results.erase(second.results.begin());
  auto merged = report::MergeReports({first, second});
  ASSERT_TRUE(merged.has_value()) << merged.error().message();
  EXPECT_EQ(merged->interrupted, std::optional<std::string>("SIGINT"));
  EXPECT_FALSE(report::IsConformant(*merged));
}

// ---------------------------------------------------------------------------
// End to end: sectl on a plugin that hangs, signalled from outside

// The processes whose parent is `pid`, from /proc.
std::vector<pid_t> ChildrenOf(pid_t pid) {
  std::vector<pid_t> children;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    // pid (comm) state ppid ...: comm may hold spaces and parentheses.
    const size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 1));
    char state = 0;
    pid_t parent = 0;
    rest >> state >> parent;
    if (parent == pid) children.push_back(static_cast<pid_t>(std::stoi(name)));
  }
  return children;
}

// A directory of its own under the temporary directory, removed with
// everything in it.
class ScratchDirectory : public testing::TemporaryDirectory {
 public:
  ScratchDirectory() : TemporaryDirectory("sectl-interrupt-") {}

  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(path())) {
      names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }
};

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Ended {
  int exit_code = -1;  // -1: killed by a signal, or not ended in time
  Clock::duration after_signal{};
  std::string out;
  std::string err;
  // Processes of sectl's tree still running once sectl had ended.
  std::vector<pid_t> left_behind;
};

// sectl, started with its stdout and stderr in files; signalled once one of
// its children has been running for a while (inside a check that hangs,
// not the quick preflight).
class SignalledSectl {
 public:
  explicit SignalledSectl(std::vector<std::string> arguments) {
    // Orphans of sectl's tree come to this process, to be counted; sectl is
    // the subreaper of its own, so only what outlives sectl arrives here.
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    arguments.insert(arguments.begin(), SECTL_BINARY);
    std::vector<char*> argv;
    argv.reserve(arguments.size() + 1);
    for (std::string& word : arguments) argv.push_back(word.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, Out().c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, Err().c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (::posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
  }
  ~SignalledSectl() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  SignalledSectl(const SignalledSectl&) = delete;
  SignalledSectl& operator=(const SignalledSectl&) = delete;

  bool started() const { return pid_ > 0; }
  const ScratchDirectory& scratch() const { return scratch_; }

  // Waits until one child of sectl has lived `settled`, then sends `signal`.
  // False if no child lived that long within 30 s.
  bool SignalInsideACheck(int signal, Clock::duration settled = 1s) {
    const auto deadline = Clock::now() + 30s;
    pid_t watched = -1;
    auto watched_since = Clock::now();
    while (Clock::now() < deadline) {
      const std::vector<pid_t> children = ChildrenOf(pid_);
      if (std::find(children.begin(), children.end(), watched) != children.end()) {
        if (Clock::now() - watched_since >= settled) {
          signalled_at_ = Clock::now();
          return ::kill(pid_, signal) == 0;
        }
      } else {
        watched = children.empty() ? -1 : children.front();
        watched_since = Clock::now();
      }
      std::this_thread::sleep_for(20ms);
    }
    return false;
  }

  // Waits up to `limit` for sectl to end; then counts, ends and reaps what
  // its tree left behind.
  Ended Wait(Clock::duration limit = 20s) {
    Ended ended;
    int status = 0;
    pid_t waited = 0;
    while ((waited = ::waitpid(pid_, &status, WNOHANG)) == 0 &&
           Clock::now() - signalled_at_ < limit) {
      std::this_thread::sleep_for(10ms);
    }
    ended.after_signal = Clock::now() - signalled_at_;
    if (waited == pid_) {
      pid_ = -1;
      ended.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    ended.out = ReadFile(Out());
    ended.err = ReadFile(Err());
    // Orphans reach this subreaper when their parent dies: give them a moment.
    std::this_thread::sleep_for(100ms);
    for (pid_t orphan : ChildrenOf(::getpid())) {
      if (orphan == pid_) continue;
      ended.left_behind.push_back(orphan);
      ::kill(orphan, SIGKILL);
      ::waitpid(orphan, nullptr, 0);
    }
    return ended;
  }

 private:
  std::string Out() const { return (scratch_.path() / "stdout").string(); }
  std::string Err() const { return (scratch_.path() / "stderr").string(); }

  ScratchDirectory scratch_;
  pid_t pid_ = -1;
  Clock::time_point signalled_at_ = Clock::now();
};

// Every result has a status; the checks that did not finish are skips that
// say why, and exactly one of them was running (the one hanging in
// memcpy_htod) when the signal came.
void ExpectIncompleteReport(const nlohmann::json& report, const std::string& signal) {
  EXPECT_EQ(report.at("interrupted"), signal);
  EXPECT_TRUE(report.at("load_error").is_null());
  EXPECT_TRUE(report.at("throughput").is_null());
  const auto& results = report.at("results");
  ASSERT_FALSE(results.empty());
  int not_run = 0;
  int not_finished = 0;
  for (const auto& result : results) {
    ASSERT_TRUE(result.at("status").is_string()) << result.dump();
    if (!result.at("details").contains("interrupted")) continue;
    EXPECT_EQ(result.at("status"), "skip") << result.dump();
    EXPECT_EQ(result.at("details").at("interrupted"), signal);
    const std::string message = result.at("message");
    if (message.rfind("not run: sectl was interrupted by " + signal, 0) == 0) ++not_run;
    if (message.rfind("not finished: sectl was interrupted by " + signal, 0) == 0) {
      ++not_finished;
      EXPECT_EQ(result.at("id"), "memcpy.htod");
    }
  }
  EXPECT_EQ(not_finished, 1);
  EXPECT_GE(not_run, 1);
  EXPECT_EQ(report.at("summary").at("skip").get<int>(), not_run + not_finished);
}

// memcpy.htod hangs in memcpy_htod; with one job, the checks after it wait.
// Before the checks, sectl's try of a copy hangs in memcpy_htod too, for
// kTriageHangWindow (conform/helper_triage.h): only a process older than
// that is a check's.
constexpr auto kOlderThanTheTryBeforeTheChecks = 4s;
const std::vector<std::string> kHangingConform = {
    "conform",   testing::FixturePlugin("memcpy_hang"),
    "--timeout", "30",
    "-j",        "1",
    "--filter",  "memcpy.htod:memcpy.sync_*"};

TEST(InterruptionCliTest, ConformInterruptedBySigintWritesAnIncompleteReportAndExits130) {
  std::vector<std::string> arguments = kHangingConform;
  arguments.insert(arguments.end(), {"--report", "json"});
  SignalledSectl sectl(arguments);
  ASSERT_TRUE(sectl.started());
  ASSERT_TRUE(sectl.SignalInsideACheck(SIGINT, kOlderThanTheTryBeforeTheChecks))
      << "sectl never ran a check for long";
  const Ended ended = sectl.Wait();

  EXPECT_EQ(ended.exit_code, 130) << ended.err;
  EXPECT_LT(ended.after_signal, 5s);
  EXPECT_EQ(ended.err, "sectl: interrupted by SIGINT: the report is incomplete\n");
  EXPECT_TRUE(ended.left_behind.empty()) << ended.left_behind.size() << " processes left behind";
  const auto report = nlohmann::json::parse(ended.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(report.is_discarded()) << ended.out;
  ExpectIncompleteReport(report, "SIGINT");
}

TEST(InterruptionCliTest, ConformInterruptedBySigtermStillWritesItsFilesWhole) {
  const ScratchDirectory files;
  ASSERT_FALSE(files.path().empty());
  std::vector<std::string> arguments = kHangingConform;
  arguments.insert(arguments.end(), {"--report", "json", "-o", files.path() / "report.json",
                                     "--junit", files.path() / "report.xml"});
  SignalledSectl sectl(arguments);
  ASSERT_TRUE(sectl.started());
  ASSERT_TRUE(sectl.SignalInsideACheck(SIGTERM, kOlderThanTheTryBeforeTheChecks))
      << "sectl never ran a check for long";
  const Ended ended = sectl.Wait();

  EXPECT_EQ(ended.exit_code, 143) << ended.err;
  EXPECT_EQ(ended.out, "");
  EXPECT_TRUE(ended.left_behind.empty()) << ended.left_behind.size() << " processes left behind";
  // Both files whole, and no temporary file of the atomic writes left over.
  EXPECT_EQ(files.Names(), (std::vector<std::string>{"report.json", "report.xml"}));
  const auto report = nlohmann::json::parse(ReadFile(files.path() / "report.json"), nullptr, false);
  ASSERT_FALSE(report.is_discarded());
  ExpectIncompleteReport(report, "SIGTERM");
  const std::string junit = ReadFile(files.path() / "report.xml");
  EXPECT_NE(
      junit.find(R"(<error message="the run is incomplete: sectl was interrupted by SIGTERM)"),
      std::string::npos)
      << junit;
  EXPECT_NE(junit.find("</testsuites>"), std::string::npos) << junit;
}

TEST(InterruptionCliTest, ProbeInterruptedBySigtermWritesNoReportAndExits143) {
  SignalledSectl sectl({"probe", testing::FixturePlugin("hang_in_init"), "--timeout", "30"});
  ASSERT_TRUE(sectl.started());
  ASSERT_TRUE(sectl.SignalInsideACheck(SIGTERM, 500ms)) << "the probe's process never settled";
  const Ended ended = sectl.Wait();

  EXPECT_EQ(ended.exit_code, 143) << ended.err;
  EXPECT_LT(ended.after_signal, 5s);
  EXPECT_EQ(ended.out, "");
  EXPECT_EQ(ended.err, "sectl: interrupted by SIGTERM\n");
  EXPECT_TRUE(ended.left_behind.empty()) << ended.left_behind.size() << " processes left behind";
}

}  // namespace
}  // namespace sectl
