// Judging a TVM DeviceAPI's memory the way TVM defines it for the device
// (lib/tvm/data_pointer_kind.h): on a device whose data pointer is an
// address, alignment and address ranges are real; on one whose pointer is an
// opaque handle (OpenCL's cl::BufferDescriptor*, Vulkan's VulkanBuffer*),
// only what CopyDataFromTo moves through byte_offset can be observed. These
// helpers do the latter for the tvm-device-api checks, and give address
// devices the content proof too where it is cheap.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "conform/check.h"
#include "tvm/device_api_route.h"

namespace sectl::checks {

// Whether the route's data pointers are addresses the checks may judge.
bool JudgesAddresses(const tvm::DeviceApiRoute& api);

// What stands in for alignment on a handle: `bytes` of data space at
// `pointer` hold what CopyDataFromTo writes at byte_offset 0 and at the last
// multiple of `alignment` inside them, read back at the same offsets after
// StreamSync. Empty when they do, else what differs. A failed copy or sync
// ends the check through Require.
std::string RoundTripAtAlignedOffsets(conform::CheckContext& check, tvm::DeviceApiRoute& api,
                                      int device_id, void* pointer, size_t bytes, size_t alignment,
                                      unsigned seed);

// A block held at the same time as others (workspaces, data spaces).
struct HeldBlock {
  void* pointer;
  size_t bytes;
};

// Distinctness by content: writes each block through CopyDataFromTo with a
// pattern of its own, all before reading any back, then reads each back.
// Empty when every block kept its pattern, else which block lost it and,
// where its bytes are a later block's pattern, that block: the two share
// storage whatever their pointers say.
std::string FirstBlockSharingStorage(conform::CheckContext& check, tvm::DeviceApiRoute& api,
                                     int device_id, const std::vector<HeldBlock>& blocks,
                                     const std::string& what);

}  // namespace sectl::checks
