// Copies: data moved between host and device arrives byte for byte.
#include <fmt/format.h>

#include <vector>

#include "conform/check.h"
#include "conform/check_support.h"
#include "host/stream.h"

namespace sectl::checks {

SECTL_CHECK("memcpy.round_trip", kRequired,
            "A buffer copied host to device and back on a stream is unchanged") {
  constexpr size_t kBytes = size_t{1} << 20;
  const host::Device& device = check.device();
  auto stream = check.Require(device.CreateStream(), "create_stream");
  auto memory = check.Require(device.Allocate(kBytes), "allocate");
  const auto written = conform::TestPattern(kBytes);
  std::vector<unsigned char> read_back(kBytes, 0);
  check.Require(stream->MemcpyHtoD(memory.base(), written.data(), kBytes), "memcpy_htod");
  check.Require(stream->MemcpyDtoH(read_back.data(), memory.base(), kBytes), "memcpy_dtoh");
  check.Require(stream->BlockHostUntilDone(), "waiting for the stream");
  const std::string difference = conform::FirstDifference(written.data(), read_back.data(), kBytes);
  check.Expect(difference.empty(),
               fmt::format("a {}-byte buffer copied host to device to host came back changed: {}",
                           kBytes, difference));
  check.details() = {{"bytes", kBytes}};
}

}  // namespace sectl::checks
