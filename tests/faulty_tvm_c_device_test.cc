// Each fault of a TVM C Device API plugin (reference_plugins/tvm/
// c_device_faults.c) is caught by exactly its tvm_c_device.* check. sectl
// recognises these plugins from their symbols, so no --abi is passed.
#include "faulty_plugin_test.h"

namespace sectl::testing {
namespace {

#if defined(SECTL_SANITIZED)
constexpr const char* kAllocationVerdict = "skip";
#else
constexpr const char* kAllocationVerdict = "fail";
#endif

class TvmCDeviceFaults : public ::testing::TestWithParam<FaultCase> {};

TEST_P(TvmCDeviceFaults, AreCaughtByExactlyTheirCheck) {
  ExpectCaughtByExactlyItsCheck(GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Faults, TvmCDeviceFaults,
    ::testing::Values(
        // Every other check skips: generated code could not be linked.
        FaultCase{"tvm_cxx_linkage_close", "tvm_c_device.hooks_exported", "fail"},
        FaultCase{"tvm_open_returns_one", "tvm_c_device.success_returns_zero", "fail"},
        // The 65th Activate fails: only the check that repeats 150 runs sees it.
        FaultCase{"tvm_activate_leaks_slot", "tvm_c_device.aot_order", "fail"},
        FaultCase{"tvm_one_active_device", "tvm_c_device.two_devices_interleaved", "fail"},
        // The RFC's mutex example: caught by the check's own 2 s bound.
        FaultCase{"tvm_mutex_in_open", "tvm_c_device.fresh_run_after_abort", "fail"},
        // Sanitizers own the allocator, so the allocation watch is compiled
        // out there and the check skips, saying so.
        FaultCase{"tvm_malloc_in_open", "tvm_c_device.no_dynamic_allocation", kAllocationVerdict},
        // Unspecified behaviour: a crash is reported as a warning, never a crash of sectl.
        FaultCase{"tvm_null_context_crash", "tvm_c_device.null_context", "warn"},
        FaultCase{"tvm_double_activate_abort", "tvm_c_device.double_activate", "warn"},
        FaultCase{"tvm_close_without_open_crash", "tvm_c_device.close_without_open", "warn"},
        FaultCase{"tvm_racy_across_contexts", "tvm_c_device.two_threads", "warn"}),
    [](const auto& info) { return info.param.fault; });

}  // namespace
}  // namespace sectl::testing
