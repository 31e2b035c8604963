// Copies: data moved between host and device arrives byte for byte.
#include <fmt/format.h>

#include <vector>

#include "conform/check.h"
#include "host/stream.h"

namespace sectl::checks {
namespace {

std::vector<unsigned char> TestPattern(size_t size) {
  std::vector<unsigned char> bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<unsigned char>((i * 7 + i / 251) & 0xFF);
  return bytes;
}

// "" when equal, else where and how they first differ.
std::string FirstDifference(const std::vector<unsigned char>& expected,
                            const std::vector<unsigned char>& actual) {
  for (size_t i = 0; i < expected.size(); ++i) {
    if (expected[i] != actual[i]) {
      return fmt::format("byte {} reads back as 0x{:02x}, 0x{:02x} was written", i, actual[i],
                         expected[i]);
    }
  }
  return {};
}

}  // namespace

SECTL_CHECK("memcpy.round_trip", kRequired,
            "A buffer copied host to device and back on a stream is unchanged") {
  constexpr size_t kBytes = size_t{1} << 20;
  const host::Device& device = check.device();
  auto stream = check.Require(device.CreateStream(), "create_stream");
  auto memory = check.Require(device.Allocate(kBytes), "allocate");
  const auto written = TestPattern(kBytes);
  std::vector<unsigned char> read_back(kBytes, 0);
  check.Require(stream->MemcpyHtoD(memory.base(), written.data(), kBytes), "memcpy_htod");
  check.Require(stream->MemcpyDtoH(read_back.data(), memory.base(), kBytes), "memcpy_dtoh");
  check.Require(stream->BlockHostUntilDone(), "waiting for the stream");
  const std::string difference = FirstDifference(written, read_back);
  check.Expect(difference.empty(),
               fmt::format("a {}-byte buffer copied host to device to host came back changed: {}",
                           kBytes, difference));
  check.details() = {{"bytes", kBytes}};
}

}  // namespace sectl::checks
