// Which ways in and out of the device can be trusted to check a measured
// copy with, found by cross-checking them against each other, so that
// `sectl bench memcpy` blames a broken copy form alone and not every
// direction that is checked through it.
//
// Ways in ("writers"): memcpy_htod, sync_memcpy_htod and the fills memset
// and memset32, which put known bytes on the device without any copy.
// Ways out ("readers"): memcpy_dtoh and sync_memcpy_dtoh. What each writer
// puts on the device is read through each reader, twice with different
// contents (a reader that returns what it read before fails the second):
// - a pair that returns exactly what was written confirms its writer and
//   its reader: wrong copies do not conspire to produce the exact bytes;
// - a reader is broken when it misreads what a confirmed writer wrote, or,
//   when no writer can be confirmed, when it misreads what two or more
//   writers wrote alike (one broken reader is likelier than every writer
//   broken at once);
// - a writer is broken when a confirmed reader misreads what it wrote.
// Everything else is unknown, and a copy that can only be checked through
// something unknown or broken is "not verified".
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "abi/plugin_functions.h"
#include "base/error.h"
#include "host/device.h"
#include "host/stream.h"

namespace sectl::bench {

// Writes and reads device memory through a named plugin function, each to
// completion (a form on a stream is followed by a wait).
class DeviceAccess {
 public:
  DeviceAccess(const host::Device& device, host::Stream& stream)
      : device_(device), stream_(stream) {}

  // The writers and readers the plugin provides, most ordinary first.
  // memset32 only where `bytes` is a whole number of its words.
  std::vector<abi::PluginFunction> Writers(uint64_t bytes) const;
  std::vector<abi::PluginFunction> Readers() const;

  // Puts content chosen by `seed` on the device through `writer`, and what
  // the device must now hold into `expected` (its size is the copy's).
  Expected<void> Write(abi::PluginFunction writer, SP_DeviceMemoryBase destination,
                       std::span<std::byte> expected, uint64_t seed);
  // Reads `destination.size()` bytes through `reader`, into a destination
  // first filled with bytes no correct read leaves there.
  Expected<void> Read(abi::PluginFunction reader, std::span<std::byte> destination,
                      SP_DeviceMemoryBase source);

 private:
  const host::Device& device_;
  host::Stream& stream_;
};

// "memcpy_dtoh"
std::string_view MemberName(abi::PluginFunction function);

// What cross-checking the writers and readers found at one size.
class AccessVerdicts {
 public:
  // Allocates `bytes` on the device and two host buffers of as many, and
  // reads what every writer wrote through every reader.
  static Expected<AccessVerdicts> CrossCheck(const host::Device& device, uint64_t bytes);

  // A reader (writer) that took part in an exact round trip and was not
  // shown wrong, the most ordinary first; nullopt when there is none.
  std::optional<abi::PluginFunction> TrustedReader() const;
  std::optional<abi::PluginFunction> TrustedWriter() const;
  bool Broken(abi::PluginFunction function) const;

  // Clauses for messages, each to follow "which" or stand alone:
  // "read back exactly what memcpy_htod wrote" (a trusted reader),
  // "sync_memcpy_dtoh read back exactly" (a trusted writer).
  std::string WhyTrusted(abi::PluginFunction function) const;
  // "memcpy_dtoh misread what memcpy_htod wrote, which sync_memcpy_dtoh read
  // back exactly", or "... misread what memcpy_htod, sync_memcpy_htod and
  // memset wrote alike".
  std::string WhyBroken(abi::PluginFunction function) const;
  // "d2h, the only way to read the device, returns wrong bytes: ...".
  std::string WhyNoTrustedReader() const;
  std::string WhyNoTrustedWriter() const;

 private:
  enum class Outcome { kExact, kWrong, kFailed };
  struct RoundTrip {
    abi::PluginFunction writer;
    abi::PluginFunction reader;
    Outcome outcome;
    std::string detail;  // the first difference, or the error
  };

  bool Confirmed(abi::PluginFunction function) const;
  std::optional<abi::PluginFunction> FirstTrusted(
      const std::vector<abi::PluginFunction>& candidates) const;
  std::string DescribeRoundTrips() const;

  std::vector<abi::PluginFunction> writers_;
  std::vector<abi::PluginFunction> readers_;
  std::vector<RoundTrip> round_trips_;
};

// The cross-check at one size, made the first time a verification needs it:
// a correct plugin's copies verify without it.
class LazyVerdicts {
 public:
  LazyVerdicts(const host::Device& device, uint64_t bytes) : device_(device), bytes_(bytes) {}

  const Expected<AccessVerdicts>& Get();

 private:
  const host::Device& device_;
  uint64_t bytes_;
  std::optional<Expected<AccessVerdicts>> verdicts_;
};

}  // namespace sectl::bench
