// The result of a conformance run: plain data shared by the runner (which
// fills it), the report writers (table, JSON, JUnit) and `sectl report`
// (which reads saved reports back and merges them).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/host_info.h"

namespace sectl::report {

// 2 added the "blocked" status, each result's culprits, blocked_by_checks
// and severity_reason, and the report's root_causes; 3 added
// "interrupted" and "confinement"; 4 added "verdict", "selection" and
// "missing_shards"; 5 settled every status (SettleStatus: fail, crash,
// timeout and blocked only on required checks, each failing the run), added
// each result's "observed_status" and each root cause's "severity" and
// "required_failed"/"required_blocked"; 6 added "device" and "subject".
// Older documents are still read (their results settled as they are read,
// and the verdict judged from them).
inline constexpr int kConformSchemaVersion = 6;
inline constexpr int kOldestReadableConformSchemaVersion = 1;

// One word per outcome, with one meaning in every format (table, JSON,
// JUnit, HTML) and for the exit status: once a result is settled
// (SettleStatus), fail, crash, timeout and blocked appear only on required
// checks, and each of them makes the run not conformant; warn and skip never
// do. What a non-required check observed stays in its "observed_status".
enum class CheckStatus {
  kPass,
  kFail,     // a required behaviour is broken
  kWarn,     // a recommendation is broken, or a non-required check failed, crashed or hung
  kSkip,     // not applicable (an optional capability is absent), or a non-required
             // check could not run (details say why)
  kCrash,    // a required check's process died on a signal
  kTimeout,  // a required check did not finish within --timeout and was killed
  kError,    // sectl itself failed; never the plugin's fault
  kBlocked,  // a required check could not run: a plugin function it only uses is
             // broken (see culprits); what it should establish is unproven
};

std::string_view StatusName(CheckStatus status);  // "pass", "fail", ...
std::optional<CheckStatus> ParseStatus(std::string_view name);
inline constexpr CheckStatus kAllStatuses[] = {
    CheckStatus::kPass,  CheckStatus::kFail,    CheckStatus::kWarn,  CheckStatus::kSkip,
    CheckStatus::kCrash, CheckStatus::kTimeout, CheckStatus::kError, CheckStatus::kBlocked};

// How much TensorFlow depends on what a check establishes.
enum class CheckSeverity {
  kRequired,     // TensorFlow relies on it
  kRecommended,  // the API's documents ask for it
  kInfo,         // informational
};

std::string_view SeverityName(CheckSeverity severity);  // "required", ...
inline constexpr CheckSeverity kAllSeverities[] = {
    CheckSeverity::kRequired, CheckSeverity::kRecommended, CheckSeverity::kInfo};
std::optional<CheckSeverity> ParseSeverity(std::string_view name);

// The statuses that make a run not conformant when a required check ends in
// them (unless the baseline expects it): fail, crash, timeout and blocked. A
// required check that could not run proves nothing, so "conformant" is only
// ever said when every required check ran to a verdict and passed.
bool IsFailureStatus(CheckStatus status);

// The statuses in which a check itself found a defect: fail, crash, timeout.
bool IsDefectStatus(CheckStatus status);

// What a baseline said about one result.
enum class BaselineVerdict {
  kNone,        // no baseline, or no entry matches and the result is not a failure
  kExpected,    // a known failure (or flake, or skip) that is still so
  kRegression,  // a failure no entry excuses
  kFixed,       // a baselined failure that now passes: time to trim the baseline
  kExpired,     // an entry matched but its expiry date has passed; it excuses nothing
};

std::string_view BaselineVerdictName(BaselineVerdict verdict);  // "", "expected", ...
inline constexpr BaselineVerdict kAllVerdicts[] = {
    BaselineVerdict::kNone, BaselineVerdict::kExpected, BaselineVerdict::kRegression,
    BaselineVerdict::kFixed, BaselineVerdict::kExpired};
std::optional<BaselineVerdict> ParseBaselineVerdict(std::string_view name);

struct CheckResult {
  std::string id;  // dotted, hierarchical: "memcpy.htod.sizes"
  std::string title;
  std::string area;  // the first component of the id
  CheckSeverity severity = CheckSeverity::kRequired;
  CheckStatus status = CheckStatus::kPass;
  std::string message;  // what was expected, what happened, why it matters
  double duration_s = 0;
  nlohmann::json details = nlohmann::json::object();  // check-specific facts
  std::string log;                                    // the plugin's stdout/stderr, truncated
  std::vector<std::string> journal;  // the last plugin calls, for results that are not a pass
  int repetition = 0;                // 0-based, with --repeat
  BaselineVerdict baseline = BaselineVerdict::kNone;
  std::string baseline_reason;  // the matching entry's reason
  // Root causes. For fail, crash and timeout: the plugin functions blamed
  // ("SP_StreamExecutor.memcpy_htod"); for blocked: the one function, used
  // but not tested by this check, that stopped it, and the checks that test
  // that function (`blocked_by_checks`).
  std::vector<std::string> culprits;
  std::vector<std::string> blocked_by_checks;
  // Why the check has its severity: for a required check, the released
  // TensorFlow generation(s) a failure harms. Carried by results that are
  // not a pass.
  std::string severity_reason;
  // What a non-required check ended in before SettleStatus made it a warn
  // (fail, crash, timeout) or a skip (blocked): kept so nothing observed is
  // lost. Unset when the status is what the check ended in.
  std::optional<CheckStatus> observed_status;
};

// Gives a result its one word (see CheckStatus): a non-required check that
// failed, crashed or timed out becomes a warn, one that was blocked a skip,
// each keeping what it observed in observed_status and saying so at the
// start of its message. Required results, and settled ones, are unchanged.
// Call it once the severity is final (after --tf-version and escalation).
void SettleStatus(CheckResult& result);

// Whether a result is a check that could not run because of a function it
// only uses: blocked (required), or not run (settled as a skip). Its report
// row points at the root cause, where what stopped it is told once.
bool BlockedByACulprit(const CheckResult& result);

// One line of the root-cause summary: a plugin function, what went wrong in
// it first, and every check it failed and blocked.
struct RootCause {
  std::string function;  // "SP_StreamExecutor.host_callback"
  std::string first_problem;
  std::vector<std::string> failed;   // check ids (fail, crash, timeout)
  std::vector<std::string> blocked;  // check ids (blocked, or non-required and not run)
  std::vector<std::string> warned;   // check ids: it works, against a recommendation
  // The highest severity of what it failed and blocked: a function whose
  // defect only blocks required checks is itself a required failure.
  CheckSeverity severity = CheckSeverity::kInfo;
  int required_failed = 0;   // of `failed`, the required checks
  int required_blocked = 0;  // of `blocked`, the required checks
  // The check whose account gave first_problem: where the whole story
  // (its message, plugin calls, backtrace and log) is told once.
  std::string first_problem_check;
  // The functions the evidence cannot tell this one from, and why: every
  // observation against it went through them too (a corrupt read looks like
  // a corrupt write). Empty when some check caught this function alone.
  std::vector<std::string> cannot_tell_from;
  std::string cannot_tell_why;
};

// The summary a report starts with: one entry per faulty function, those
// caught alone first, then the most far-reaching. Derived from the results, so merged shards get
// the same summary as one run.
std::vector<RootCause> SummarizeRootCauses(const std::vector<CheckResult>& results);

// For a cause the evidence cannot separate from others, who it is, for
// people: "cannot tell SP_StreamExecutor.memcpy_dtoh from sync_memcpy_dtoh
// or memcpy_htod"; else its function.
std::string DescribeSuspects(const RootCause& cause);

// How far a root cause reaches, for people: "fails 1 required check, blocks
// 28 required checks and 2 not required, 1 warning".
std::string DescribeReach(const RootCause& cause);

struct Summary {
  int pass = 0;
  int fail = 0;
  int warn = 0;
  int skip = 0;
  int crash = 0;
  int timeout = 0;
  int error = 0;
  int blocked = 0;

