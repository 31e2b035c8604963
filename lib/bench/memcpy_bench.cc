#include "bench/memcpy_bench.h"

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <span>

#include "base/byte_sizes.h"
#include "bench/copy_buffers.h"
#include "bench/copy_verification.h"
#include "bench/host_ceiling.h"
#include "bench/statistics.h"
#include "bench/stream_gate.h"
#include "host/memory.h"
#include "host/platform.h"
#include "host/stream.h"
#include "host/timer.h"

namespace sectl::bench {
namespace {

using Clock = std::chrono::steady_clock;
using abi::PluginFunction;

// clpeak's margin: a copy that reads or writes host memory cannot beat the
// host's own memcpy by this much; such a result means nothing was copied.
constexpr double kImplausibleOverCeiling = 5.0;
// A copy within the device cannot beat the memory bandwidth the device
// reports by more than measurement noise, once it is too large for caches
// to serve it (smaller copies may run from a cache, faster than memory).
constexpr double kImplausibleOverDeviceBandwidth = 1.5;
constexpr uint64_t kLargerThanCaches = uint64_t{64} << 20;
constexpr int kWarmupCopies = 3;
// What the copies are checked through first: the form TensorFlow reads a
// tensor back with. Only when it disagrees are the other ways cross-checked.
constexpr PluginFunction kUsualReader = PluginFunction::kMemcpyDtoH;
// Contents written anew to recheck a copy whose source was suspect.
constexpr uint64_t kRecheckSeed = 0x5EC7'0002'0000;

struct Path {
  Direction direction;
  HostMemory host_memory;
  CopyMode mode;
};

std::string DescribePath(const Path& path, uint64_t bytes) {
  return fmt::format("{} {} {} {}", DirectionName(path.direction), HostMemoryName(path.host_memory),
                     CopyModeName(path.mode), FormatByteSize(bytes));
}

std::vector<Path> PlanPaths(const MemcpyBenchOptions& options, const host::Device& device) {
  const std::vector<HostMemory> host_memories =
      options.host_memories.empty() ? DefaultHostMemories(device) : options.host_memories;
  std::vector<Path> paths;
  for (const Direction direction : options.directions) {
    for (const CopyMode mode : options.modes) {
      if (direction == Direction::kDeviceToDevice) {
        paths.push_back({direction, HostMemory::kNone, mode});
        continue;
      }
      for (const HostMemory memory : host_memories) paths.push_back({direction, memory, mode});
    }
  }
  return paths;
}

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

Expected<void> CopyMeasurement::Prepare() {
  auto stream = device_.CreateStream();
  if (!stream) return tl::unexpected(stream.error());
  stream_ = std::move(*stream);
  access_.emplace(device_, *stream_);
  if (path_.mode == CopyMode::kAsync && device_.platform().Provides(PluginFunction::kCreateTimer)) {
    auto timer = device_.CreateTimer();
    if (timer) {
      timer_ = std::move(*timer);
    } else {
      timer_problem_ = timer.error().message();
    }
  }

  auto expected = PageableBuffer::Allocate(bytes_);
  if (!expected) return tl::unexpected(expected.error());
  expected_ = std::move(*expected);
  FillPattern(expected_->bytes(), bytes_);

  auto device_a = device_.Allocate(bytes_);
  if (!device_a) return tl::unexpected(device_a.error());
  device_a_ = std::move(*device_a);
  if (path_.direction == Direction::kDeviceToDevice) {
    auto device_b = device_.Allocate(bytes_);
    if (!device_b) return tl::unexpected(device_b.error());
    device_b_ = std::move(*device_b);
  }

  if (path_.host_memory == HostMemory::kPinned) {
    auto pinned = device_.AllocateHost(host::HostMemoryKind::kPinned, bytes_);
    if (!pinned) return tl::unexpected(pinned.error());
    pinned_ = std::move(*pinned);
    host_ = {static_cast<std::byte*>(pinned_.data()), bytes_};
  } else {
    // Pageable memory, and d2d's staging buffer for filling and reading back.
    auto pageable = PageableBuffer::Allocate(bytes_);
    if (!pageable) return tl::unexpected(pageable.error());
    pageable_ = std::move(*pageable);
    host_ = pageable_->bytes();
  }

  // Every page touched, and no stale copy of the pattern where the copies
  // are to write it.
  switch (path_.direction) {
    case Direction::kHostToDevice:
      std::memcpy(host_.data(), expected_->data(), bytes_);
      return {};
    case Direction::kDeviceToHost:
      FillPattern(host_, bytes_ + 1);
      return Upload(device_a_, expected_->bytes());
    case Direction::kDeviceToDevice: {
      if (auto uploaded = Upload(device_a_, expected_->bytes()); !uploaded) return uploaded;
      FillPattern(host_, bytes_ + 1);
      return Upload(device_b_, host_);
    }
  }
  return {};
}

Expected<void> CopyMeasurement::Upload(const host::DeviceMemory& destination,
                                       std::span<const std::byte> data) {
  if (auto copied = stream_->MemcpyHtoD(destination.base(), data.data(), data.size()); !copied)
    return copied;
  return stream_->BlockHostUntilDone();
}

Expected<void> CopyMeasurement::CopyOnce() {
  const bool async = path_.mode == CopyMode::kAsync;
  switch (path_.direction) {
    case Direction::kHostToDevice:
      return async ? stream_->MemcpyHtoD(device_a_.base(), host_.data(), bytes_)
                   : device_.SyncMemcpyHtoD(device_a_.base(), host_.data(), bytes_);
    case Direction::kDeviceToHost:
      return async ? stream_->MemcpyDtoH(host_.data(), device_a_.base(), bytes_)
                   : device_.SyncMemcpyDtoH(host_.data(), device_a_.base(), bytes_);
    case Direction::kDeviceToDevice:
      return async ? stream_->MemcpyDtoD(device_b_.base(), device_a_.base(), bytes_)
                   : device_.SyncMemcpyDtoD(device_b_.base(), device_a_.base(), bytes_);
  }
  return {};
}

Expected<double> CopyMeasurement::TimeCopies(int copies, bool gated) {
  last_timer_seconds_.reset();
  if (path_.mode == CopyMode::kSync) {
    const auto started = Clock::now();
    for (int i = 0; i < copies; ++i) {
      if (auto copied = CopyOnce(); !copied) return tl::unexpected(copied.error());
    }
    return std::chrono::duration<double>(Clock::now() - started).count();
  }

  // A copy between the device and pageable memory may wait for the work
  // queued before it (CUDA stages it through pinned buffers, and its
  // device-to-host copy returns only once complete): behind a closed gate it
  // would wait for a gate only this thread can open. So pageable paths are
  // timed from the first enqueue, as sectl-cuda-baseline times them.
  const bool can_hold = path_.host_memory != HostMemory::kPageable;
  std::optional<StreamGate> gate;
  if (gated && can_hold && device_.platform().Provides(PluginFunction::kHostCallback)) {
    auto closed = StreamGate::Close(*stream_);
    if (!closed) return tl::unexpected(closed.error());
    // A plugin that ran the gate's callback at once holds nothing back:
    // then the clock must run while the copies are enqueued.
    if (closed->held()) gate = std::move(*closed);
  }
  auto started = Clock::now();
  const bool timing_with_timer = timer_ && !timer_problem_;
  if (timing_with_timer) {
    if (auto begun = timer_->Start(*stream_); !begun) timer_problem_ = begun.error().message();
  }
  for (int i = 0; i < copies; ++i) {
    if (auto copied = CopyOnce(); !copied) return tl::unexpected(copied.error());
  }
  if (timing_with_timer && !timer_problem_) {
    if (auto ended = timer_->Stop(*stream_); !ended) timer_problem_ = ended.error().message();
  }
  if (gate) {
    started = Clock::now();
    gate->Open();
  }
  if (auto done = stream_->BlockHostUntilDone(); !done) return tl::unexpected(done.error());
  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  gate_held_ = gate && gate->held();

  if (timing_with_timer && !timer_problem_) {
    auto nanoseconds = timer_->Nanoseconds();
    if (!nanoseconds) {
      timer_problem_ = nanoseconds.error().message();
    } else if (*nanoseconds == 0) {
      timer_problem_ = fmt::format("it reported 0 ns for {} copies", copies);
    } else {
      last_timer_seconds_ = static_cast<double>(*nanoseconds) / 1e9;
    }
  }
  return seconds;
}

Expected<void> CopyMeasurement::CopyOnceAndWait() {
  auto copied = CopyOnce();
  if (path_.mode == CopyMode::kSync) return copied;
  auto waited = stream_->BlockHostUntilDone();
  if (!copied) return copied;
  return waited;
}

Expected<std::optional<std::string>> CopyMeasurement::ReadBackDifference(
    PluginFunction reader, const host::DeviceMemory& source) {
  if (!read_back_) {
    auto buffer = PageableBuffer::Allocate(bytes_);
    if (!buffer) return tl::unexpected(buffer.error());
    read_back_ = std::move(*buffer);
  }
  if (auto read = access_->Read(reader, read_back_->bytes(), source.base()); !read)
    return tl::unexpected(read.error());
  return FirstMismatch(expected_->bytes(), read_back_->bytes());
}

Verification Passed(std::string reason = {}) {
  return {VerificationStatus::kPassed, std::move(reason)};
}
Verification Failed(std::string reason) { return {VerificationStatus::kFailed, std::move(reason)}; }
Verification NotVerified(std::string reason) {
  return {VerificationStatus::kNotVerified, std::move(reason)};
}

// "memcpy_dtoh returned wrong bytes (byte 0 ...)" or "memcpy_dtoh failed: ...":
// why the usual check did not settle it.
std::string WhyUsualCheckFailed(const Expected<std::optional<std::string>>& usual) {
  if (!usual)
    return fmt::format("{} failed: {}", MemberName(kUsualReader), usual.error().message());
  return fmt::format("{} returned wrong bytes ({})", MemberName(kUsualReader), **usual);
}

Verification CopyMeasurement::Verify(LazyVerdicts& verdicts) {
  if (path_.direction == Direction::kDeviceToHost) return VerifyHostHolds(verdicts);
  return VerifyDeviceHolds(verdicts);
}

Verification CopyMeasurement::VerifyDeviceHolds(LazyVerdicts& lazy) {
  const host::DeviceMemory& destination =
      path_.direction == Direction::kHostToDevice ? device_a_ : device_b_;
  const auto usual = ReadBackDifference(kUsualReader, destination);
  if (usual && !*usual) return Passed();

  // Read back wrong, or not at all: either the copy or the reading is at
  // fault, and only a reader that was itself confirmed can tell which.
  const Expected<AccessVerdicts>& verdicts = lazy.Get();
  if (!verdicts) {
    return NotVerified(fmt::format("{}, and cross-checking the other ways to read it failed: {}",
                                   WhyUsualCheckFailed(usual), verdicts.error().message()));
  }
  const std::optional<PluginFunction> reader = verdicts->TrustedReader();
  if (!reader) return NotVerified(verdicts->WhyNoTrustedReader());
  const std::string through = fmt::format("read back through {}, which {}", MemberName(*reader),
                                          verdicts->WhyTrusted(*reader));
  auto difference = ReadBackDifference(*reader, destination);
  if (!difference) {
    return NotVerified(fmt::format("reading the copy back through {} failed: {}",
                                   MemberName(*reader), difference.error().message()));
  }
  if (!*difference) {
    return Passed(fmt::format("read back through {}, as {}", MemberName(*reader),
                              WhyUsualCheckFailed(usual)));
  }
  if (path_.direction == Direction::kHostToDevice) {
    return Failed(fmt::format("{} ({})", **difference, through));
  }

  // d2d: the source may be what was wrong, written by memcpy_htod before
  // the measurement. Then it is written anew through a confirmed writer and
  // copied once more.
  auto source = ReadBackDifference(*reader, device_a_);
  if (!source) {
    return NotVerified(fmt::format("reading the copy's source back through {} failed: {}",
                                   MemberName(*reader), source.error().message()));
  }
  if (!*source) return Failed(fmt::format("{} ({}; the source was right)", **difference, through));
  const std::optional<PluginFunction> writer = verdicts->TrustedWriter();
  if (!writer) return NotVerified(verdicts->WhyNoTrustedWriter());
  if (auto written = access_->Write(*writer, device_a_.base(), expected_->bytes(), kRecheckSeed);
      !written) {
    return NotVerified(
        fmt::format("the copy's source was wrong ({}), and writing it anew through "
                    "{} failed: {}",
                    **source, MemberName(*writer), written.error().message()));
  }
  if (auto copied = CopyOnceAndWait(); !copied) {
    return NotVerified(
        fmt::format("copying a rewritten source once more failed: {}", copied.error().message()));
  }
  auto recheck = ReadBackDifference(*reader, device_b_);
  if (!recheck) {
    return NotVerified(fmt::format("reading the copy back through {} failed: {}",
                                   MemberName(*reader), recheck.error().message()));
  }
  const std::string source_note = fmt::format(
      "the source, written by {} for the measurement, was wrong ({}); it was written anew "
      "through {}, which {}",
      MemberName(PluginFunction::kMemcpyHtoD), **source, MemberName(*writer),
      verdicts->WhyTrusted(*writer));
  if (!*recheck) return Passed(fmt::format("rechecked: {}", source_note));
  return Failed(fmt::format("{} ({}; {})", **recheck, through, source_note));
}

Verification CopyMeasurement::VerifyHostHolds(LazyVerdicts& lazy) {
  const auto difference = FirstMismatch(expected_->bytes(), host_);
  if (!difference) return Passed();

  // The bytes read differ: either this copy misread them, or the device
  // did not hold what memcpy_htod was to put there.
  const Expected<AccessVerdicts>& verdicts = lazy.Get();
  if (!verdicts) {
    return NotVerified(
        fmt::format("the bytes read differ ({}), and cross-checking the ways in "
                    "and out of the device failed: {}",
                    *difference, verdicts.error().message()));
  }
  const PluginFunction form = path_.mode == CopyMode::kAsync ? PluginFunction::kMemcpyDtoH
                                                             : PluginFunction::kSyncMemcpyDtoH;
  if (verdicts->Broken(form)) {
    return Failed(fmt::format("{} ({})", *difference, verdicts->WhyBroken(form)));
  }
  const std::optional<PluginFunction> writer = verdicts->TrustedWriter();
  if (!writer) {
    return NotVerified(
        fmt::format("the bytes read differ ({}), but what the device held cannot "
                    "be confirmed: {}",
                    *difference, verdicts->WhyNoTrustedWriter()));
  }
  if (auto written = access_->Write(*writer, device_a_.base(), expected_->bytes(), kRecheckSeed);
      !written) {
    return NotVerified(
        fmt::format("the bytes read differ ({}), and writing the device anew "
                    "through {} failed: {}",
                    *difference, MemberName(*writer), written.error().message()));
  }
  FillPattern(host_, kRecheckSeed + 1);
  if (auto copied = CopyOnceAndWait(); !copied) {
    return NotVerified(fmt::format("the bytes read differ ({}), and copying once more failed: {}",
                                   *difference, copied.error().message()));
  }
  const std::string held = fmt::format("the device held what {} wrote, which {}",
                                       MemberName(*writer), verdicts->WhyTrusted(*writer));
  if (const auto recheck = FirstMismatch(expected_->bytes(), host_)) {
    return Failed(fmt::format("{} ({})", *recheck, held));
  }
  const std::string first_source =
      verdicts->Broken(PluginFunction::kMemcpyHtoD)
          ? fmt::format("the source had been written by {}, which is broken: {}",
                        MemberName(PluginFunction::kMemcpyHtoD),
                        verdicts->WhyBroken(PluginFunction::kMemcpyHtoD))
          : fmt::format("the first read differed ({})", *difference);
  return Passed(fmt::format("rechecked, as {}: {}", first_source, held));
}

// Flags a median that no real copy could reach: `what` says which clock.
void JudgePlausibility(const host::Device& device, double median_gbps, std::string_view what,
                       BandwidthResult& result) {
  if (result.ceiling_gbps > 0 && result.direction != Direction::kDeviceToDevice &&
      median_gbps > kImplausibleOverCeiling * result.ceiling_gbps) {
    result.warnings.push_back(fmt::format(
        "implausible: {} says {:.1f}x the host memcpy ceiling; a copy to or from host memory "
        "cannot be this fast",
        what, median_gbps / result.ceiling_gbps));
  }
  if (result.direction == Direction::kDeviceToDevice && result.bytes >= kLargerThanCaches) {
    const auto bandwidth = device.MemoryBandwidth();
    if (bandwidth && *bandwidth > 0 &&
        median_gbps * 1e9 > kImplausibleOverDeviceBandwidth * static_cast<double>(*bandwidth)) {
      result.warnings.push_back(fmt::format(
          "implausible: {} says {:.2f} GB/s, beyond the {:.2f} GB/s memory bandwidth the device "
          "reports",
          what, median_gbps, static_cast<double>(*bandwidth) / 1e9));
    }
  }
}

BandwidthResult MeasurePath(const host::Device& device, const Path& path, uint64_t bytes,
                            double ceiling_gbps, const MemcpyBenchOptions& options,
                            LazyVerdicts& verdicts) {
  BandwidthResult result{.direction = path.direction,
                         .host_memory = path.host_memory,
                         .mode = path.mode,
                         .bytes = bytes,
                         .ceiling_gbps = ceiling_gbps};
  auto fail = [&](const Error& error, std::string_view doing) {
    result.error = fmt::format("{}: {}", doing, error.message());
    return result;
  };

  CopyMeasurement measurement(device, path, bytes);
  if (auto prepared = measurement.Prepare(); !prepared)
    return fail(prepared.error(), "preparing buffers");

  // Warm-up: single copies first (first touch, lazy setup in the plugin),
  // then gated batches growing until one is long enough to be a sample.
  auto first = measurement.TimeCopies(kWarmupCopies, /*gated=*/false);
  if (!first) return fail(first.error(), "warming up");
  int calibration_copies = 0;
  const bool behind_a_gate =
      path.mode == CopyMode::kAsync && path.host_memory != HostMemory::kPageable;
  auto copies = CalibrateBatch(
      [&](int count) { return measurement.TimeCopies(count, /*gated=*/true); },
      behind_a_gate ? kMaxCopiesBehindAGate : kMaxCopiesPerSample, &calibration_copies);
  if (!copies) return fail(copies.error(), "warming up");
  result.copies_per_sample = *copies;
  result.warmup_copies = kWarmupCopies + calibration_copies;

  std::vector<double> timer_gbps;
  const double bytes_per_sample = static_cast<double>(bytes) * result.copies_per_sample;
  bool every_sample_gated = true;
  auto samples = SampleUntilStable(options.plan, [&]() -> Expected<double> {
    auto seconds = measurement.TimeCopies(result.copies_per_sample, true);
    if (!seconds) return seconds;
    every_sample_gated = every_sample_gated && measurement.gate_held();
    if (const auto timer_seconds = measurement.last_timer_seconds())
      timer_gbps.push_back(bytes_per_sample / *timer_seconds / 1e9);
    return bytes_per_sample / *seconds / 1e9;
  });
  if (!samples) return fail(samples.error(), "measuring");

  result.gbps = Describe(samples->values);
  result.stable = samples->stable;
  result.enqueue_excluded = path.mode == CopyMode::kAsync && every_sample_gated;
  if (!timer_gbps.empty() && timer_gbps.size() == samples->values.size())
    result.plugin_timer_gbps = Describe(timer_gbps);
  if (measurement.timer_problem())
    result.warnings.push_back("the plugin's timer failed: " + *measurement.timer_problem());
  result.ratio_to_ceiling = ceiling_gbps > 0 ? result.gbps.median / ceiling_gbps : 0;

  if (options.verify) result.verification = measurement.Verify(verdicts);
  JudgePlausibility(device, result.gbps.median, "the host clock", result);
  if (result.plugin_timer_gbps)
    JudgePlausibility(device, result.plugin_timer_gbps->median, "the plugin's timer", result);
  return result;
}

}  // namespace

std::vector<HostMemory> DefaultHostMemories(const host::Device& device) {
  if (device.platform().Provides(PluginFunction::kHostMemoryAllocate)) return {HostMemory::kPinned};
  return {HostMemory::kPageable};
}

int CountMemcpySteps(const MemcpyBenchOptions& options, const host::Device& device) {
  return static_cast<int>(options.sizes.size() * (PlanPaths(options, device).size() + 1));
}

Expected<void> RunMemcpyBench(const host::Device& device, const MemcpyBenchOptions& options,
                              BenchReport& report, const ProgressCallback& progress) {
  const std::vector<Path> paths = PlanPaths(options, device);
  for (const uint64_t bytes : options.sizes) {
    if (progress) progress(fmt::format("host memcpy {}", FormatByteSize(bytes)));
    auto ceiling = MeasureHostCeiling(bytes, options.plan);
    if (!ceiling) return tl::unexpected(ceiling.error());
    report.ceiling.push_back(*ceiling);
    // Shared by the paths of one size: a fault may depend on the size.
    LazyVerdicts verdicts(device, bytes);
    for (const Path& path : paths) {
      if (progress) progress(DescribePath(path, bytes));
      report.results.push_back(
          MeasurePath(device, path, bytes, ceiling->gbps.median, options, verdicts));
    }
  }
  return {};
}

}  // namespace sectl::bench
