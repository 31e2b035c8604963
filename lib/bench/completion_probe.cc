// Whether a copy's completion can be believed, shown by one copy before
// any is timed. A bandwidth is bytes over the time until the plugin said
// the copy was done; a plugin that says so before the bytes have arrived
// (a wait that returns early, an event that completes at once) makes any
// number up. Evidence, not a threshold:
//
//  1. The destination is first filled with other bytes ("poison"). Right
//     after the plugin signals the copy done, the destination is looked at
//     without any further wait: the host buffer itself for d2h, a read-back
//     for h2d and d2d. If it does not hold the copied bytes yet but does a
//     little later, the completion came before the bytes did: not
//     measurable. If it never does, the copy moved wrong bytes, which
//     verification reports; that is no evidence about timing.
//  2. For async copies, a host callback is queued behind the copy. The
//     stream cannot be done before it has run. If it runs only after the
//     wait returned, the wait returned early. If it never runs,
//     host_callback stalls: learned once for the run, after which no gate
//     or callback is used (the stream is timed without the gate).
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <span>

#include "bench/copy_measurement.h"
#include "bench/spin_wait.h"
#include "host/platform.h"

namespace sectl::bench {
namespace {

using abi::PluginFunction;
using Clock = std::chrono::steady_clock;

// What the destination holds before the probe's copy, and its read-back
// buffer before the read: one byte each, which the copied pattern (random
// bytes) differs from almost everywhere, written at memset's speed, since
// at 256 MiB filling with a pattern costs more than the probe's copies.
constexpr std::byte kPoison{0xA5};
constexpr std::byte kReadBackPoison{0x5A};
// Bytes signalled early arrive once the copy has run: at most a few times
// as long as the host's own memcpy takes for them, on any device worth
// measuring, and soon on a busy machine. Waiting is bounded by this many
// times that, within [kShortestArrivalWait, kStallBound]; a copy that
// never produces the right bytes costs this once per run.
constexpr double kArrivalWaitOverCeiling = 20;
// The probe copies no more than this: enough for its copy to take far
// longer than the microseconds between a completion signal and the look at
// the destination, on any device (32 MiB is 0.6 ms over the fastest host
// link); less than a larger size's own copy, whose four copies per path
// would cost a sweep a tenth of its time.
constexpr uint64_t kLargestProbeBytes = uint64_t{32} << 20;
constexpr auto kShortestArrivalWait = std::chrono::milliseconds(50);

Clock::duration ArrivalWait(uint64_t bytes, double ceiling_gbps) {
  if (!(ceiling_gbps > 0)) return kStallBound;
  const std::chrono::duration<double> scaled(kArrivalWaitOverCeiling * static_cast<double>(bytes) /
                                             (ceiling_gbps * 1e9));
  const auto wait = std::chrono::duration_cast<Clock::duration>(scaled);
  return std::clamp<Clock::duration>(wait, kShortestArrivalWait, kStallBound);
}

}  // namespace

Expected<void> CopyMeasurement::Poison() {
  if (path_.direction == Direction::kDeviceToHost) {
    const std::span<std::byte> destination = host_.first(probe_bytes_);
    std::fill(destination.begin(), destination.end(), kPoison);
    return {};
  }
  if (!read_back_) {
    auto buffer = PageableBuffer::Allocate(bytes_);
    if (!buffer) return tl::unexpected(buffer.error());
    read_back_ = std::move(*buffer);
  }
  const std::span<std::byte> poison = read_back_->bytes().first(probe_bytes_);
  std::fill(poison.begin(), poison.end(), kPoison);
  const host::DeviceMemory& destination =
      path_.direction == Direction::kHostToDevice ? device_a_ : device_b_;
  // In the path's own form, so that a sync probe does not wait on the
  // stream, nor an async one on a sync copy.
  if (path_.mode == CopyMode::kSync && device_.platform().Provides(PluginFunction::kSyncMemcpyHtoD))
    return device_.SyncMemcpyHtoD(destination.base(), poison.data(), poison.size());
  return Upload(destination, poison);
}

Expected<void> CopyMeasurement::StartObserving() {
  if (path_.direction == Direction::kDeviceToHost) return {};
  const std::span<std::byte> read = read_back_->bytes().first(probe_bytes_);
  std::fill(read.begin(), read.end(), kReadBackPoison);
  const host::DeviceMemory& destination =
      path_.direction == Direction::kHostToDevice ? device_a_ : device_b_;
  if (path_.mode == CopyMode::kSync &&
      device_.platform().Provides(PluginFunction::kSyncMemcpyDtoH)) {
    return device_.SyncMemcpyDtoH(read.data(), destination.base(), read.size());
  }
  if (auto started = stream_->MemcpyDtoH(read.data(), destination.base(), read.size()); !started)
    return started;
  return stream_->BlockHostUntilDone();
}

std::optional<std::string> CopyMeasurement::ObservedDifference() const {
  const std::span<const std::byte> expected = expected_->bytes().first(probe_bytes_);
  if (path_.direction == Direction::kDeviceToHost)
    return FirstMismatch(expected, host_.first(probe_bytes_));
  return FirstMismatch(expected, read_back_->bytes().first(probe_bytes_));
}

Expected<std::optional<std::string>> CopyMeasurement::ProbeCompletion(double ceiling_gbps) {
  const PluginFunction completion = CompletionFunction(device_, path_);
  if (auto known = health_.EarlyCompletion(completion)) return known;

  probe_bytes_ = std::min(bytes_, kLargestProbeBytes);
  if (auto poisoned = Poison(); !poisoned) return tl::unexpected(poisoned.error());
  if (auto copied = CopyOnce(probe_bytes_); !copied) return tl::unexpected(copied.error());
  // A callback behind the copy: the stream is not done before it has run.
  auto behind = std::make_shared<std::atomic<bool>>(false);
  bool callback_queued = false;
  if (path_.mode == CopyMode::kAsync && GateUsable()) {
    auto queued = stream_->EnqueueHostCallback(
        [behind](TF_Status*) { behind->store(true, std::memory_order_release); });
    callback_queued = queued.has_value();
  }
  if (auto done = WaitForCopies(); !done) return tl::unexpected(done.error());
  const auto signalled = Clock::now();
  const bool callback_pending = callback_queued && !behind->load(std::memory_order_acquire);
  if (auto observing = StartObserving(); !observing) return tl::unexpected(observing.error());
  const std::optional<std::string> first_look = ObservedDifference();

  // The bytes first: they are what a bandwidth counts.
  std::optional<std::string> why;
  if (first_look && !health_.read_back_never_settled) {
    const std::string_view looked = path_.direction == Direction::kDeviceToHost
                                        ? "the host buffer it copied into"
                                        : "the destination, read back,";
    if (SpinUntil([&] { return !ObservedDifference(); }, ArrivalWait(probe_bytes_, ceiling_gbps))) {
      why = fmt::format(
          "{} returned before the copy's bytes had arrived ({}): right after it returned, {} "
          "still differed ({}); the right bytes were there {:.1f} ms later",
          MemberName(completion), DescribePath(path_, bytes_), looked, *first_look,
          Milliseconds(Clock::now() - signalled));
    } else {
      // Wrong bytes that stay wrong: verification's to report.
      health_.read_back_never_settled = true;
    }
  }
  if (!why && callback_pending) {
    if (SpinUntil([&] { return behind->load(std::memory_order_acquire); }, kStallBound)) {
      why = fmt::format(
          "{} returned before the work queued on the stream was done ({}): a host callback "
          "queued behind the copy ran {:.1f} ms after it returned",
          MemberName(completion), DescribePath(path_, bytes_),
          Milliseconds(Clock::now() - signalled));
    } else {
      LearnGateNeverRan();
    }
  }
  if (why) {
    health_.LearnEarlyCompletion(completion, *why);
    return why;
  }

  // The destination again as Prepare left it, so that the measured copies
  // must write it for verification to pass.
  if (auto poisoned = Poison(); !poisoned) return tl::unexpected(poisoned.error());
  return std::nullopt;
}

}  // namespace sectl::bench
