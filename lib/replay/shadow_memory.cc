#include "replay/shadow_memory.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace sectl::replay {
namespace {

// SplitMix64's finaliser: every input bit affects every output bit, so
// neighbouring words of the generator share no visible pattern.
uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27U)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31U);
}

uint64_t GeneratorWord(uint64_t seed, uint64_t word_index) {
  return Mix((seed * 0xD1B54A32D192ED03ULL) ^ Mix(word_index));
}

uint8_t ByteOfWord(uint64_t word, uint64_t byte) {
  return static_cast<uint8_t>(word >> (8U * static_cast<unsigned>(byte)));
}

}  // namespace

void GenerateBytes(uint64_t seed, uint64_t first_index, std::span<uint8_t> out) {
  uint64_t word_index = first_index / 8;
  uint64_t word = GeneratorWord(seed, word_index);
  for (size_t i = 0; i < out.size(); ++i) {
    const uint64_t index = first_index + i;
    if (index / 8 != word_index) {
      word_index = index / 8;
      word = GeneratorWord(seed, word_index);
    }
    out[i] = ByteOfWord(word, index % 8);
  }
}

void ExpectedBytes(const Segment& segment, uint64_t offset, std::span<uint8_t> out) {
  // Unsigned wrap-around is exact here: the byte lies at or after the
  // content's origin, and 2^64 is a multiple of the pattern's 4 bytes.
  const uint64_t index = offset - segment.content.origin;
  if (segment.content.kind == Content::Kind::kGenerated) {
    GenerateBytes(segment.content.value, index, out);
    return;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = ByteOfWord(segment.content.value, (index + i) % 4);
  }
}

std::optional<Mismatch> FindMismatch(const std::vector<Segment>& expected, uint64_t offset,
                                     std::span<const uint8_t> actual) {
  constexpr size_t kChunk = size_t{64} * 1024;
  std::vector<uint8_t> buffer(kChunk);
  const uint64_t end = offset + actual.size();
  for (const Segment& segment : expected) {
    const uint64_t begin = std::max(segment.begin, offset);
    const uint64_t stop = std::min(segment.end, end);
    for (uint64_t at = begin; at < stop; at += kChunk) {
      const size_t length = static_cast<size_t>(std::min<uint64_t>(kChunk, stop - at));
      const std::span<uint8_t> wanted(buffer.data(), length);
      ExpectedBytes(segment, at, wanted);
      const uint8_t* got = actual.data() + (at - offset);
      if (std::memcmp(got, wanted.data(), length) == 0) continue;
      for (size_t i = 0; i < length; ++i) {
        if (got[i] != wanted[i]) {
          return Mismatch{at + i, got[i], wanted[i], segment.writer, segment.copier};
        }
      }
    }
  }
  return std::nullopt;
}

void ShadowMemory::Erase(SegmentMap& segments, uint64_t begin, uint64_t end) {
  auto it = segments.upper_bound(begin);
  if (it != segments.begin() && std::prev(it)->second.end > begin) --it;
  while (it != segments.end() && it->second.begin < end) {
    const Segment cut = it->second;
    it = segments.erase(it);
    --segment_count_;
    if (cut.begin < begin) {
      Segment left = cut;
      left.end = begin;
      Insert(segments, left);
    }
    if (cut.end > end) {
      Segment right = cut;
      right.begin = end;
      Insert(segments, right);
      break;
    }
  }
}

void ShadowMemory::Insert(SegmentMap& segments, const Segment& segment) {
  segments.emplace(segment.begin, segment);
  ++segment_count_;
}

void ShadowMemory::Write(uint32_t allocation, uint64_t offset, uint64_t size,
                         const Content& content, uint32_t writer, uint32_t copier) {
  if (overflowed_ || size == 0) return;
  SegmentMap& segments = allocations_[allocation];
  Erase(segments, offset, offset + size);
  if (segment_count_ >= max_segments_) {
    overflowed_ = true;
    allocations_.clear();
    segment_count_ = 0;
    return;
  }
  Insert(segments, Segment{offset, offset + size, writer, copier, content});
}

void ShadowMemory::Forget(uint32_t allocation, uint64_t offset, uint64_t size) {
  auto found = allocations_.find(allocation);
  if (found == allocations_.end() || size == 0) return;
  Erase(found->second, offset, offset + size);
}

void ShadowMemory::Drop(uint32_t allocation) {
  auto found = allocations_.find(allocation);
  if (found == allocations_.end()) return;
  segment_count_ -= found->second.size();
  allocations_.erase(found);
}

void ShadowMemory::Copy(uint32_t destination, uint64_t destination_offset, uint32_t source,
                        uint64_t source_offset, uint64_t size, uint32_t copier) {
  if (overflowed_ || size == 0) return;
  // Taken before the destination changes, so an overlapping copy within
  // one allocation reads the old content (as memmove would).
  const std::vector<Segment> moved = Snapshot(source, source_offset, size);
  Forget(destination, destination_offset, size);
  const uint64_t shift = destination_offset - source_offset;  // modulo 2^64
  for (Segment segment : moved) {
    segment.begin += shift;
    segment.end += shift;
    segment.content.origin += shift;
    Write(destination, segment.begin, segment.end - segment.begin, segment.content, segment.writer,
          copier);
  }
}

std::vector<Segment> ShadowMemory::Snapshot(uint32_t allocation, uint64_t offset,
                                            uint64_t size) const {
  std::vector<Segment> covering;
  auto found = allocations_.find(allocation);
  if (found == allocations_.end() || size == 0) return covering;
  const SegmentMap& segments = found->second;
  const uint64_t end = offset + size;
  auto it = segments.upper_bound(offset);
  if (it != segments.begin() && std::prev(it)->second.end > offset) --it;
  for (; it != segments.end() && it->second.begin < end; ++it) {
    Segment clipped = it->second;
    clipped.begin = std::max(clipped.begin, offset);
    clipped.end = std::min(clipped.end, end);
    covering.push_back(clipped);
  }
  return covering;
}

}  // namespace sectl::replay
