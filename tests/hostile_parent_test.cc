// A plugin reaching into sectl's own process (issue 13): reading its
// environment through /proc/PPID/environ, writing into its stdout through
// /proc/PPID/fd/1, writing its memory, stopping or killing it, tracing it.
// isolation::SandboxChild (isolation/sandbox.h) refuses all of it; these
// tests show it does, first on a stand-in supervisor, then end to end with
// the hostile_parent_* plugins (reference_plugins/hostile/).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/kcmp.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "isolation/confinement.h"
#include "isolation/namespaces.h"
#include "isolation/sandbox.h"
#include "isolation/supervisor.h"
#include "sectl_process.h"

namespace sectl {
namespace {

using nlohmann::json;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// ---- SandboxChild against a stand-in supervisor ---------------------------

// The errno of each attempt a sandboxed child made on its supervisor (0: it
// worked), by name.
using Attempts = std::map<std::string, int>;

long Errno(long result) { return result < 0 ? errno : 0; }

// In the sandboxed child: every attempt on `supervisor`, each harmless when
// it works (signal 0 sends nothing, descriptors are only opened), and the
// things the child must still be able to do, as "name errno" lines.
std::string AttemptEverything(pid_t supervisor) {
  std::ostringstream out;
  const auto record = [&](const char* name, long result) {
    out << name << " " << Errno(result) << "\n";
  };
  const auto open_of = [&](const char* name, const std::string& path, int flags) {
    const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
    record(name, fd);
    if (fd >= 0) ::close(fd);
  };
  const std::string proc = "/proc/" + std::to_string(supervisor);
  open_of("open environ", proc + "/environ", O_RDONLY);
  open_of("open mem", proc + "/mem", O_RDWR);
  open_of("open fd/1", proc + "/fd/1", O_WRONLY);
  char byte = 0;
  iovec local{&byte, 1};
  // An address never mapped: the point is whether the call is refused.
  iovec remote{reinterpret_cast<void*>(uintptr_t{4096}), 1};  // NOLINT(performance-no-int-to-ptr)
  // EFAULT would mean permitted, stopped only by the address.
  record("process_vm_readv", ::process_vm_readv(supervisor, &local, 1, &remote, 1, 0));
  record("process_vm_writev", ::process_vm_writev(supervisor, &local, 1, &remote, 1, 0));
  const long attached = ::ptrace(PTRACE_ATTACH, supervisor, nullptr, nullptr);
  record("ptrace attach", attached);
  if (attached == 0) {
    // Unsandboxed, it works: let the supervisor go, without the SIGSTOP
    // the attach sent, or it stays stopped and the test hangs.
    ::waitpid(supervisor, nullptr, __WALL);
    ::ptrace(PTRACE_DETACH, supervisor, nullptr, nullptr);
  }
  record("kill", ::kill(supervisor, 0));
  record("kill group", ::kill(-supervisor, 0));
  record("kill everyone", ::kill(-1, 0));
  const long junk = static_cast<long>((uint64_t{0x5ec7} << 32) | static_cast<uint32_t>(supervisor));
  record("kill junk upper half", ::syscall(SYS_kill, junk, 0));
  record("tkill", ::syscall(SYS_tkill, supervisor, 0));
  record("tgkill", ::syscall(SYS_tgkill, supervisor, supervisor, 0));
  siginfo_t info{};
  info.si_code = SI_QUEUE;
  info.si_pid = ::getpid();
  info.si_uid = ::getuid();
  record("rt_sigqueueinfo", ::syscall(SYS_rt_sigqueueinfo, supervisor, 0, &info));
  const long pidfd = ::syscall(SYS_pidfd_open, supervisor, 0);
  record("pidfd_open", pidfd);
  if (pidfd >= 0) ::close(static_cast<int>(pidfd));
  rlimit limit{};
  record("prlimit", ::prlimit(supervisor, RLIMIT_CPU, nullptr, &limit));
  record("kcmp", ::syscall(SYS_kcmp, ::getpid(), supervisor, KCMP_FILE, 1, 1));

  // What a plugin may still do: its own process, group and children.
  record("own kill group", ::kill(0, 0));
  record("own prlimit", ::prlimit(0, RLIMIT_CPU, nullptr, &limit));
  open_of("own environ", "/proc/self/environ", O_RDONLY);
  const pid_t grandchild = ::fork();
  if (grandchild == 0) {
    ::pause();
    ::_exit(0);
  }
  record("own child kill", ::kill(grandchild, SIGKILL));
  int status = 0;
  ::waitpid(grandchild, &status, 0);
  record("own child killed", WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? 0 : -1);
  return out.str();
}

// How the stand-in's child is sandboxed: not at all, with the filter built
// in the child by libseccomp, or with the program compiled in the
// supervisor (what sectl's children load).
enum class Sandbox { kNone, kBuiltInTheChild, kCompiledInTheSupervisor };

// Forks a supervisor that makes itself non-dumpable and leads its process
// group, as sectl does, and a child of it that calls SandboxChild as
// `sandbox` says and then attempts everything. The attempts, by name.
Attempts AttemptOnSupervisor(Sandbox sandbox) {
  std::array<int, 2> answer{-1, -1};
  EXPECT_EQ(::pipe2(answer.data(), O_CLOEXEC), 0);
  const pid_t supervisor = ::fork();
  if (supervisor == 0) {
    ::close(answer[0]);
    ::setpgid(0, 0);
    ::prctl(PR_SET_DUMPABLE, 0);
    const isolation::CompiledSandboxFilter* compiled =
        sandbox == Sandbox::kCompiledInTheSupervisor ? isolation::CompileSandboxFilter(::getpid())
                                                     : nullptr;
    const pid_t child = ::fork();
    if (child == 0) {
      if (sandbox != Sandbox::kNone) isolation::SandboxChild(::getppid(), nullptr, compiled);
      const std::string lines = AttemptEverything(::getppid());
      (void)!::write(answer[1], lines.data(), lines.size());
      ::_exit(0);
    }
    ::close(answer[1]);
    ::waitpid(child, nullptr, 0);
    ::_exit(0);
  }
  ::close(answer[1]);
  std::string text;
  std::array<char, 4096> buffer{};
  ssize_t got = 0;
  while ((got = ::read(answer[0], buffer.data(), buffer.size())) > 0) {
    text.append(buffer.data(), static_cast<size_t>(got));
  }
  ::close(answer[0]);
  ::waitpid(supervisor, nullptr, 0);
  Attempts attempts;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const auto space = line.rfind(' ');
    if (space != std::string::npos) attempts[line.substr(0, space)] = std::stoi(line.substr(space));
  }
  return attempts;
}

bool Refused(const Attempts& attempts, const std::string& name) {
  const auto found = attempts.find(name);
  return found != attempts.end() && (found->second == EPERM || found->second == EACCES);
}

std::string Describe(const Attempts& attempts) {
  std::string text;
  for (const auto& [name, error] : attempts) {
    text += "  " + name + ": " + (error == 0 ? "worked" : std::strerror(error)) + "\n";
  }
  return text;
}

class SandboxChildEitherWay : public ::testing::TestWithParam<Sandbox> {};

INSTANTIATE_TEST_SUITE_P(SandboxChild, SandboxChildEitherWay,
                         ::testing::Values(Sandbox::kBuiltInTheChild,
                                           Sandbox::kCompiledInTheSupervisor),
                         [](const ::testing::TestParamInfo<Sandbox>& info) {
                           return info.param == Sandbox::kBuiltInTheChild
                                      ? "BuiltInTheChild"
                                      : "CompiledInTheSupervisor";
                         });

TEST_P(SandboxChildEitherWay, RefusesEveryWayIntoTheSupervisor) {
  const isolation::ConfinementInForce in_force = isolation::DescribeSandbox();
  if (GetParam() == Sandbox::kCompiledInTheSupervisor && in_force.seccomp) {
    ASSERT_FALSE(isolation::CompileSandboxFilter(::getpid())->program.empty())
        << "libseccomp loads a filter here, yet its program could not be compiled";
  }
  const Attempts attempts = AttemptOnSupervisor(GetParam());
  ASSERT_FALSE(attempts.empty());
  // Non-dumpable supervisor, no CAP_SYS_PTRACE in the child. Not "open
  // environ": some kernels (6.18 among them) let the same user read a
  // non-dumpable process's environ; PrepareSupervisor empties it instead
  // (SupervisorEnvironment.IsEmptyInProc below).
  if (in_force.ptrace_capability_absent) {
    for (const char* name : {"open mem", "open fd/1"}) {
      EXPECT_TRUE(Refused(attempts, name)) << name << "\n" << Describe(attempts);
    }
  }
  if (!in_force.seccomp) {
    GTEST_SKIP() << "no seccomp filter here: " << in_force.lines[0];
  }
  for (const char* name : {"process_vm_readv", "process_vm_writev", "ptrace attach", "kill",
                           "kill group", "kill everyone", "kill junk upper half", "tkill", "tgkill",
                           "rt_sigqueueinfo", "pidfd_open", "prlimit", "kcmp"}) {
    EXPECT_EQ(attempts.count(name) ? attempts.at(name) : -1, EPERM) << name << "\n"
                                                                    << Describe(attempts);
  }
}

// What any process of the same user reads as sectl's environment after
// PrepareSupervisor: nothing of it; sectl itself still sees every variable.
TEST(SupervisorEnvironment, IsEmptyInProcAndIntactForSectl) {
  std::random_device random;
  const std::string secret = "s3cr3t-" + std::to_string(random());
  std::array<int, 2> ready{-1, -1};
  ASSERT_EQ(::pipe2(ready.data(), O_CLOEXEC), 0);
  const pid_t supervisor = ::fork();
  ASSERT_GE(supervisor, 0);
  if (supervisor == 0) {
    // The initial block this process shows is the test's own (PATH, HOME,
    // ...: what a CI token would sit beside); the secret is on the heap.
    ::setenv("SECTL_TEST_SECRET", secret.c_str(), 1);
    isolation::PrepareSupervisor();
    const bool intact =
        ::getenv("SECTL_TEST_SECRET") != nullptr && secret == ::getenv("SECTL_TEST_SECRET");
    const char answer = intact ? 'y' : 'n';
    (void)!::write(ready[1], &answer, 1);
    ::pause();
    ::_exit(0);
  }
  ::close(ready[1]);
  char answer = 0;
  ASSERT_EQ(::read(ready[0], &answer, 1), 1);
  ::close(ready[0]);
  std::ifstream environ_file("/proc/" + std::to_string(supervisor) + "/environ");
  const std::string shown((std::istreambuf_iterator<char>(environ_file)),
                          std::istreambuf_iterator<char>());
  ::kill(supervisor, SIGKILL);
  ::waitpid(supervisor, nullptr, 0);
  EXPECT_EQ(answer, 'y') << "PrepareSupervisor lost the environment";
  EXPECT_EQ(shown.find(secret), std::string::npos) << shown;
  EXPECT_EQ(shown.find("PATH="), std::string::npos) << shown;
  EXPECT_EQ(shown.find_first_not_of('\0'), std::string::npos) << "not all zero: " << shown;
}

TEST(SandboxChild, LeavesThePluginItsOwnProcesses) {
  const Attempts attempts = AttemptOnSupervisor(Sandbox::kBuiltInTheChild);
  for (const char* name :
       {"own kill group", "own prlimit", "own environ", "own child kill", "own child killed"}) {
    EXPECT_EQ(attempts.count(name) ? attempts.at(name) : -1, 0) << name << "\n"
                                                                << Describe(attempts);
  }
}

// The control: without the sandbox, root reads a non-dumpable supervisor's
// environment and signals it, so the refusals above are the sandbox's doing.
TEST(SandboxChild, WithoutItRootReachesTheSupervisor) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root, which passes through CAP_SYS_PTRACE";
  const Attempts attempts = AttemptOnSupervisor(Sandbox::kNone);
  for (const char* name : {"open environ", "open mem", "kill", "kill junk upper half"}) {
    EXPECT_EQ(attempts.count(name) ? attempts.at(name) : -1, 0) << name << "\n"
                                                                << Describe(attempts);
  }
}