  int& CountOf(CheckStatus status);
  int CountOf(CheckStatus status) const;
  int total() const { return pass + fail + warn + skip + crash + timeout + error + blocked; }
};

Summary Summarize(const std::vector<CheckResult>& results);

struct ToolInfo {
  std::string name = "sectl";
  std::string version;
};

struct PluginInfo {
  std::string path;
  std::string sha256;
  std::string entry;        // "SE_InitPlugin"
  std::string abi_vintage;  // the header generation its struct sizes point to
  // What get_device_count (or the TVM plugin's device list) reported, as
  // is: 0 or fewer on a machine without the device. Unknown when the plugin
  // could not be loaded.
  std::optional<int> device_count;
};

// A glimpse of copy bandwidth at the end of a conformance run, at one size
// (`sectl bench memcpy` gives the whole picture). It never affects whether
// the plugin is conformant.
struct ThroughputResult {
  std::string direction;    // "h2d", "d2h", "d2d"
  std::string host_memory;  // "pinned", "pageable", "none"
  double median_gbps = 0;   // 10^9 bytes/s
  double ratio_to_ceiling = 0;
  std::string verification;          // "passed", "failed: ...", "not verified: ..."
  std::optional<std::string> error;  // the path could not be measured
  // Why what was timed is no bandwidth (bench_report.h's not_measurable);
  // median_gbps and ratio_to_ceiling are then not finite.
  std::optional<std::string> not_measurable;
};

struct Throughput {
  uint64_t bytes = 0;
  double ceiling_gbps = 0;  // the host's own memcpy at the same size
  std::vector<ThroughputResult> results;
  std::optional<std::string> error;  // nothing could be measured
  // Why nothing was measurable: the functions every copy path needs are
  // known broken from the checks, or every path came back not measurable
  // for the same reason.
  std::optional<std::string> skipped;
};

// How a run chose its checks (conform's --filter, --shard, --repeat,
// --shuffle and --seed): what the report covers, the seed that reproduces
// its order, and the shard count that lets `sectl report` see which shards
// are missing.
struct RunSelection {
  std::string filter = "*";  // canonical form (conform::CheckFilter::text)
  int shard_index = 0;       // 0-based
  int shard_count = 1;
  int repeat = 1;
  std::optional<uint64_t> seed;  // set when the order was shuffled
};

// A plugin function that misbehaved when sectl tried it before the checks,
// as checks use it to set up or observe (conform/helper_triage.h): every
// check then took another route around it.
struct LearnedBeforeChecks {
  std::string function;  // "SP_StreamExecutor.host_callback"
  std::string problem;   // "host_callback accepted a callback ... and had not run it 1 s later"
};

struct ConformReport {
  int schema_version = kConformSchemaVersion;
  ToolInfo tool;
  PluginInfo plugin;
  HostInfo host;
  std::vector<std::string> command_line;
  // What kept the plugin's processes from sectl's own on this machine, one
  // short line per layer (isolation/sandbox.h): "seccomp: ... refused",
  // "capabilities: CAP_SYS_PTRACE dropped". Empty in reports older than
  // schema_version 3.
  std::vector<std::string> confinement;
  std::string started_at;  // ISO 8601, UTC: "2026-11-21T08:00:00Z"
  double duration_s = 0;
  std::string profile;     // "tensorflow", "tvm-device-api", ...
  std::string tf_version;  // the host generation judged against
  // The device under test, in the words of the plugin's own API:
  // "ordinal 1" (the SP_Device ordinal, --device), TVM's "TYPE(ID)" for a
  // DeviceAPI ("ext_dev(0)": --tvm-device-type, --tvm-device-id), or a TVM
  // C Device API device's name ("EthosU": --tvm-device). Shards of
  // different devices are not one run (MergeReports). Empty in reports
  // older than schema_version 6, which named it only in their command line.
  std::string device;
  // What the plugin was judged against: "TensorFlow latest" for the
  // StreamExecutor profiles; a TVM profile's own contract otherwise
  // (ProfileSubject).
  std::string subject;
  // Set when the plugin could not be loaded or initialised at all; the
  // results then say nothing about the rest of the contract.
  std::optional<std::string> load_error;
  // The signal that stopped sectl before the run was over ("SIGINT"): the
  // report is incomplete, and every check that did not finish is a skip
  // that says so.
  std::optional<std::string> interrupted;
  Summary summary;
  std::vector<RootCause> root_causes;
  std::vector<CheckResult> results;
  // Absent with --no-throughput, for other profiles, and when the plugin
  // did not load.
  std::optional<Throughput> throughput;
  // Absent in reports older than schema_version 4.
  std::optional<RunSelection> selection;
  // What the checks routed around, learned before they ran; empty when
  // nothing was (and in reports written before sectl learned any).
  std::vector<LearnedBeforeChecks> learned_before_checks;
  // In a merged report: the run's shards whose reports were not given, as
  // --shard names them ("1/3", 0-based). Their checks were not judged, so
  // the report is incomplete.
  std::vector<std::string> missing_shards;
};

// Whether `profile` checks a TVM device backend ("tvm-device-api",
// "tvm-c-device"), whose contract is TVM's rather than a TensorFlow host's.
bool IsTvmProfile(std::string_view profile);

// What a run of `profile` judges a plugin against: "TensorFlow 2.10" (the
// host generation) for the StreamExecutor profiles, or a TVM profile's own
// contract, which no TensorFlow generation has a say in.
std::string ProfileSubject(std::string_view profile, std::string_view tf_version);

// The areas of `results` ("memcpy", "stream", ...) in the order they first
// appear, for reports that group results by area.
std::vector<std::string> AreasInFirstSeenOrder(const std::vector<CheckResult>& results);

// What a report concludes, in the order a reader should worry about it.
enum class Verdict {
  kConformant,     // every required check ran to a verdict and passed (or the baseline
                   // expects its failure)
  kNotConformant,  // a required check failed, crashed, timed out or was blocked, or the
                   // plugin did not load
  kIncomplete,     // interrupted, or shards missing, with no failure known before
  kInconclusive,   // only sectl's errors stand in the way: nothing is known either way
};

// "conformant", "not_conformant", "incomplete", "inconclusive".
std::string_view VerdictName(Verdict verdict);

Verdict JudgeReport(const ConformReport& report);

// The required checks that failed, crashed, timed out or were blocked, after
// the baseline.
int RequiredFailures(const ConformReport& report);

// Why a report is not conformant, in words: "3 required checks failed, 28
// blocked" (a blocked required check proves nothing, so it stands in the way
// of "conformant" as a failure does).
std::string DescribeRequiredFailures(const ConformReport& report);

// Whether JudgeReport says conformant: exit status 0 of conform and report.
bool IsConformant(const ConformReport& report);

}  // namespace sectl::report
