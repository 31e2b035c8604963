#include "bench/copy_measurement.h"

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <optional>

#include "base/byte_sizes.h"
#include "bench/spin_wait.h"
#include "bench/stream_gate.h"
#include "host/platform.h"

namespace sectl::bench {
namespace {

using Clock = std::chrono::steady_clock;
using abi::PluginFunction;

// What the copies are checked through first: the form TensorFlow reads a
// tensor back with. Only when it disagrees are the other ways cross-checked.
constexpr PluginFunction kUsualReader = PluginFunction::kMemcpyDtoH;
// Contents written anew to recheck a copy whose source was suspect.
constexpr uint64_t kRecheckSeed = 0x5EC7'0002'0000;

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

}  // namespace

std::string StalledGateNote(std::string_view stall) {
  return fmt::format("{}: the stream could not be held behind a gate, so enqueueing is timed too",
                     stall);
}

double Milliseconds(std::chrono::steady_clock::duration duration) {
  return std::chrono::duration<double, std::milli>(duration).count();
}

PluginFunction CompletionFunction(const host::Device& device, const Path& path) {
  if (path.mode == CopyMode::kSync) return CopyFunction(path);
  // host::Stream::BlockHostUntilDone's own choice.
  return device.platform().Provides(PluginFunction::kBlockHostUntilDone)
             ? PluginFunction::kBlockHostUntilDone
             : PluginFunction::kBlockHostForEvent;
}

std::vector<PluginFunction> CompletionRoute(const host::Device& device, const Path& path) {
  const PluginFunction wait = CompletionFunction(device, path);
  if (wait != PluginFunction::kBlockHostForEvent) return {wait};
  return {PluginFunction::kCreateEvent, PluginFunction::kRecordEvent, wait};
}

PluginFunction CopyFunction(const Path& path) {
  const bool async = path.mode == CopyMode::kAsync;
  switch (path.direction) {
    case Direction::kHostToDevice:
      return async ? PluginFunction::kMemcpyHtoD : PluginFunction::kSyncMemcpyHtoD;
    case Direction::kDeviceToHost:
      return async ? PluginFunction::kMemcpyDtoH : PluginFunction::kSyncMemcpyDtoH;
    case Direction::kDeviceToDevice:
      return async ? PluginFunction::kMemcpyDtoD : PluginFunction::kSyncMemcpyDtoD;
  }
  return PluginFunction::kCount;
}

std::string DescribePath(const Path& path, uint64_t bytes) {
  return fmt::format("{} {} {} {}", DirectionName(path.direction), HostMemoryName(path.host_memory),
                     CopyModeName(path.mode), FormatByteSize(bytes));
}

Expected<void> CopyMeasurement::Prepare() {
  auto stream = device_.CreateStream();
  if (!stream) return tl::unexpected(stream.error());
  stream_ = std::move(*stream);
  access_.emplace(device_, *stream_);
  // The plugin's timers are a second clock, never needed: one known broken
  // is left alone.
  const bool timers_usable =
      health_.Usable(PluginFunction::kCreateTimer) && health_.Usable(PluginFunction::kStartTimer) &&
      health_.Usable(PluginFunction::kStopTimer) && health_.Usable(PluginFunction::kNanoseconds) &&
      health_.Usable(PluginFunction::kDestroyTimer);
  if (path_.mode == CopyMode::kAsync && timers_usable &&
      device_.platform().Provides(PluginFunction::kCreateTimer)) {
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

Expected<void> CopyMeasurement::CopyOnce() { return CopyOnce(bytes_); }

Expected<void> CopyMeasurement::CopyOnce(uint64_t bytes) {
  const bool async = path_.mode == CopyMode::kAsync;
  switch (path_.direction) {
    case Direction::kHostToDevice:
      return async ? stream_->MemcpyHtoD(device_a_.base(), host_.data(), bytes)
                   : device_.SyncMemcpyHtoD(device_a_.base(), host_.data(), bytes);
    case Direction::kDeviceToHost:
      return async ? stream_->MemcpyDtoH(host_.data(), device_a_.base(), bytes)
                   : device_.SyncMemcpyDtoH(host_.data(), device_a_.base(), bytes);
    case Direction::kDeviceToDevice:
      return async ? stream_->MemcpyDtoD(device_b_.base(), device_a_.base(), bytes)
                   : device_.SyncMemcpyDtoD(device_b_.base(), device_a_.base(), bytes);
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

  std::optional<StreamGate> gate;
  if (gated && GateUsable()) {
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
  // Done means the gate, queued before every copy, has run. If it has not,
  // this batch's clock started at nothing the stream waited for.
  if (gate_held_ && !gate->ran()) {
    if (!JudgeUnrunGate(*gate)) return Fail(ErrorCode::kPluginError, *not_measurable_);
    return TimeCopies(copies, /*gated=*/false);
  }

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

bool CopyMeasurement::GateUsable() const {
  // A copy between the device and pageable memory may wait for the work
  // queued before it (CUDA stages it through pinned buffers, and its
  // device-to-host copy returns only once complete): behind a closed gate it
  // would wait for a gate only this thread can open. So pageable paths are
  // timed from the first enqueue, as sectl-cuda-baseline times them.
  return path_.host_memory != HostMemory::kPageable &&
         health_.Usable(PluginFunction::kHostCallback) &&
         device_.platform().Provides(PluginFunction::kHostCallback);
}

bool CopyMeasurement::JudgeUnrunGate(const StreamGate& gate) {
  const PluginFunction wait = CompletionFunction(device_, path_);
  const auto returned = Clock::now();
  if (gate.WaitUntilRan(kStallBound)) {
    not_measurable_ = fmt::format(
        "{} returned before the work queued on the stream was done ({}): a host callback "
        "queued ahead of the copies ran {:.1f} ms after it returned, so the copies' completion "
        "was signalled before they can have finished",
        MemberName(wait), DescribePath(path_, bytes_), Milliseconds(Clock::now() - returned));
    health_.LearnEarlyCompletion(wait, *not_measurable_);
    return false;
  }
  LearnGateNeverRan();
  return true;
}

void CopyMeasurement::LearnGateNeverRan() {
  const std::string stall = fmt::format(
      "host_callback accepted a callback and never ran it (not within {} s of the stream "
      "reporting done)",
      kStallBound.count());
  health_.LearnStall(PluginFunction::kHostCallback, stall);
  notes_.push_back(StalledGateNote(stall));
}

Expected<void> CopyMeasurement::WaitForCopies() {
  if (path_.mode == CopyMode::kSync) return {};
  return stream_->BlockHostUntilDone();
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

}  // namespace sectl::bench
