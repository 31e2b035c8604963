#include "bench/copy_verification.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "bench/copy_buffers.h"
#include "host/memory.h"
#include "host/platform.h"

namespace sectl::bench {
namespace {

using abi::PluginFunction;

// Fills the destination of every read first, so that a read that moves
// nothing cannot match what was written.
constexpr uint64_t kUnreadSeed = 0x5EC7'0000'DEAD;
// The first content seed of a cross-check; each write takes the next one.
constexpr uint64_t kFirstCrossCheckSeed = 0x5EC7'0001'0000;
// Each pair of a writer and a reader round-trips this many contents.
constexpr int kContentsPerRoundTrip = 2;

bool IsReader(PluginFunction function) {
  return function == PluginFunction::kMemcpyDtoH || function == PluginFunction::kSyncMemcpyDtoH;
}

// "a", "a and b", "a, b and c"
std::string JoinNames(const std::vector<PluginFunction>& functions) {
  std::string joined;
  for (size_t i = 0; i < functions.size(); ++i) {
    if (i > 0) joined += i + 1 == functions.size() ? " and " : ", ";
    joined += MemberName(functions[i]);
  }
  return joined;
}

// A fill byte that is never 0 (a read of fresh memory) and differs per seed.
uint8_t FillByte(uint64_t seed) { return static_cast<uint8_t>(0x80 | ((seed * 0x35) & 0x7F)); }

uint32_t FillWord(uint64_t seed) { return static_cast<uint32_t>((seed + 1) * 0x9E3779B9u) | 1u; }

}  // namespace

std::string_view MemberName(PluginFunction function) { return abi::InfoOf(function).member; }

// ---------------------------------------------------------------------------
// DeviceAccess

std::vector<PluginFunction> DeviceAccess::Writers(uint64_t bytes) const {
  std::vector<PluginFunction> writers;
  for (const PluginFunction writer : {PluginFunction::kMemcpyHtoD, PluginFunction::kSyncMemcpyHtoD,
                                      PluginFunction::kMemset, PluginFunction::kMemset32}) {
    if (writer == PluginFunction::kMemset32 && bytes % sizeof(uint32_t) != 0) continue;
    if (device_.platform().Provides(writer)) writers.push_back(writer);
  }
  return writers;
}

std::vector<PluginFunction> DeviceAccess::Readers() const {
  std::vector<PluginFunction> readers;
  for (const PluginFunction reader :
       {PluginFunction::kMemcpyDtoH, PluginFunction::kSyncMemcpyDtoH}) {
    if (device_.platform().Provides(reader)) readers.push_back(reader);
  }
  return readers;
}

Expected<void> DeviceAccess::Write(PluginFunction writer, SP_DeviceMemoryBase destination,
                                   std::span<std::byte> expected, uint64_t seed) {
  const uint64_t size = expected.size();
  Expected<void> written;
  switch (writer) {
    case PluginFunction::kMemcpyHtoD:
      FillPattern(expected, seed);
      written = stream_.MemcpyHtoD(destination, expected.data(), size);
      break;
    case PluginFunction::kSyncMemcpyHtoD:
      FillPattern(expected, seed);
      return device_.SyncMemcpyHtoD(destination, expected.data(), size);
    case PluginFunction::kMemset: {
      const uint8_t byte = FillByte(seed);
      std::memset(expected.data(), byte, size);
      written = stream_.Memset8(destination, byte, size);
      break;
    }
    case PluginFunction::kMemset32: {
      const uint32_t word = FillWord(seed);
      for (uint64_t i = 0; i + sizeof(word) <= size; i += sizeof(word)) {
        std::memcpy(expected.data() + i, &word, sizeof(word));
      }
      written = stream_.Memset32(destination, word, size);
      break;
    }
    default:
      return Fail(ErrorCode::kInternal,
                  fmt::format("{} does not write device memory", MemberName(writer)));
  }
  // Waited for even after a failed enqueue: work may still be queued.
  auto waited = stream_.BlockHostUntilDone();
  if (!written) return written;
  return waited;
}

Expected<void> DeviceAccess::Read(PluginFunction reader, std::span<std::byte> destination,
                                  SP_DeviceMemoryBase source) {
  FillPattern(destination, kUnreadSeed);
  if (reader == PluginFunction::kSyncMemcpyDtoH) {
    return device_.SyncMemcpyDtoH(destination.data(), source, destination.size());
  }
  if (reader != PluginFunction::kMemcpyDtoH) {
    return Fail(ErrorCode::kInternal,
                fmt::format("{} does not read device memory", MemberName(reader)));
  }
  auto read = stream_.MemcpyDtoH(destination.data(), source, destination.size());
  auto waited = stream_.BlockHostUntilDone();
  if (!read) return read;
  return waited;
}

// ---------------------------------------------------------------------------
// AccessVerdicts

Expected<AccessVerdicts> AccessVerdicts::CrossCheck(const host::Device& device, uint64_t bytes) {
  auto stream = device.CreateStream();
  if (!stream) return tl::unexpected(stream.error());
  auto memory = device.Allocate(bytes);
  if (!memory) return tl::unexpected(memory.error());
  auto expected = PageableBuffer::Allocate(bytes);
  if (!expected) return tl::unexpected(expected.error());
  auto found = PageableBuffer::Allocate(bytes);
  if (!found) return tl::unexpected(found.error());

  DeviceAccess access(device, **stream);
  AccessVerdicts verdicts;
  verdicts.writers_ = access.Writers(bytes);
  verdicts.readers_ = access.Readers();
  uint64_t seed = kFirstCrossCheckSeed;
  for (const PluginFunction writer : verdicts.writers_) {
    for (const PluginFunction reader : verdicts.readers_) {
      RoundTrip trip{.writer = writer, .reader = reader, .outcome = Outcome::kExact, .detail = {}};
      for (int content = 0; content < kContentsPerRoundTrip; ++content) {
        if (auto written = access.Write(writer, memory->base(), expected->bytes(), seed++);
            !written) {
          trip = {writer, reader, Outcome::kFailed,
                  fmt::format("{} failed: {}", MemberName(writer), written.error().message())};
          break;
        }
        if (auto read = access.Read(reader, found->bytes(), memory->base()); !read) {
          trip = {writer, reader, Outcome::kFailed,
                  fmt::format("{} failed: {}", MemberName(reader), read.error().message())};
          break;
        }
        if (auto mismatch = FirstMismatch(expected->bytes(), found->bytes())) {
          trip = {writer, reader, Outcome::kWrong, *mismatch};
          break;
        }
      }
      verdicts.round_trips_.push_back(std::move(trip));
    }
  }
  return verdicts;
}

bool AccessVerdicts::Confirmed(PluginFunction function) const {
  return std::any_of(round_trips_.begin(), round_trips_.end(), [&](const RoundTrip& trip) {
    return trip.outcome == Outcome::kExact && (trip.writer == function || trip.reader == function);
  });
}

bool AccessVerdicts::Broken(PluginFunction function) const {
  const bool reader = IsReader(function);
  bool any_writer_confirmed = false;
  int writers_misread = 0;
  for (const RoundTrip& trip : round_trips_) {
    if ((reader ? trip.reader : trip.writer) != function) continue;
    const PluginFunction partner = reader ? trip.writer : trip.reader;
    if (reader && Confirmed(partner)) any_writer_confirmed = true;
    if (trip.outcome != Outcome::kWrong) continue;
    if (Confirmed(partner)) return true;  // wrong through a confirmed partner
    if (reader) ++writers_misread;
  }
  // With nothing confirmed, a reader that misread what several writers
  // wrote, and read none of it right, is the one common cause.
  return reader && !any_writer_confirmed && !Confirmed(function) && writers_misread >= 2;
}

std::optional<PluginFunction> AccessVerdicts::FirstTrusted(
    const std::vector<PluginFunction>& candidates) const {
  for (const PluginFunction function : candidates) {
    if (Confirmed(function) && !Broken(function)) return function;
  }
  return std::nullopt;
}

std::optional<PluginFunction> AccessVerdicts::TrustedReader() const {
  return FirstTrusted(readers_);
}

std::optional<PluginFunction> AccessVerdicts::TrustedWriter() const {
  return FirstTrusted(writers_);
}

std::string AccessVerdicts::WhyTrusted(PluginFunction function) const {
  for (const RoundTrip& trip : round_trips_) {
    if (trip.outcome != Outcome::kExact) continue;
    if (trip.reader == function)
      return fmt::format("read back exactly what {} wrote", MemberName(trip.writer));
    if (trip.writer == function)
      return fmt::format("{} read back exactly", MemberName(trip.reader));
  }
  return "was not confirmed";
}

std::string AccessVerdicts::WhyBroken(PluginFunction function) const {
  const bool reader = IsReader(function);
  std::vector<PluginFunction> misread;
  for (const RoundTrip& trip : round_trips_) {
    if ((reader ? trip.reader : trip.writer) != function || trip.outcome != Outcome::kWrong)
      continue;
    const PluginFunction partner = reader ? trip.writer : trip.reader;
    if (Confirmed(partner)) {
      return reader ? fmt::format("{} misread what {} wrote ({}), which {}", MemberName(function),
                                  MemberName(partner), trip.detail, WhyTrusted(partner))
                    : fmt::format("what {} wrote read back wrong through {} ({}), which {}",
                                  MemberName(function), MemberName(partner), trip.detail,
                                  WhyTrusted(partner));
    }
    misread.push_back(partner);
  }
  if (reader && !misread.empty()) {
    return fmt::format("{} misread what {} wrote alike", MemberName(function), JoinNames(misread));
  }
  return fmt::format("{} was not shown wrong", MemberName(function));
}

std::string AccessVerdicts::DescribeRoundTrips() const {
  std::string described;
  for (const RoundTrip& trip : round_trips_) {
    if (trip.outcome == Outcome::kExact) continue;
    if (!described.empty()) described += "; ";
    described += fmt::format("{} then {}: {}", MemberName(trip.writer), MemberName(trip.reader),
                             trip.detail);
  }
  return described;
}

std::string AccessVerdicts::WhyNoTrustedReader() const {
  if (readers_.empty()) {
    return "the plugin provides no way to read the device (memcpy_dtoh, sync_memcpy_dtoh)";
  }
  const bool every_reader_broken =
      std::all_of(readers_.begin(), readers_.end(), [&](PluginFunction r) { return Broken(r); });
  if (every_reader_broken) {
    std::string evidence;
    for (const PluginFunction reader : readers_) {
      if (!evidence.empty()) evidence += "; ";
      evidence += WhyBroken(reader);
    }
    return readers_.size() == 1
               ? fmt::format("d2h, the only way to read the device, returns wrong bytes ({})",
                             evidence)
               : fmt::format("d2h returns wrong bytes whichever way the device is read ({})",
                             evidence);
  }
  if (writers_.empty()) {
    return "the plugin provides no way to put known bytes on the device to confirm a reader with";
  }
  return fmt::format("no way to read the device back could be confirmed ({})",
                     DescribeRoundTrips());
}

std::string AccessVerdicts::WhyNoTrustedWriter() const {
  if (writers_.empty()) {
    return "the plugin provides no way to put known bytes on the device (memcpy_htod, "
           "sync_memcpy_htod, memset, memset32)";
  }
  // A writer is confirmed through a reader, so with none, reading is what
  // could not be trusted.
  return "no way to put known bytes on the device could be confirmed, as " + WhyNoTrustedReader();
}

// ---------------------------------------------------------------------------
// LazyVerdicts

const Expected<AccessVerdicts>& LazyVerdicts::Get() {
  if (!verdicts_) verdicts_ = AccessVerdicts::CrossCheck(device_, bytes_);
  return *verdicts_;
}

}  // namespace sectl::bench
