#include "faulty_plugin_test.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "sectl_process.h"

namespace sectl::testing {

std::string FaultyPlugin(const std::string& fault) {
  return std::string(SECTL_FAULTY_PLUGIN_DIR) + "/faulty_" + fault + ".so";
}

void ExpectCaughtByExactlyItsCheck(const FaultCase& fault) {
  std::vector<std::string> command = {
      "conform", FaultyPlugin(fault.fault), "--report", "json", "--timeout",
      "20",      "--no-throughput"};
  command.insert(command.end(), fault.arguments.begin(), fault.arguments.end());
  const CommandResult result = RunSectl(command);
  nlohmann::json report;
  try {
    report = nlohmann::json::parse(result.out);
  } catch (const nlohmann::json::exception& error) {
    FAIL() << "stdout is not JSON (" << error.what() << "): " << result.err << result.out;
  }
  ASSERT_TRUE(report["load_error"].is_null()) << report["load_error"];
  std::map<std::string, nlohmann::json> results;
  for (const auto& entry : report["results"]) results[entry["id"].get<std::string>()] = entry;
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
  const bool required = caught["severity"] == "required";
  const bool failing = fault.status != "warn" && fault.status != "skip";
  EXPECT_EQ(result.exit_code, required && failing ? 1 : 0) << result.err;
}

}  // namespace sectl::testing
