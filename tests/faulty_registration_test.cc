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
                      FaultCase{"no_host_callback", "registration.required_callbacks", "fail"},
                      FaultCase{"accepts_any_major", "registration.major_version", "warn"},
                      // Only hosts of versions no released TensorFlow offers see these.
                      FaultCase{"status_not_set_on_reject", "registration.status", "warn"},
                      FaultCase{"stale_status_on_success", "registration.status", "warn"},
                      // TensorFlow 2.5 to 2.15 all call sync_memcpy_dtod without a null
                      // check: the one fault is a crash in each of those generations.
                      FaultCase{"no_sync_memcpy_dtod",
                                "compat.tf_2_10",
                                "warn",
                                {},
                                {"compat.tf_2_5", "compat.tf_2_7"}},
                      // The default --tf-version is latest, whose teardown calls
                      // destroy_timer_fns without a null check: the compatibility row of
                      // the same generation must say so too.
                      FaultCase{"no_destroy_timer_fns",
                                "registration.required_callbacks",
                                "fail",
                                {},
                                {"compat.latest"}}),
    [](const auto& info) { return info.param.fault; });

}  // namespace
}  // namespace sectl::testing
