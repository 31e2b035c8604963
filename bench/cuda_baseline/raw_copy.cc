#include "raw_copy.h"

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bench/copy_buffers.h"
#include "bench/host_ceiling.h"
#include "bench/statistics.h"
#include "cuda_buffers.h"
#include "cuda_gate.h"

namespace sectl::cuda_baseline {
namespace {

using bench::Direction;
using Clock = std::chrono::steady_clock;

// As in lib/bench/memcpy_bench.cc.
constexpr int kWarmupCopies = 3;

// The buffers, stream and events of one path at one size.
class RawCopy {
 public:
  RawCopy(const RawCopyPath& path, uint64_t bytes)
      : direction_(path.direction), host_memory_(path.host_memory), bytes_(bytes) {}

  Expected<void> Prepare();
  // Seconds by the host's clock; also sets event_seconds().
  Expected<double> TimeCopies(int copies, bool gated);
  std::optional<std::string> Verify();

  std::optional<double> event_seconds() const { return event_seconds_; }

 private:
  Expected<void> CopyOnce();
  Expected<void> CopyAndWait(void* destination, const void* source);
  Expected<void> AllocateHost();

  Direction direction_;
  bench::HostMemory host_memory_;
  uint64_t bytes_;
  Stream stream_;
  Event start_;
  Event stop_;
  DeviceMemory device_a_;  // h2d destination, d2h and d2d source
  DeviceMemory device_b_;  // d2d destination
  // The host side: h2d source, d2h destination, d2d staging. One of the
  // two buffers, as the path asks.
  PinnedMemory pinned_;
  std::optional<bench::PageableBuffer> pageable_;
  std::span<std::byte> host_;
  std::optional<bench::PageableBuffer> expected_;
  std::optional<double> event_seconds_;
};

// Moves the value of `result` into `target`, or returns its error.
template <typename T>
Expected<void> Take(Expected<T> result, T& target) {
  if (!result) return tl::unexpected(result.error());
  target = std::move(*result);
  return {};
}

Expected<void> RawCopy::Prepare() {
  if (auto done = Take(CreateStream(), stream_); !done) return done;
  if (auto done = Take(CreateTimingEvent(), start_); !done) return done;
  if (auto done = Take(CreateTimingEvent(), stop_); !done) return done;
  auto expected = bench::PageableBuffer::Allocate(bytes_);
  if (!expected) return tl::unexpected(expected.error());
  expected_ = std::move(*expected);
  bench::FillPattern(expected_->bytes(), bytes_);

  if (auto done = Take(AllocateDevice(bytes_), device_a_); !done) return done;
  if (direction_ == Direction::kDeviceToDevice) {
    if (auto done = Take(AllocateDevice(bytes_), device_b_); !done) return done;
  }
  if (auto done = AllocateHost(); !done) return done;

  // Every page touched, and no stale copy of the pattern where the copies
  // are to write it.
  switch (direction_) {
    case Direction::kHostToDevice:
      std::memcpy(host_.data(), expected_->data(), bytes_);
      return {};
    case Direction::kDeviceToHost:
      bench::FillPattern(host_, bytes_ + 1);
      return CopyAndWait(device_a_.get(), expected_->data());
    case Direction::kDeviceToDevice: {
      if (auto done = CopyAndWait(device_a_.get(), expected_->data()); !done) return done;
      bench::FillPattern(host_, bytes_ + 1);
      return CopyAndWait(device_b_.get(), host_.data());
    }
  }
  return {};
}

Expected<void> RawCopy::AllocateHost() {
  if (host_memory_ == bench::HostMemory::kPageable) {
    auto pageable = bench::PageableBuffer::Allocate(bytes_);
    if (!pageable) return tl::unexpected(pageable.error());
    pageable_ = std::move(*pageable);
    host_ = pageable_->bytes();
    return {};
  }
  // Pinned, and d2d's staging buffer.
  if (auto done = Take(AllocatePinned(bytes_), pinned_); !done) return done;
  host_ = {pinned_.get(), bytes_};
  return {};
}

Expected<void> RawCopy::CopyAndWait(void* destination, const void* source) {
  if (auto done =
          Check(cudaMemcpyAsync(destination, source, bytes_, cudaMemcpyDefault, stream_.get()),
                "cudaMemcpyAsync");
      !done) {
    return done;
  }
  return Check(cudaStreamSynchronize(stream_.get()), "cudaStreamSynchronize");
}

Expected<void> RawCopy::CopyOnce() {
  switch (direction_) {
    case Direction::kHostToDevice:
      return Check(cudaMemcpyAsync(device_a_.get(), host_.data(), bytes_, cudaMemcpyHostToDevice,
                                   stream_.get()),
                   "cudaMemcpyAsync");
    case Direction::kDeviceToHost:
      return Check(cudaMemcpyAsync(host_.data(), device_a_.get(), bytes_, cudaMemcpyDeviceToHost,
                                   stream_.get()),
                   "cudaMemcpyAsync");
    case Direction::kDeviceToDevice:
      return Check(cudaMemcpyAsync(device_b_.get(), device_a_.get(), bytes_,
                                   cudaMemcpyDeviceToDevice, stream_.get()),
                   "cudaMemcpyAsync");
  }
  return {};
}

Expected<double> RawCopy::TimeCopies(int copies, bool gated) {
  event_seconds_.reset();
  std::optional<CudaGate> gate;
  if (gated) {
    auto closed = CudaGate::Close(stream_.get());
    if (!closed) return tl::unexpected(closed.error());
    gate = std::move(*closed);
  }
  auto started = Clock::now();
  if (auto done = Check(cudaEventRecord(start_.get(), stream_.get()), "cudaEventRecord"); !done) {
    return tl::unexpected(done.error());
  }
  for (int i = 0; i < copies; ++i) {
    if (auto copied = CopyOnce(); !copied) return tl::unexpected(copied.error());
  }
  if (auto done = Check(cudaEventRecord(stop_.get(), stream_.get()), "cudaEventRecord"); !done) {
    return tl::unexpected(done.error());
  }
  if (gate) {
    started = Clock::now();
    gate->Open();
  }
  if (auto done = Check(cudaStreamSynchronize(stream_.get()), "cudaStreamSynchronize"); !done) {
    return tl::unexpected(done.error());
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  float milliseconds = 0;
  if (cudaEventElapsedTime(&milliseconds, start_.get(), stop_.get()) == cudaSuccess &&
      milliseconds > 0) {
    event_seconds_ = static_cast<double>(milliseconds) / 1e3;
  }
  return seconds;
}

std::optional<std::string> RawCopy::Verify() {
  std::span<const std::byte> found = host_;
  std::optional<bench::PageableBuffer> read_back;
  if (direction_ != Direction::kDeviceToHost) {
    auto buffer = bench::PageableBuffer::Allocate(bytes_);
    if (!buffer) return buffer.error().message();
    read_back = std::move(*buffer);
    bench::FillPattern(read_back->bytes(), bytes_ + 2);
    const DeviceMemory& written = direction_ == Direction::kHostToDevice ? device_a_ : device_b_;
    if (auto downloaded = CopyAndWait(read_back->data(), written.get()); !downloaded) {
      return fmt::format("reading the copy back: {}", downloaded.error().message());
    }
    found = read_back->bytes();
  }
  return bench::FirstMismatch(expected_->bytes(), found);
}

}  // namespace

bool CanGate(const RawCopyPath& path) { return path.host_memory != bench::HostMemory::kPageable; }

bench::BandwidthResult MeasureRawCopy(const RawCopyPath& path, uint64_t bytes, double ceiling_gbps,
                                      const RawCopyOptions& options) {
  bench::BandwidthResult result{.direction = path.direction,
                                .host_memory = path.direction == Direction::kDeviceToDevice
                                                   ? bench::HostMemory::kNone
                                                   : path.host_memory,
                                .mode = bench::CopyMode::kAsync,
                                .bytes = bytes,
                                .ceiling_gbps = ceiling_gbps};
  auto fail = [&](const Error& error, std::string_view doing) {
    result.error = fmt::format("{}: {}", doing, error.message());
    return result;
  };

  RawCopy copy(path, bytes);
  if (auto prepared = copy.Prepare(); !prepared) return fail(prepared.error(), "preparing buffers");
  const bool gated = CanGate(path);

  // Warm-up: single copies first (first touch, lazy setup), then batches
  // (gated where they can be) growing until one is long enough to be a
  // sample.
  auto first = copy.TimeCopies(kWarmupCopies, /*gated=*/false);
  if (!first) return fail(first.error(), "warming up");
  int calibration_copies = 0;
  auto copies = bench::CalibrateBatch(
      [&](int count) { return copy.TimeCopies(count, gated); },
      gated ? bench::kMaxCopiesBehindAGate : bench::kMaxCopiesPerSample, &calibration_copies);
  if (!copies) return fail(copies.error(), "warming up");
  result.copies_per_sample = *copies;
  result.warmup_copies = kWarmupCopies + calibration_copies;

  std::vector<double> event_gbps;
  const double bytes_per_sample = static_cast<double>(bytes) * result.copies_per_sample;
  auto samples = bench::SampleUntilStable(options.plan, [&]() -> Expected<double> {
    auto seconds = copy.TimeCopies(result.copies_per_sample, gated);
    if (!seconds) return seconds;
    if (const auto event_seconds = copy.event_seconds()) {
      event_gbps.push_back(bytes_per_sample / *event_seconds / 1e9);
    }
    return bytes_per_sample / *seconds / 1e9;
  });
  if (!samples) return fail(samples.error(), "measuring");

  result.gbps = bench::Describe(samples->values);
  result.stable = samples->stable;
  // A CUDA host function always runs on CUDA's own thread, so a gate always
  // holds: where there was one, enqueueing is never in the timed interval.
  result.enqueue_excluded = gated;
  if (!event_gbps.empty() && event_gbps.size() == samples->values.size()) {
    result.plugin_timer_gbps = bench::Describe(event_gbps);
  }
  result.ratio_to_ceiling = ceiling_gbps > 0 ? result.gbps.median / ceiling_gbps : 0;
  if (options.verify) {
    const auto mismatch = copy.Verify();
    using bench::VerificationStatus;
    result.verification = mismatch ? bench::Verification{VerificationStatus::kFailed, *mismatch}
                                   : bench::Verification{VerificationStatus::kPassed, ""};
  }
  return result;
}

}  // namespace sectl::cuda_baseline