TEST(SandboxChild, DescribesWhatIsInForce) {
  const isolation::ConfinementInForce in_force = isolation::DescribeSandbox();
  ASSERT_GE(in_force.lines.size(), 3U);
  EXPECT_TRUE(in_force.lines[0].starts_with("seccomp: ")) << in_force.lines[0];
  EXPECT_EQ(in_force.seccomp, Contains(in_force.lines[0], "refused")) << in_force.lines[0];
  EXPECT_TRUE(in_force.lines[1].starts_with("capabilities: ")) << in_force.lines[1];
  if (::geteuid() == 0 && in_force.capabilities_absent) {
    EXPECT_EQ(in_force.lines[1], "capabilities: none in any set (dropped), the bounding set empty");
  }
  // Cached: the same answer, without a second probe.
  EXPECT_EQ(isolation::DescribeSandbox().lines, in_force.lines);
}

// ---- End to end: sectl conform on the hostile_parent_* plugins -------------

std::string HostilePlugin(const std::string& name) {
  return std::string(SECTL_HOSTILE_PLUGIN_DIR) + "/" + name + ".so";
}

// clang-tidy reads nlohmann::json's noexcept move, which checks its
// invariants, as one that may throw.
struct SectlRun : testing::CommandResult {  // NOLINT(bugprone-exception-escape)
  std::string log;                          // what the plugin logged (SECTL_HOSTILE_LOG)
  json report;
};

