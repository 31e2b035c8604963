// What the replayed device memory must hold, kept without storing it.
//
// A replay writes only two kinds of content into device memory: bytes of a
// deterministic generator (every host-to-device copy) and fill patterns
// (mem_zero, memset, memset32). Both can be recomputed at any offset, so
// the shadow holds, per allocation, the written ranges and a recipe for
// each: which generator or pattern, and where it started. It costs a few
// words per write, whatever the size: TensorFlow's BFC allocator takes most
// of a GPU's memory in one allocation, and a byte-for-byte shadow of it
// would not fit. Bytes never written are unknown and never compared.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

namespace sectl::replay {

// The generator a host-to-device copy sends: byte `index` of stream `seed`
// (the copy's record sequence number). Counter-based, so any byte can be
// recomputed alone.
void GenerateBytes(uint64_t seed, uint64_t first_index, std::span<uint8_t> out);

// How a written range's bytes are made.
struct Content {
  enum class Kind : uint8_t { kGenerated, kFill };
  Kind kind = Kind::kFill;
  // kGenerated: the seed; kFill: the 32-bit word repeated (a byte fill
  // repeats its byte four times).
  uint64_t value = 0;
  // The allocation offset at which byte 0 of the generator or pattern
  // lies; moved when a device-to-device copy moves the content.
  uint64_t origin = 0;
};

inline constexpr uint32_t kNoRecord = UINT32_MAX;

// A written range of one allocation: [begin, end), made by `content`,
// written by the record at index `writer` of the trace, and moved here by
// the device-to-device copy at index `copier` (kNoRecord: written in place).
struct Segment {
  uint64_t begin = 0;
  uint64_t end = 0;
  uint32_t writer = 0;
  uint32_t copier = kNoRecord;
  Content content;
};

// The expected bytes of [offset, offset + out.size()) of a segment's
// content; the range must lie inside the segment.
void ExpectedBytes(const Segment& segment, uint64_t offset, std::span<uint8_t> out);

// The first byte of a copy that differs from what the shadow expected.
struct Mismatch {
  uint64_t offset = 0;  // in the allocation
  uint8_t actual = 0;
  uint8_t expected = 0;
  uint32_t writer = 0;          // record index that wrote the expected byte
  uint32_t copier = kNoRecord;  // and the one that copied it there, if any
};

// Compares `actual` (bytes [offset, offset + actual.size()) of an
// allocation as read back) with `expected`, the segments of that range
// (clipped to it). Unknown bytes are not compared.
std::optional<Mismatch> FindMismatch(const std::vector<Segment>& expected, uint64_t offset,
                                     std::span<const uint8_t> actual);

class ShadowMemory {
 public:
  // At most this many written ranges in all; past it the shadow stops
  // tracking (the replay stops verifying, with a note) rather than taking
  // the machine's memory.
  explicit ShadowMemory(size_t max_segments = size_t{1} << 22) : max_segments_(max_segments) {}

  // Records that [offset, offset + size) of `allocation` now holds `content`.
  void Write(uint32_t allocation, uint64_t offset, uint64_t size, const Content& content,
             uint32_t writer, uint32_t copier = kNoRecord);
  // Forgets what [offset, offset + size) holds (a failed write, an unknown
  // source).
  void Forget(uint32_t allocation, uint64_t offset, uint64_t size);
  // Forgets a whole allocation (deallocated).
  void Drop(uint32_t allocation);
  // A device-to-device copy (record `copier`): the destination holds the
  // source's content as it is now; bytes of the source never written become
  // unknown.
  void Copy(uint32_t destination, uint64_t destination_offset, uint32_t source,
            uint64_t source_offset, uint64_t size, uint32_t copier);
  // The segments covering [offset, offset + size), clipped to it.
  std::vector<Segment> Snapshot(uint32_t allocation, uint64_t offset, uint64_t size) const;

  // Whether the cap was reached: from then on nothing is tracked and every
  // Snapshot is empty.
  bool overflowed() const { return overflowed_; }
  size_t segment_count() const { return segment_count_; }

 private:
  using SegmentMap = std::map<uint64_t, Segment>;  // by begin
  void Erase(SegmentMap& segments, uint64_t begin, uint64_t end);
  void Insert(SegmentMap& segments, const Segment& segment);

  std::map<uint32_t, SegmentMap> allocations_;
  size_t max_segments_;
  size_t segment_count_ = 0;
  bool overflowed_ = false;
};

}  // namespace sectl::replay
