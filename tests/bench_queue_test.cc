// `sectl bench memcpy` on a device whose queue is finite, as a real
// accelerator's is (faulty_bounded_queue: at most 256 operations behind a
// pending host callback, as CUDA's). The bench queues a sample's copies
// behind a host-callback gate that only its own thread opens: with more
// copies than the queue holds, the enqueue blocks, the gate is never opened,
// and every sample waits out the gate's hold (a whole sweep timed out on an
// NVIDIA H200 before the gate was capped).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "sectl_process.h"

namespace sectl::testing {
namespace {

std::string BoundedQueuePlugin() {
  return std::string(SECTL_FAULTY_PLUGIN_DIR) + "/faulty_bounded_queue.so";
}

nlohmann::json OnlyResult(const CommandResult& run) {
  const auto report = nlohmann::json::parse(run.out, nullptr, /*allow_exceptions=*/false);
  if (!report.is_object() || report["results"].size() != 1) {
    ADD_FAILURE() << "not a report of one result: " << run.out << run.err;
    return {};
  }
  return report["results"][0];
}

TEST(BenchOnABoundedQueue, TinyCopiesBehindTheGateNeverFillTheQueue) {
  const CommandResult run =
      RunSectl({"bench", "memcpy", BoundedQueuePlugin(), "--sizes", "4KiB", "--direction", "h2d",
                "--host-memory", "pinned", "--budget", "0.05", "--timeout", "20", "--no-progress",
                "--report", "json"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json result = OnlyResult(run);
  EXPECT_TRUE(result["enqueue_excluded"].get<bool>()) << result.dump(2);
  EXPECT_LE(result["copies_per_sample"].get<int>(), 128) << result.dump(2);
  EXPECT_EQ(result["verification"], "passed") << result.dump(2);
}

// A copy between the device and pageable memory may wait for the work queued
// before it (CUDA's does), so those paths are never queued behind the gate:
// they are timed from the first enqueue, and the report says so.
TEST(BenchOnABoundedQueue, PageableCopiesAreTimedFromTheFirstEnqueue) {
  const CommandResult run =
      RunSectl({"bench", "memcpy", BoundedQueuePlugin(), "--sizes", "4KiB", "--direction", "d2h",
                "--host-memory", "pageable", "--budget", "0.05", "--timeout", "20", "--no-progress",
                "--report", "json"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json result = OnlyResult(run);
  EXPECT_FALSE(result["enqueue_excluded"].get<bool>()) << result.dump(2);
}

}  // namespace
}  // namespace sectl::testing
