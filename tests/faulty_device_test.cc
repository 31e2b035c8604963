// Each fault in devices and their lifecycle is caught by exactly its check.
#include "faulty_plugin_test.h"

namespace sectl::testing {
namespace {

class DeviceFaults : public ::testing::TestWithParam<FaultCase> {};

TEST_P(DeviceFaults, AreCaughtByExactlyTheirCheck) { ExpectCaughtByExactlyItsCheck(GetParam()); }

INSTANTIATE_TEST_SUITE_P(
    Faults, DeviceFaults,
    ::testing::Values(FaultCase{"unstable_device_count", "device.count", "fail"},
                      // TensorFlow never reads SP_Device.ordinal back, nor asks for an
                      // ordinal beyond the count (host::JudgeDeviceBehaviour): warnings.
                      FaultCase{"ordinal_not_set", "device.create_every_ordinal", "warn"},
                      FaultCase{"out_of_range_succeeds", "device.out_of_range", "warn"},
                      // An exception is no refusal: TensorFlow terminates.
                      FaultCase{"throws_from_create_device", "device.out_of_range", "fail"},
                      FaultCase{"shared_context_teardown", "lifecycle.tensorflow_order", "crash"},
                      FaultCase{"device_table_exhausted", "lifecycle.recreate", "warn"},
                      FaultCase{"leaks_stream_threads", "lifecycle.no_growth", "warn"},
                      FaultCase{"leaks_memory_per_stream", "lifecycle.no_growth", "warn"},
                      FaultCase{"leaks_device_memory_per_event", "lifecycle.no_growth", "warn"},
                      // destroy_device gives back neither its memory nor its thread
                      // (faulty_lifecycle_test.cc asserts whom the warning blames).
                      FaultCase{"device_destroy_leaks_memory", "lifecycle.no_growth", "warn"},
                      FaultCase{"device_destroy_leaks_thread", "lifecycle.no_growth", "warn"}),
    [](const auto& info) { return info.param.fault; });

}  // namespace
}  // namespace sectl::testing
