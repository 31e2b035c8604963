// Each registration fault is caught by exactly its check.
#include "faulty_plugin_test.h"

namespace sectl::testing {
namespace {

class RegistrationFaults : public ::testing::TestWithParam<FaultCase> {};

TEST_P(RegistrationFaults, AreCaughtByExactlyTheirCheck) {
  ExpectCaughtByExactlyItsCheck(GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Faults, RegistrationFaults,
    ::testing::Values(FaultCase{"invalid_platform_name", "registration.init", "fail"},
                      FaultCase{"overwrites_version", "registration.version_fields", "warn"},
                      FaultCase{"no_host_callback", "registration.required_callbacks", "fail"}),
    [](const auto& info) { return info.param.fault; });

}  // namespace
}  // namespace sectl::testing