using testing::TemporaryDirectory;

// How long sectl may take on one hostile plugin: a hostile plugin that
// stopped sectl would hang it forever.
constexpr auto kRunLimit = std::chrono::seconds(90);

// Runs `sectl conform PLUGIN --report json` with `secret` added to sectl's
// environment and SECTL_HOSTILE_LOG passed to the plugin, in a process
// group of its own, killed (after a SIGCONT) if it passes kRunLimit.
// How sectl runs the plugin's processes: in new namespaces (the default,
// where the kernel allows them), and in sectl's own (--no-namespaces, and
// what a machine without namespaces gets), where only the sandbox stands
// between the plugin and sectl.
enum class Namespaces { kOwn, kShared };
constexpr Namespaces kBothWays[] = {Namespaces::kOwn, Namespaces::kShared};

std::string Describe(Namespaces namespaces) {
  return namespaces == Namespaces::kOwn ? "in its own namespaces" : "with --no-namespaces";
}

SectlRun ConformHostile(const std::string& plugin, Namespaces namespaces = Namespaces::kOwn,
                        const std::string& secret = {},
                        const std::vector<std::string>& extra_arguments = {}) {
  TemporaryDirectory directory;
  const std::filesystem::path log = directory.path() / "hostile.log";
  testing::RunOptions options{.added_environment = {"SECTL_HOSTILE_LOG=" + log.string()},
                              .deadline = kRunLimit,
                              .own_process_group = true};
  if (!secret.empty()) options.added_environment.push_back(secret);
  std::vector<std::string> arguments{
      "conform",    HostilePlugin(plugin), "--report",        "json",
      "--pass-env", "SECTL_HOSTILE_LOG",   "--no-throughput", "--timeout",
      "20",         "--plugin-writes",     log.string()};
  if (namespaces == Namespaces::kShared) arguments.emplace_back("--no-namespaces");
  arguments.insert(arguments.end(), extra_arguments.begin(), extra_arguments.end());
  SectlRun run{testing::RunSectl(arguments, options)};
  std::ifstream log_file(log);
  run.log.assign(std::istreambuf_iterator<char>(log_file), std::istreambuf_iterator<char>());
  try {
    run.report = json::parse(run.out);
  } catch (const json::exception& error) {
    ADD_FAILURE() << plugin << ": stdout is not a JSON report (" << error.what() << "):\n"
                  << run.out << "\nstderr:\n"
                  << run.err;
  }
  return run;
}

