// Proving that conformance checks can fail: a faulty plugin (one seeded
// fault, see reference_plugins/faulty/) must be caught by exactly the check
// its fault targets, with the expected status, while every other check that
// ran passes (or is skipped for a capability the base lacks).
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace sectl::testing {

struct FaultCase {
  std::string fault;   // "corrupt_dtoh": the plugin is faulty_corrupt_dtoh.so
  std::string check;   // "memcpy.round_trip": the check that must catch it
  std::string status;  // "fail", "warn", "crash" or "timeout"
  // Further arguments for sectl conform (e.g. "--tf-version", "2.5").
  std::vector<std::string> arguments = {};
  // Other checks allowed to fail too, when one fault cannot help showing in
  // a neighbour (say why in the test).
  std::vector<std::string> also_failing = {};
};

inline void PrintTo(const FaultCase& fault, std::ostream* out) { *out << fault.fault; }

// The path of faulty_<fault>.so.
std::string FaultyPlugin(const std::string& fault);

// Runs sectl conform on the fault's plugin and asserts the above; the exit
// status must be 1 for a required check failing and 0 for a warning.
void ExpectCaughtByExactlyItsCheck(const FaultCase& fault);

// A field-style plugin has more than one broken function, as real plugins
// do: each named check must end as expected, and every other check pass,
// skip, or be blocked by one of the broken functions.
struct FieldCase {
  std::string fault;
  std::map<std::string, std::string> expected;  // check id -> status
  std::vector<std::string> broken;              // "SP_StreamExecutor.host_callback"
  std::vector<std::string> arguments = {};
};

inline void PrintTo(const FieldCase& field, std::ostream* out) { *out << field.fault; }

void ExpectFieldVerdicts(const FieldCase& field);

}  // namespace sectl::testing
