// One copy path at one size, measured: its buffers, stream and timer, the
// timed batches of copies, and the check that the copies moved the right
// bytes. `sectl bench memcpy` (memcpy_bench.cc) makes one per result.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "abi/plugin_functions.h"
#include "base/error.h"
#include "bench/bench_report.h"
#include "bench/copy_buffers.h"
#include "bench/copy_verification.h"
#include "host/device.h"
#include "host/memory.h"
#include "host/stream.h"
#include "host/timer.h"

namespace sectl::bench {

struct Path {
  Direction direction;
  HostMemory host_memory;
  CopyMode mode;
};

// "h2d pinned async 64 MiB".
std::string DescribePath(const Path& path, uint64_t bytes);

// One copy path at one size: its buffers, stream and timer, and the
// measurement made with them.
class CopyMeasurement {
 public:
  CopyMeasurement(const host::Device& device, const Path& path, uint64_t bytes)
      : device_(device), path_(path), bytes_(bytes) {}

  Expected<void> Prepare();
  Expected<double> TimeCopies(int copies, bool gated);  // seconds, host clock
  // Whether the copies moved the right bytes, checked only through ways in
  // and out of the device that `verdicts` found to work when the usual
  // check disagrees.
  Verification Verify(LazyVerdicts& verdicts);

  std::optional<double> last_timer_seconds() const { return last_timer_seconds_; }
  bool gate_held() const { return gate_held_; }
  const std::optional<std::string>& timer_problem() const { return timer_problem_; }

 private:
  Expected<void> CopyOnce();
  Expected<void> CopyOnceAndWait();
  Expected<void> Upload(const host::DeviceMemory& destination, std::span<const std::byte> data);
  // The first difference between expected_ and what `source` reads back as
  // through `reader`; nullopt when they are equal.
  Expected<std::optional<std::string>> ReadBackDifference(abi::PluginFunction reader,
                                                          const host::DeviceMemory& source);
  // h2d and d2d: the copy's destination on the device must hold expected_.
  Verification VerifyDeviceHolds(LazyVerdicts& lazy);
  // d2h: the host buffer must hold expected_.
  Verification VerifyHostHolds(LazyVerdicts& lazy);

  const host::Device& device_;
  Path path_;
  uint64_t bytes_;
  std::unique_ptr<host::Stream> stream_;
  std::unique_ptr<host::Timer> timer_;
  host::HostMemory pinned_;
  std::optional<PageableBuffer> pageable_;
  std::span<std::byte> host_;
  host::DeviceMemory device_a_;  // h2d destination, d2h and d2d source
  host::DeviceMemory device_b_;  // d2d destination
  std::optional<PageableBuffer> expected_;
  std::optional<PageableBuffer> read_back_;
  std::optional<DeviceAccess> access_;
  std::optional<double> last_timer_seconds_;
  std::optional<std::string> timer_problem_;
  bool gate_held_ = false;
};

}  // namespace sectl::bench