// The lines of `log` that begin with `act`.
std::vector<std::string> Attempted(const std::string& log, const std::string& act) {
  std::vector<std::string> lines;
  std::istringstream stream(log);
  std::string line;
  while (std::getline(stream, line)) {
    if (line.starts_with(act + ": ")) lines.push_back(line);
  }
  return lines;
}

// Every attempt of `act` in the log was refused, and there was one.
void ExpectRefused(const SectlRun& run, const std::string& act) {
  const std::vector<std::string> lines = Attempted(run.log, act);
  EXPECT_FALSE(lines.empty()) << act << " was never attempted; the log:\n" << run.log;
  for (const std::string& line : lines) {
    EXPECT_TRUE(line.starts_with(act + ": refused (")) << line;
  }
}

// Each check's status, by id.
std::map<std::string, std::string> Statuses(const json& report) {
  std::map<std::string, std::string> statuses;
  for (const auto& result : report.value("results", json::array())) {
    statuses[result.value("id", "")] = result.value("status", "");
  }
  return statuses;
}

// The hostile plugin is sectl_minimal with one act added: once the act is
// refused, every check ends as it does for sectl_minimal, and so does sectl.
void ExpectTheMinimalPluginsReport(const SectlRun& run) {
  static const SectlRun* minimal = [] {
    static SectlRun reference;
    const testing::CommandResult command =
        testing::RunSectl({"conform", testing::ReferencePlugin("sectl_minimal"), "--report", "json",
                           "--no-throughput", "--timeout", "20"});
    reference.exit_code = command.exit_code;
    reference.report = json::parse(command.out, nullptr, /*allow_exceptions=*/false);
    return &reference;
  }();
  EXPECT_FALSE(run.timed_out) << "sectl did not finish within " << kRunLimit.count() << " s";
  ASSERT_TRUE(run.report.is_object());
  EXPECT_TRUE(run.report["load_error"].is_null()) << run.report["load_error"];
  EXPECT_EQ(Statuses(run.report), Statuses(minimal->report));
  EXPECT_EQ(run.exit_code, minimal->exit_code) << run.err;
}

