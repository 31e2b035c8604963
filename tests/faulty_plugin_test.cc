#include "faulty_plugin_test.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "sectl_process.h"

namespace sectl::testing {

std::string FaultyPlugin(const std::string& fault) {
  return std::string(SECTL_FAULTY_PLUGIN_DIR) + "/faulty_" + fault + ".so";
}

namespace {

// sectl conform's JSON report on faulty_<fault>.so, or a test failure.
struct ConformRun {
  CommandResult command;
  nlohmann::json report;
};

ConformRun RunConform(const std::string& fault, const std::vector<std::string>& arguments) {
  std::vector<std::string> command = {
      "conform", FaultyPlugin(fault), "--report", "json", "--timeout", "20", "--no-throughput"};
  command.insert(command.end(), arguments.begin(), arguments.end());
  ConformRun run{RunSectl(command), nlohmann::json::object()};
  try {
    run.report = nlohmann::json::parse(run.command.out);
  } catch (const nlohmann::json::exception& error) {
    ADD_FAILURE() << "stdout is not JSON (" << error.what() << "): " << run.command.err
                  << run.command.out;
  }
  return run;
}

std::map<std::string, nlohmann::json> ResultsById(const nlohmann::json& report) {
  std::map<std::string, nlohmann::json> results;
  for (const auto& entry : report["results"]) results[entry["id"].get<std::string>()] = entry;
  return results;
}

}  // namespace

void ExpectFieldVerdicts(const FieldCase& field) {
  const ConformRun run = RunConform(field.fault, field.arguments);
  const auto results = ResultsById(run.report);
  for (const auto& [id, status] : field.expected) {
    ASSERT_TRUE(results.count(id)) << id << " did not run";
    EXPECT_EQ(results.at(id)["status"], status) << results.at(id).dump(2);
  }
  for (const auto& [id, entry] : results) {
    if (field.expected.count(id) != 0) continue;
    const std::string status = entry["status"];
    const bool blocked_by_a_broken_function =
        status == "blocked" && !entry["culprits"].empty() &&
        std::find(field.broken.begin(), field.broken.end(),
                  entry["culprits"][0].get<std::string>()) != field.broken.end();
    EXPECT_TRUE(status == "pass" || status == "skip" || blocked_by_a_broken_function)
        << id << " should pass, skip or be blocked by a broken function: " << entry.dump(2);
  }
}

void ExpectCaughtByExactlyItsCheck(const FaultCase& fault) {
  const ConformRun run = RunConform(fault.fault, fault.arguments);
  const CommandResult& result = run.command;
  const nlohmann::json& report = run.report;
  ASSERT_TRUE(report["load_error"].is_null()) << report["load_error"];
  const auto results = ResultsById(report);
  ASSERT_TRUE(results.count(fault.check)) << fault.check << " did not run";
  const auto& caught = results.at(fault.check);
  EXPECT_EQ(caught["status"], fault.status) << caught.dump(2);
  for (const auto& [id, entry] : results) {
    if (id == fault.check) continue;
    const std::string status = entry["status"];
    const bool allowed = std::find(fault.also_failing.begin(), fault.also_failing.end(), id) !=
                         fault.also_failing.end();
    // A check that only uses the faulty function may be blocked by it.
    const bool blocked_by_the_fault =
        status == "blocked" && !entry["culprits"].empty() &&
        std::find(caught["culprits"].begin(), caught["culprits"].end(), entry["culprits"][0]) !=
            caught["culprits"].end();
    if (!allowed) {
      EXPECT_TRUE(status == "pass" || status == "skip" || blocked_by_the_fault)
          << id << " should not notice " << fault.fault << ": " << entry.dump(2);
    }
  }
  // The run fails exactly when a result fails it: the caught check, when it
  // is required, or a required check the fault blocked.
  const bool any_failing = std::any_of(results.begin(), results.end(), [](const auto& entry) {
    const std::string status = entry.second["status"];
    return status == "fail" || status == "crash" || status == "timeout" || status == "blocked";
  });
  if (caught["severity"] == "required" && fault.status != "warn" && fault.status != "skip") {
    EXPECT_TRUE(any_failing);
  }
  EXPECT_EQ(report["verdict"], any_failing ? "not_conformant" : "conformant");
  EXPECT_EQ(result.exit_code, any_failing ? 1 : 0) << result.err;
}

}  // namespace sectl::testing