// The report says what was in force, so a reader of a report from a
// container without seccomp knows the plugin could reach sectl there.
TEST(HostileParent, TheReportSaysWhatConfinementWasInForce) {
  for (const Namespaces namespaces : kBothWays) {
    SCOPED_TRACE(Describe(namespaces));
    const std::string plugin =
        std::filesystem::absolute(testing::ReferencePlugin("sectl_minimal")).string();
    std::vector<std::string> arguments{"conform",         plugin,     "--report",      "json",
                                       "--no-throughput", "--filter", "registration.*"};
    if (namespaces == Namespaces::kShared) arguments.emplace_back("--no-namespaces");
    const testing::CommandResult command = testing::RunSectl(arguments);
    const json report = json::parse(command.out, nullptr, /*allow_exceptions=*/false);
    ASSERT_TRUE(report.is_object()) << command.out;
    EXPECT_EQ(report["confinement"].get<std::vector<std::string>>(),
              isolation::DescribeConfinementInForce(
                  {.namespaces = namespaces == Namespaces::kOwn, .plugin_files = {plugin}}));
  }
  const testing::CommandResult unconfined =
      testing::RunSectl({"conform", testing::ReferencePlugin("sectl_minimal"), "--report", "json",
                         "--no-throughput", "--filter", "registration.*", "--isolation", "none"});
  const json in_process = json::parse(unconfined.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_TRUE(in_process.is_object()) << unconfined.out << unconfined.err;
  ASSERT_EQ(in_process["confinement"].size(), 1U);
  EXPECT_TRUE(in_process["confinement"][0].get<std::string>().starts_with("none:"));
}

TEST(HostileParent, CannotReadSectlsEnvironment) {
  std::random_device random;
  const std::string value = "s3cr3t-" + std::to_string(random()) + std::to_string(random());
  for (const Namespaces namespaces : kBothWays) {
    SCOPED_TRACE(Describe(namespaces));
    const SectlRun run =
        ConformHostile("hostile_parent_environ", namespaces, "SECTL_TEST_SECRET=" + value);
    EXPECT_FALSE(Contains(run.out, value)) << "the secret is in sectl's stdout";
    EXPECT_FALSE(Contains(run.err, value)) << "the secret is in sectl's stderr";
    EXPECT_FALSE(Contains(run.log, value)) << "the plugin read the secret:\n" << run.log;
    // Opening it may work (see SandboxChildEitherWay.RefusesEveryWayIntoTheSupervisor);
    // what it shows is empty, which the secret's absence above proves.
    EXPECT_FALSE(Attempted(run.log, "open /proc/PPID/environ").empty()) << run.log;
    ExpectTheMinimalPluginsReport(run);
  }
}

// A forked process starts as a copy of sectl's memory: a plugin that scans
// its own for a secret in sectl's environment must find nothing there.
TEST(HostileParent, CannotFindSectlsEnvironmentInItsOwnMemory) {
#if defined(SECTL_SANITIZED)
  GTEST_SKIP() << "the sanitizer runtime reads /proc/self/environ into memory of its own at "
                  "start and keeps it; sectl cannot release that copy";
#endif
  std::random_device random;
  const std::string value = "s3cr3t-" + std::to_string(random()) + std::to_string(random());
  for (const Namespaces namespaces : kBothWays) {
    SCOPED_TRACE(Describe(namespaces));
    const SectlRun run =
        ConformHostile("hostile_parent_secret_scan", namespaces, "SECTL_TEST_SECRET=" + value);
    const std::vector<std::string> outcomes = Attempted(run.log, "secrets found");
    EXPECT_FALSE(outcomes.empty()) << run.log;
    for (const std::string& line : outcomes) EXPECT_EQ(line, "secrets found: 0") << run.log;
    EXPECT_FALSE(Contains(run.log, value)) << run.log;
    ExpectTheMinimalPluginsReport(run);
  }
  // The scan finds what is there: passed on purpose, the variable is in the
  // plugin's own environment.
  const SectlRun passed =
      ConformHostile("hostile_parent_secret_scan", Namespaces::kOwn, "SECTL_TEST_SECRET=" + value,
                     {"--pass-env", "SECTL_TEST_SECRET"});
  EXPECT_TRUE(Contains(passed.log, "secrets found: 1, the first: SECTL_TEST_SECRET=" + value) ||
              Contains(passed.log, "the first: " + value))
      << passed.log;
}

TEST(HostileParent, CannotWriteIntoSectlsStdout) {
  for (const Namespaces namespaces : kBothWays) {
    SCOPED_TRACE(Describe(namespaces));
    const SectlRun run = ConformHostile("hostile_parent_stdout", namespaces);
    EXPECT_FALSE(Contains(run.out, "not JSON: written by")) << run.out;
    ExpectRefused(run, "open /proc/PPID/fd/1");
    ExpectTheMinimalPluginsReport(run);
  }
}

TEST(HostileParent, CannotWriteSectlsMemory) {
  for (const Namespaces namespaces : kBothWays) {
    SCOPED_TRACE(Describe(namespaces));
    const SectlRun run = ConformHostile("hostile_parent_memory", namespaces);
    ExpectRefused(run, "open /proc/PPID/mem for writing");
    ExpectRefused(run, "process_vm_writev");
    ExpectRefused(run, "process_vm_readv");
    ExpectTheMinimalPluginsReport(run);
  }
}

// In its namespaces the plugin's parent is sectl's reaper at pid 1, which
// the filter keeps from it as it keeps sectl; without them, sectl itself.
TEST(HostileParent, CannotStopOrKillSectl) {
  if (!isolation::DescribeSandbox().seccomp) {
    GTEST_SKIP() << "without the seccomp filter nothing keeps a plugin from stopping sectl ("
                 << isolation::DescribeSandbox().lines[0] << ")";
  }
  for (const Namespaces namespaces : kBothWays) {
    SCOPED_TRACE(Describe(namespaces));
    const SectlRun run = ConformHostile("hostile_parent_signal", namespaces);
    for (const char* act :
         {"kill(sectl, SIGSTOP)", "tkill(sectl, SIGSTOP)", "tgkill(sectl, sectl, SIGSTOP)",
          "rt_sigqueueinfo(sectl, SIGSTOP)", "kill(sectl with junk in the upper half, SIGSTOP)",
          "kill(-sectl's group, SIGSTOP)", "kill(sectl, SIGKILL)"}) {
      ExpectRefused(run, act);
    }
    for (const std::string& line : Attempted(run.log, "kill(-sectl's session, 0)")) {
      EXPECT_TRUE(Contains(line, "refused (EPERM)")) << line;
    }
    ExpectTheMinimalPluginsReport(run);
  }
}

TEST(HostileParent, CannotKillEveryProcess) {
  // Only where the filter is known to be in force: without it, as root,
  // kill(-1, SIGKILL) ends every process on the machine. (The plugin also
  // holds back unless kill(-1, 0) is refused.)
  if (!isolation::DescribeSandbox().seccomp) {
    GTEST_SKIP() << "kill(-1, SIGKILL) is tried only under the seccomp filter ("
                 << isolation::DescribeSandbox().lines[0] << ")";
  }
  for (const Namespaces namespaces : kBothWays) {
    SCOPED_TRACE(Describe(namespaces));
    const SectlRun run = ConformHostile("hostile_parent_kill_everyone", namespaces);
    ExpectRefused(run, "kill(-1, 0)");
    ExpectRefused(run, "kill(-1, SIGKILL)");
    ExpectTheMinimalPluginsReport(run);
  }
}

TEST(HostileParent, CannotSignalWhatStartedSectlOrInit) {
  if (!isolation::DescribeSandbox().seccomp) {
    GTEST_SKIP() << "without the seccomp filter nothing keeps a plugin from signalling sectl's "
                    "parent ("
                 << isolation::DescribeSandbox().lines[0] << ")";
  }
  // sectl's parent here is this test: what a CI runner is in the field.
  for (const Namespaces namespaces : kBothWays) {
    SCOPED_TRACE(Describe(namespaces));
    const SectlRun run = ConformHostile("hostile_parent_beyond_sectl", namespaces);
    if (namespaces == Namespaces::kOwn && isolation::ProbeNamespaces().pid) {
      // Its parent is the reaper at pid 1, whose parent is outside the
      // namespace: there is no pid to name sectl's parent by.
      EXPECT_TRUE(Contains(run.log, "sectl's parent: not found through /proc")) << run.log;
      EXPECT_TRUE(Attempted(run.log, "kill(sectl's parent, 0)").empty()) << run.log;
    } else {
      for (const char* act : {"kill(sectl's parent, 0)", "kill(sectl's parent, SIGCONT)"}) {
        ExpectRefused(run, act);
      }
    }
    ExpectRefused(run, "kill(init, 0)");
    for (const std::string& line : Attempted(run.log, "kill(-sectl's parent's group, 0)")) {
      EXPECT_TRUE(Contains(line, "refused (EPERM)")) << line;
    }
    ExpectTheMinimalPluginsReport(run);
  }
}

// Sibling checks under -j and every other process of the user: in its own
// PID namespace the plugin can name none of them. Without namespaces it can
// (signal 0 only, so this test harms nothing): the test can fail.
std::vector<std::string> Noted(const std::string& log, const std::string& prefix);

TEST(HostileParent, CannotSeeOrSignalAnyOtherProcessInItsNamespaces) {
  if (!isolation::ProbeNamespaces().pid) {
    GTEST_SKIP() << "no namespaces here (" << isolation::ProbeNamespaces().why_not << ")";
  }
  const SectlRun confined = ConformHostile("hostile_parent_neighbours", Namespaces::kOwn);
  EXPECT_TRUE(Contains(confined.log, "other processes it could signal: 0\n")) << confined.log;
  if (isolation::ProbeNamespaces().fresh_proc) {
    // The reaper at pid 1 and the plugin server's judge, its parent; no
    // sibling check, and nothing beyond the namespace.
    const std::vector<std::string> listed = Noted(confined.log, "other processes listed in /proc");
    EXPECT_FALSE(listed.empty()) << confined.log;
    for (const std::string& count : listed) EXPECT_EQ(count, "2") << confined.log;
  }
  ExpectTheMinimalPluginsReport(confined);

  const SectlRun shared = ConformHostile("hostile_parent_neighbours", Namespaces::kShared);
  EXPECT_FALSE(Contains(shared.log, "other processes it could signal: 0\n")) << shared.log;
  EXPECT_TRUE(Contains(shared.log, "other processes it could signal: ")) << shared.log;
}

// Copies of sectl and the plugin server beside it in `directory`, readable
// and executable by anyone: a user other than the build tree's owner (or
// nobody, where sectl is root) may not reach the build tree.
std::filesystem::path CopySectlInto(const std::filesystem::path& directory) {
  const std::filesystem::path sectl = directory / "sectl";
  const std::filesystem::path server = directory / "sectl-plugin-server";
  std::filesystem::copy_file(SECTL_BINARY, sectl);
  std::filesystem::copy_file(
      std::filesystem::path(SECTL_BINARY).parent_path() / "sectl-plugin-server", server);
  for (const auto& copy : {sectl, server}) {
    std::filesystem::permissions(
        copy, std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                  std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                  std::filesystem::perms::others_exec);
  }
  return sectl;
}

// As a plain user, the namespaces come with a user namespace that maps the
// user onto itself (root needs none). Run as nobody when the tests run as
// root; where unprivileged user namespaces are off, sectl says so instead.
TEST(HostileParent, AsAPlainUserThePluginStillSeesNoOtherProcess) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root, to run sectl as nobody";
  if (testing::RunCommand({"setpriv", "--version"}).exit_code != 0) {
    GTEST_SKIP() << "no setpriv (util-linux) to change user with";
  }
  TemporaryDirectory directory;
  std::filesystem::permissions(directory.path(), std::filesystem::perms::all);
  // nobody may not reach the build tree (a clone in a 0700 directory, or
  // under /root): it runs copies of sectl and the plugin from a directory
  // of its own.
  const std::filesystem::path sectl = CopySectlInto(directory.path());
  const std::filesystem::path plugin = directory.path() / "hostile_parent_neighbours.so";
  std::filesystem::copy_file(HostilePlugin("hostile_parent_neighbours"), plugin);
  for (const auto& copy : {plugin}) {
    std::filesystem::permissions(
        copy, std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                  std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                  std::filesystem::perms::others_exec);
  }
  const std::filesystem::path log = directory.path() / "hostile.log";
  const testing::CommandResult command = testing::Run(
      {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sectl.string(), "conform",
       plugin.string(), "--report", "json", "--pass-env", "SECTL_HOSTILE_LOG", "--no-throughput",
       "--filter", "registration.*", "--plugin-writes", log.string()},
      {.added_environment = {"SECTL_HOSTILE_LOG=" + log.string()}, .deadline = kRunLimit});
  const json report = json::parse(command.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_TRUE(report.is_object()) << command.out << command.err;
  const std::string namespaces = report["confinement"][0].get<std::string>();
  if (namespaces.starts_with("namespaces: unavailable")) {
    GTEST_SKIP() << "as nobody: " << namespaces;
  }
  EXPECT_TRUE(namespaces.starts_with("namespaces: pid, mount") && namespaces.ends_with(", user"))
      << namespaces;
  std::ifstream log_file(log);
  const std::string text((std::istreambuf_iterator<char>(log_file)), {});
  EXPECT_TRUE(Contains(text, "other processes it could signal: 0\n")) << text;
  if (Contains(namespaces, "(own /proc")) {
    // Not even the reaper at pid 1: hidepid=2 hides a process it may not
    // read, and the reaper is not dumpable.
    EXPECT_TRUE(Contains(text, "other processes listed in /proc: 0\n")) << text;
  }
  EXPECT_EQ(command.exit_code, 0) << command.err;
}

// Every line of the log that begins with `prefix`, the prefix removed.
std::vector<std::string> Noted(const std::string& log, const std::string& prefix) {
  std::vector<std::string> values;
  for (const std::string& line : Attempted(log, prefix)) {
    values.push_back(line.substr(prefix.size() + 2));
  }
  return values;
}

// What only privilege would allow is refused, whichever user the plugin
// runs as (nobody, or root without capabilities where nobody cannot reach
// the log this test names): no capability, not dumpable, no mount or
// unmount, no cgroup or kernel setting opened for writing; its working
// directory is its TMPDIR and, in its own namespaces, holds 64 MiB at most.
TEST(HostileParent, HoldsNoPrivilegeAndCannotFillTheDisk) {
  for (const Namespaces namespaces : kBothWays) {
    SCOPED_TRACE(Describe(namespaces));
    const SectlRun run =
        ConformHostile("hostile_parent_privileges", namespaces, {}, {"--filter", "registration.*"});
    ASSERT_TRUE(run.report.is_object()) << run.out << run.err;
    for (const std::string& held : Noted(run.log, "capabilities held")) EXPECT_EQ(held, "none");
    if (::geteuid() == 0) {
      for (const std::string& bounding : Noted(run.log, "bounding set")) EXPECT_EQ(bounding, "0");
    }
    for (const std::string& dumpable : Noted(run.log, "dumpable")) EXPECT_EQ(dumpable, "0");
    for (const std::string& nnp : Noted(run.log, "no_new_privs")) EXPECT_EQ(nnp, "1");
    ExpectRefused(run, "umount /proc");
    ExpectRefused(run, "mount a tmpfs");
    // Root without capabilities still owns root's files: only a read-only
    // view (its own mount namespace) or another user keeps it from them.
    const bool root_in_the_hosts_view =
        namespaces == Namespaces::kShared &&
        !run.report["confinement"][1].get<std::string>().starts_with("user: nobody") &&
        ::geteuid() == 0;
    if (!root_in_the_hosts_view) {
      ExpectRefused(run, "open /proc/sys/kernel/hostname for writing");
      if (!Contains(run.log, "cgroup: unknown")) {
        ExpectRefused(run, "open cgroup.freeze for writing");
        ExpectRefused(run, "open cgroup.kill for writing");
      }
    }
    const std::vector<std::string> in_tmpdir = Noted(run.log, "working directory is TMPDIR");
    EXPECT_FALSE(in_tmpdir.empty()) << run.log;
    for (const std::string& answer : in_tmpdir) EXPECT_EQ(answer, "yes");
    const std::string view = run.report["confinement"][2].get<std::string>();
    EXPECT_TRUE(view.starts_with("file system: ")) << view;
    if (view.starts_with("file system: read-only")) {
      for (const std::string& line : Attempted(run.log, "filled")) {
        EXPECT_TRUE(line.ends_with("(ENOSPC)")) << line;
        EXPECT_LE(std::stoi(line.substr(std::string("filled ").size())), 64) << line;
      }
    }
    // Each act left the checks as the minimal plugin's.
    EXPECT_EQ(run.exit_code, 0) << run.err;
  }
}

// Run as nobody where sectl is root and nobody can reach the plugin and
// the plugin server (copied out of the build tree, which may be a 0700
// clone's: the README says what confinement is left there).
TEST(HostileParent, RunsAsNobodyWhereSectlIsRoot) {
  if (::geteuid() != 0) GTEST_SKIP() << "sectl is not root here";
  TemporaryDirectory directory;
  std::filesystem::permissions(directory.path(), std::filesystem::perms::all);
  const std::filesystem::path sectl = CopySectlInto(directory.path());
  const std::filesystem::path plugin = directory.path() / "hostile_parent_privileges.so";
  std::filesystem::copy_file(HostilePlugin("hostile_parent_privileges"), plugin);
  std::filesystem::permissions(plugin, std::filesystem::perms::owner_all |
                                           std::filesystem::perms::others_read |
                                           std::filesystem::perms::others_exec);
  const std::filesystem::path log = directory.path() / "hostile.log";
  const testing::CommandResult command = testing::Run(
      {sectl.string(), "conform", plugin.string(), "--report", "json", "--pass-env",
       "SECTL_HOSTILE_LOG", "--no-throughput", "--filter", "registration.*", "--plugin-writes",
       log.string()},
      {.added_environment = {"SECTL_HOSTILE_LOG=" + log.string()}, .deadline = kRunLimit});
  const json report = json::parse(command.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_TRUE(report.is_object()) << command.out << command.err;
  EXPECT_TRUE(report["confinement"][1].get<std::string>().starts_with("user: nobody"))
      << report["confinement"].dump(2);
  std::ifstream log_file(log);
  const std::string text((std::istreambuf_iterator<char>(log_file)), {});
  EXPECT_TRUE(Contains(text, "uid: 65534\n")) << text;
  EXPECT_FALSE(Contains(text, "uid: 0\n")) << text;
  EXPECT_EQ(command.exit_code, 0) << command.err;
}

// Under `sectl probe` the plugin runs in sectl-plugin-server, a program of
// its own (docs/plugin-server.md): none of sectl's code or strings is in
// its process, and no descriptor but the server's own (its channels, arena,
// copy pipe, crash report channel and lane), so there is nothing of the
// probe's there to forge.
TEST(HostileParent, UnderProbeFindsNothingOfSectlsInItsProcess) {
#if defined(SECTL_SANITIZED)
  GTEST_SKIP() << "the plugin's scan of the server's memory reads what the sanitizer poisons";
#endif
  TemporaryDirectory directory;
  const std::filesystem::path log = directory.path() / "hostile.log";
  for (const Namespaces namespaces : kBothWays) {
    SCOPED_TRACE(Describe(namespaces));
    std::filesystem::remove(log);
    std::vector<std::string> arguments{
        "probe",           HostilePlugin("hostile_parent_find_the_judge"),
        "--pass-env",      "SECTL_HOSTILE_LOG",
        "--plugin-writes", log.string()};
    if (namespaces == Namespaces::kShared) arguments.emplace_back("--no-namespaces");
    const testing::CommandResult probe = testing::RunSectl(
        arguments,
        {.added_environment = {"SECTL_HOSTILE_LOG=" + log.string()}, .deadline = kRunLimit});
    EXPECT_EQ(probe.exit_code, 0) << probe.err;
    std::ifstream log_file(log);
    const std::string text((std::istreambuf_iterator<char>(log_file)), {});
    EXPECT_TRUE(Contains(text, "program: sectl-plugin-server\n")) << text;
    EXPECT_FALSE(Contains(text, "FOUND")) << text;
    EXPECT_TRUE(Contains(text, "sectl's strings in this process: none\n")) << text;
    for (const std::string& count : Noted(text, "descriptors beyond stdio")) {
      // The main channel, the arena, the event channel, the crash report
      // channel, the two ends of the pipe ReadBytes/WriteBytes copy
      // through, and the probe's one lane.
      EXPECT_EQ(count, "7") << text;
    }
  }
}

// Under `sectl conform` every load of the plugin is in sectl-plugin-server:
// the preflight's, the helper triage's before the checks and each check's.
// What a plugin learns or writes in its process never shares memory with
// what sectl concludes from it.
TEST(HostileParent, UnderConformEveryLoadIsInThePluginServer) {
#if defined(SECTL_SANITIZED)
  GTEST_SKIP() << "the plugin's scan of the server's memory reads what the sanitizer poisons";
#endif
  TemporaryDirectory directory;
  const std::filesystem::path log = directory.path() / "hostile.log";
  const testing::CommandResult conform = testing::RunSectl(
      {"conform", HostilePlugin("hostile_parent_find_the_judge"), "--no-throughput", "--pass-env",
       "SECTL_HOSTILE_LOG", "--plugin-writes", log.string()},
      {.added_environment = {"SECTL_HOSTILE_LOG=" + log.string()}, .deadline = kRunLimit});
  EXPECT_EQ(conform.exit_code, 0) << conform.err;
  std::ifstream log_file(log);
  const std::string text((std::istreambuf_iterator<char>(log_file)), {});
  const std::vector<std::string> programs = Noted(text, "program");
  // The preflight, five triage probes and every check.
  EXPECT_GT(programs.size(), 6U) << text;
  for (const std::string& program : programs) EXPECT_EQ(program, "sectl-plugin-server") << text;
  EXPECT_FALSE(Contains(text, "FOUND")) << text;
}

TEST(HostileParent, CannotTraceSectl) {
  const isolation::ConfinementInForce in_force = isolation::DescribeSandbox();
  for (const Namespaces namespaces : kBothWays) {
    SCOPED_TRACE(Describe(namespaces));
    const SectlRun run = ConformHostile("hostile_parent_ptrace", namespaces);
    ExpectRefused(run, "ptrace(PTRACE_ATTACH, sectl)");
    if (in_force.seccomp) {
      for (const char* act : {"pidfd_open(sectl)", "pidfd_send_signal(/proc/sectl, 0)",
                              "kcmp(self, sectl, KCMP_FILE, 1, 1)", "prlimit(sectl, RLIMIT_CPU)"}) {
        ExpectRefused(run, act);
      }
    }
    ExpectTheMinimalPluginsReport(run);
  }
}

}  // namespace
}  // namespace sectl
