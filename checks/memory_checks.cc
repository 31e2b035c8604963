// Memory: what allocate and deallocate, host and unified memory, the
// allocator statistics and device_memory_usage must do for TensorFlow.
//
// TensorFlow places tensors straight into what allocate returns (through its
// BFC or simple allocator), CHECKs that they are 64-byte aligned, frees them
// with only `opaque` set, and sizes its memory pool from device_memory_usage
// when it creates the device. Each check below tests one of those promises,
// so that a plugin breaking one is told exactly which.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <latch>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "conform/check.h"
#include "conform/check_support.h"
#include "host/memory_usage_judgement.h"
#include "host/stream.h"
#include "host/unusual_calls.h"

namespace sectl::checks {
namespace {

using conform::SkipUnlessProvided;

using abi::PluginFunction;

constexpr uint64_t kMiB = uint64_t{1} << 20;

// TensorFlow's Allocator::kAllocatorAlignment: Tensor CHECKs IsAligned().
constexpr uint64_t kTensorAlignment = 64;

// The largest allocation any check makes (the suite's budget per check).
constexpr uint64_t kLargestAllocation = 256 * kMiB;

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

// "1 byte", "24 bytes", "4 KiB", "256 MiB", "1048577 bytes": exact, and short
// where that loses nothing.
std::string Bytes(uint64_t size) {
  if (size == 1) return "1 byte";
  if (size >= kMiB && size % kMiB == 0) return fmt::format("{} MiB", size / kMiB);
  if (size >= 1024 && size % 1024 == 0) return fmt::format("{} KiB", size / 1024);
  return fmt::format("{} bytes", size);
}

std::string Bytes(int64_t size) {
  return size < 0 ? fmt::format("{} bytes", size) : Bytes(static_cast<uint64_t>(size));
}

// "11.8 GiB", "300.0 MiB": for amounts where the last byte does not matter.
std::string Roughly(int64_t size) {
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  if (size >= (int64_t{1} << 30) || size <= -(int64_t{1} << 30)) {
    return fmt::format("{:.1f} GiB", static_cast<double>(size) / kGiB);
  }
  return fmt::format("{:.1f} MiB", static_cast<double>(size) / static_cast<double>(kMiB));
}

// Many instances of one problem, told as the first and a count of the rest.
std::string Summary(const std::vector<std::string>& instances) {
  if (instances.empty()) return {};
  if (instances.size() == 1) return instances.front();
  return fmt::format("{}; and {} more", instances.front(), instances.size() - 1);
}

std::string Address(const void* pointer) { return fmt::format("{}", pointer); }

uint64_t MisalignmentOf(const void* pointer) {
  return reinterpret_cast<uintptr_t>(pointer) % kTensorAlignment;
}

// What TensorFlow's DeviceMemAllocator::Free passes: DeviceMemoryBase(ptr).
SP_DeviceMemoryBase OnlyOpaque(void* opaque) {
  SP_DeviceMemoryBase memory{};
  memory.struct_size = SP_DEVICE_MEMORY_BASE_STRUCT_SIZE;
  memory.opaque = opaque;
  return memory;
}

// A raw allocation freed when it goes out of scope, as TensorFlow frees it,
// unless the check freed it some other way first.
class RawAllocation {
 public:
  RawAllocation(const host::Device& device, const SP_DeviceMemoryBase& memory)
      : device_(&device), memory_(memory) {}
  ~RawAllocation() {
    if (memory_.opaque != nullptr)
      host::UnusualCalls::Deallocate(*device_, OnlyOpaque(memory_.opaque));
  }
  RawAllocation(RawAllocation&& other) noexcept
      : device_(other.device_), memory_(std::exchange(other.memory_, {})) {}
  RawAllocation& operator=(RawAllocation&&) = delete;
  RawAllocation(const RawAllocation&) = delete;
  RawAllocation& operator=(const RawAllocation&) = delete;

  const SP_DeviceMemoryBase& memory() const { return memory_; }
  // deallocate with the struct exactly as allocate filled it (size, payload).
  void FreeAsReturned() { host::UnusualCalls::Deallocate(*device_, std::exchange(memory_, {})); }
  // deallocate as TensorFlow calls it.
  void FreeAsTensorFlowDoes() {
    host::UnusualCalls::Deallocate(*device_, OnlyOpaque(std::exchange(memory_, {}).opaque));
  }

 private:
  const host::Device* device_;
  SP_DeviceMemoryBase memory_;
};

RawAllocation RequireRawAllocation(conform::CheckContext& check, const host::Device& device,
                                   uint64_t size) {
  const SP_DeviceMemoryBase memory = check.Require(host::UnusualCalls::Allocate(device, size),
                                                   fmt::format("allocate({})", Bytes(size)));
  if (memory.opaque == nullptr) {
    const std::string what = fmt::format("allocate returned no memory for {}", Bytes(size));
    if (!check.Tests(PluginFunction::kAllocate)) check.Blocked(PluginFunction::kAllocate, what);
    check.Abort(what);
  }
  return {device, memory};
}

// One way of writing to device memory and reading it back, and the plugin
// functions it calls (a path through a function the check avoids is not
// tried: it crashed or hung in an earlier run, or before the checks).
struct CopyPath {
  const char* name;
  std::string (*problem)(conform::CheckContext&, const host::Device&, const host::DeviceMemory&,
                         std::span<const std::pair<uint64_t, unsigned char>>);
  std::array<PluginFunction, 3> uses;
};

std::string ReadBackProblem(uint64_t offset, unsigned char written, unsigned char read) {
  if (read == written) return {};
  return fmt::format("byte {} reads back as 0x{:02x}, 0x{:02x} was written", offset, read, written);
}

std::string SyncCopyProblem(conform::CheckContext& /*check*/, const host::Device& device,
                            const host::DeviceMemory& memory,
                            std::span<const std::pair<uint64_t, unsigned char>> bytes) {
  conform::HostBytes host_byte(1);  // memory the plugin's process can reach
  for (const auto& [offset, value] : bytes) {
    host_byte[0] = value;
    if (auto written = device.SyncMemcpyHtoD(memory.Slice(offset, 1), host_byte.data(), 1);
        !written) {
      return written.error().message();
    }
  }
  for (const auto& [offset, value] : bytes) {
    host_byte[0] = ~value;
    if (auto copied = device.SyncMemcpyDtoH(host_byte.data(), memory.Slice(offset, 1), 1);
        !copied) {
      return copied.error().message();
    }
    if (auto problem = ReadBackProblem(offset, value, host_byte[0]); !problem.empty()) {
      return problem;
    }
  }
  return {};
}

std::string StreamCopyProblem(conform::CheckContext& check, const host::Device& device,
                              const host::DeviceMemory& memory,
                              std::span<const std::pair<uint64_t, unsigned char>> bytes) {
  auto stream = device.CreateStream();
  if (!stream) return stream.error().message();
  conform::HostBytes read(bytes.size());
  conform::HostBytes sent(bytes.size());
  for (size_t i = 0; i < bytes.size(); ++i) {
    read[i] = ~bytes[i].second;
    sent[i] = bytes[i].second;
    if (auto written = (*stream)->MemcpyHtoD(memory.Slice(bytes[i].first, 1), &sent[i], 1);
        !written) {
      return written.error().message();
    }
  }
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (auto copied = (*stream)->MemcpyDtoH(&read[i], memory.Slice(bytes[i].first, 1), 1);
        !copied) {
      return copied.error().message();
    }
  }
  if (auto done = conform::WaitForStream(check, **stream); !done) return done.error().message();
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (auto problem = ReadBackProblem(bytes[i].first, bytes[i].second, read[i]);
        !problem.empty()) {
      return problem;
    }
  }
  return {};
}

// What writing and reading back both ends of a block showed: nothing wrong
// (empty `problems`), or what each way of copying met, and the function
// that kept a way from being tried, if one did (then the memory cannot be
// blamed: the way not tried might have worked).
struct EndsProblem {
  std::string problems;
  std::optional<PluginFunction> untried;
};

// Whether a byte written at each end of `memory` (of `size` bytes) reads
// back: proof that the whole range is there, not just its first page. The
// synchronous copies are tried first, then copies on a stream: a broken copy
// is the copy checks' to report, so only memory that no copy can use is
// reported here. A way through a function the check avoids is not tried.
EndsProblem ProblemUsingEnds(conform::CheckContext& check, const host::Device& device,
                             const host::DeviceMemory& memory, uint64_t size) {
  std::vector<std::pair<uint64_t, unsigned char>> ends = {{0, 0x5A}};
  if (size > 1) ends.emplace_back(size - 1, 0xC3);
  static constexpr std::array<CopyPath, 2> kPaths = {
      CopyPath{"sync_memcpy_htod/sync_memcpy_dtoh",
               SyncCopyProblem,
               {PluginFunction::kSyncMemcpyHtoD, PluginFunction::kSyncMemcpyDtoH,
                PluginFunction::kSyncMemcpyDtoH}},
      CopyPath{"memcpy_htod/memcpy_dtoh on a stream",
               StreamCopyProblem,
               {PluginFunction::kCreateStream, PluginFunction::kMemcpyHtoD,
                PluginFunction::kMemcpyDtoH}}};
  EndsProblem found;
  for (const CopyPath& path : kPaths) {
    const auto avoided = std::find_if(path.uses.begin(), path.uses.end(),
                                      [&](PluginFunction used) { return check.Avoids(used); });
    if (avoided != path.uses.end()) {
      found.problems += fmt::format("{}{}: not tried, {}", found.problems.empty() ? "" : "; ",
                                    path.name, check.WhyAvoided(*avoided));
      if (!found.untried) found.untried = *avoided;
      continue;
    }
    const std::string problem = path.problem(check, device, memory, ends);
    if (problem.empty()) return {};
    found.problems +=
        fmt::format("{}{}: {}", found.problems.empty() ? "" : "; ", path.name, problem);
  }
  return found;
}

// A device range: where it starts, how long it is, what it was and, for
// concurrent allocation, which thread made it (-1: the check's own).
struct Range {
  uintptr_t begin;
  uint64_t size;
  std::string label;
  int thread = -1;
};

// Two ranges alive at once that share bytes.
struct Overlap {
  Range first;  // the one starting first
  Range second;
  uint64_t shared_bytes;
};

// The first two ranges that share a byte, if any.
std::optional<Overlap> FindOverlap(std::vector<Range> ranges) {
  std::erase_if(ranges, [](const Range& range) { return range.size == 0; });
  std::sort(ranges.begin(), ranges.end(),
            [](const Range& a, const Range& b) { return a.begin < b.begin; });
  // The range reaching furthest so far: every later range must start past it.
  const Range* furthest = nullptr;
  for (const Range& range : ranges) {
    if (furthest != nullptr && range.begin < furthest->begin + furthest->size) {
      return Overlap{
          *furthest, range,
          std::min(furthest->begin + furthest->size, range.begin + range.size) - range.begin};
    }
    if (furthest == nullptr || range.begin + range.size > furthest->begin + furthest->size) {
      furthest = &range;
    }
  }
  return std::nullopt;
}

// Closer than this, two large blocks look like pointers to the plugin's own
// small heap objects rather than to device memory of the size asked for.
constexpr uint64_t kHandleLikeDistance = 256;

// "the block of 64 bytes at 0x1000 and the block of 4 KiB at 0x1020 share
// 32 bytes", and what a start distance far below the sizes suggests.
std::string Describe(const Overlap& overlap) {
  const uint64_t distance = overlap.second.begin - overlap.first.begin;
  std::string described =
      distance == 0
          ? fmt::format("{} and {} both start at 0x{:x} (the same address, returned twice)",
                        overlap.first.label, overlap.second.label, overlap.first.begin)
          : fmt::format("{} at 0x{:x} and {} at 0x{:x} share {}", overlap.first.label,
                        overlap.first.begin, overlap.second.label, overlap.second.begin,
                        Bytes(overlap.shared_bytes));
  if (distance != 0 && distance <= kHandleLikeDistance &&
      std::min(overlap.first.size, overlap.second.size) > 2 * kHandleLikeDistance) {
    described += fmt::format(
        "; their addresses are only {} apart, as if allocate returned pointers to small "
        "objects of its own rather than to the memory: TensorFlow addresses a tensor's bytes "
        "at opaque + offset, so opaque must be where the block's bytes are",
        Bytes(distance));
  }
  return described;
}

// device_memory_usage, or nullopt where it fails (memory.usage reports that).
std::optional<host::MemoryUsage> UsageIfAnswered(const host::Device& device) {
  auto usage = device.QueryMemoryUsage();
  if (!usage) return std::nullopt;
  return *usage;
}

// ---------------------------------------------------------------------------
// allocate
// ---------------------------------------------------------------------------

}  // namespace

// Sizes held at once: tiny and odd, around the alignment, around a page, and
// a few MiB. 256 MiB follows on its own.
constexpr std::array<uint64_t, 12> kHeldSizes = {1,    2,    3,    63,    64,       65,
                                                 4095, 4096, 4097, 65537, kMiB + 1, 16 * kMiB + 3};

SECTL_CHECK("memory.allocate", kRequired,
            "allocate returns usable, non-overlapping memory of the requested size, from 1 byte "
            "to 256 MiB",
            .tests = {kAllocate},
            .severity_reason =
                "TensorFlow 2.5 and later (every generation) place every tensor of the device "
                "in what allocate returns, at the size it reports: short, unusable or "
                "overlapping blocks corrupt tensors, and an overrun of the plugin's own heap "
                "corrupts the TensorFlow process",
            .establishes =
                "for 12 sizes held at once (1 byte to 16 MiB+3) and 256 MiB alone (where the "
                "device reports room for it twice): `allocate` returns memory, reports at least "
                "the size asked for in `SP_DeviceMemoryBase.size`, both ends of each block can "
                "be written and read back, and no two live blocks overlap; the plugin's own "
                "small heap blocks end at a guard page, so an overrun of one crashes where it "
                "happens",
            .common_mistakes =
                "Leaving `SP_DeviceMemoryBase.size` at 0 (TensorFlow builds the tensor from the "
                "size the plugin reports). An `allocate` that does nothing (TensorFlow's own "
                "test plugin leaves `mem` untouched). Bookkeeping stored past the end of a small "
                "heap block of the plugin's own (the faulty plugin writes a 4-byte tag into a "
                "1-byte block, which glibc's padding hides).",
            .how_to_fix =
                "Fill `opaque` and `size` (and `payload` if you use it) for every allocation, "
                "hand out blocks that do not overlap while alive, and size your own heap records "
                "by what you store in them; run the plugin under AddressSanitizer.",
            .proven_by =
                "`SIZE_NOT_REPORTED`, `ALLOCATE_OVERRUNS_SMALL_BLOCK` (crash: \"wrote 3 bytes "
                "past the end of a 1-byte block\")") {
  SkipUnlessProvided(check, {PluginFunction::kAllocate, PluginFunction::kDeallocate});
  const host::Device& device = check.device();
  std::vector<std::string> failed;
  std::vector<std::string> short_sizes;
  std::vector<std::string> unusable;
  nlohmann::json reported = nlohmann::json::array();

  // The allocation, once it has been checked; nullopt if allocate failed.
  auto allocate_and_use = [&](uint64_t size) -> std::optional<host::DeviceMemory> {
    auto memory = device.Allocate(size);
    if (!memory) {
      failed.push_back(memory.error().message());
      return std::nullopt;
    }
    reported.push_back({{"requested", size}, {"reported_size", memory->size()}});
    if (memory->size() < size) {
      short_sizes.push_back(fmt::format("{} for {}", memory->size(), Bytes(size)));
    }
    if (const auto ends = ProblemUsingEnds(check, device, *memory, size); !ends.problems.empty()) {
      if (ends.untried) {
        check.Blocked(*ends.untried,
                      fmt::format("whether the {} block allocate returned can be written and "
                                  "read back at both ends cannot be told: {}",
                                  Bytes(size), ends.problems));
      }
      unusable.push_back(
          fmt::format("{} at {}: {}", Bytes(size), Address(memory->opaque()), ends.problems));
    }
    return std::move(*memory);
  };

  std::vector<host::DeviceMemory> held;
  std::vector<Range> ranges;
  for (uint64_t size : kHeldSizes) {
    auto memory = allocate_and_use(size);
    if (!memory) continue;
    ranges.push_back({reinterpret_cast<uintptr_t>(memory->opaque()), size,
                      fmt::format("the block of {}", Bytes(size))});
    held.push_back(std::move(*memory));
  }
  const std::optional<Overlap> overlap = FindOverlap(ranges);
  held.clear();

  // The largest size alone, where the device says it has room for it twice
  // over (a device that is simply full is not at fault).
  const auto usage = UsageIfAnswered(device);
  if (usage && usage->free_bytes < static_cast<int64_t>(2 * kLargestAllocation)) {
    check.details()["largest_size_skipped"] =
        fmt::format("device_memory_usage reports only {} free", Bytes(usage->free_bytes));
  } else {
    (void)allocate_and_use(kLargestAllocation);
  }
  check.details()["allocations"] = std::move(reported);

  if (!failed.empty()) {
    check.Fail(fmt::format("allocate returned no memory: {}", Summary(failed)));
  }
  if (!short_sizes.empty()) {
    check.Fail(fmt::format(
        "allocate reported a smaller SP_DeviceMemoryBase.size than asked for ({}): TensorFlow "
        "takes the size from the struct the plugin fills, so the tensor it builds there is short",
        Summary(short_sizes)));
  }
  if (!unusable.empty()) {
    check.Fail(
        fmt::format("memory allocate returned cannot be written and read back at both "
                    "ends ({}): the block is smaller than asked for, or not there at all",
                    Summary(unusable)));
  }
  if (overlap) {
    check.Fail(fmt::format(
        "blocks allocated one after another and alive at the same time overlap: {}; two "
        "tensors would overwrite each other",
        Describe(*overlap)));
  }
}

// Small and odd sizes, held at once, so that an allocator handing out
// consecutive pieces of a larger block (a bump or slab allocator) shows
// every offset it produces.
constexpr std::array<uint64_t, 16> kAlignmentSizes = {
    1, 8, 24, 24, 24, 40, 63, 64, 65, 100, 255, 256, 1000, 4097, 65535, kMiB + 1};

SECTL_CHECK("memory.alignment", kRequired,
            "Every allocation is 64-byte aligned, as TensorFlow CHECKs for tensor buffers",
            .tests = {kAllocate},
            .severity_reason =
                "TensorFlow 2.5 and later CHECK that every tensor buffer is 64-byte aligned "
                "(Tensor's IsAligned), and abort the process when it is not",
            .establishes =
                "16 allocations held at once, of small and odd sizes (1 to 1 MiB+1: 1, 8, 24 "
                "three times, 40, 63, 64, 65, ...), so that a bump or slab allocator shows every "
                "offset it hands out: every `opaque` is 64-byte aligned",
            .common_mistakes =
                "Device memory taken from `malloc` (16-byte aligned) or carved out of a larger "
                "block at unaligned offsets; tensorflow/tensorflow#49202 (Apple) and "
                "intel-extension-for-tensorflow #78 and #87 report TensorFlow's \"Check failed: "
                "IsAligned()\" for pluggable devices with a custom allocator.",
            .how_to_fix =
                "Align every allocation to 64 bytes (`aligned_alloc(64, ...)`, or round offsets "
                "within a pool up to 64).",
            .proven_by = "`MISALIGNED_ALLOCATION`") {
  SkipUnlessProvided(check, {PluginFunction::kAllocate, PluginFunction::kDeallocate});
  const host::Device& device = check.device();
  std::vector<host::DeviceMemory> held;
  std::vector<std::string> misaligned;
  for (uint64_t size : kAlignmentSizes) {
    auto memory = check.Require(device.Allocate(size), fmt::format("allocate({})", Bytes(size)));
    if (const uint64_t past = MisalignmentOf(memory.opaque()); past != 0) {
      misaligned.push_back(fmt::format("allocate({}) returned {}, {} past a 64-byte boundary",
                                       Bytes(size), Address(memory.opaque()), Bytes(past)));
    }
    held.push_back(std::move(memory));
  }
  check.details() = {{"sizes", kAlignmentSizes}, {"misaligned", misaligned}};
  if (!misaligned.empty()) {
    check.Fail(fmt::format(
        "{} of {} allocations are not 64-byte aligned ({}): TensorFlow CHECK-fails "
        "(\"Check failed: IsAligned()\") and aborts the process when a tensor lands there",
        misaligned.size(), kAlignmentSizes.size(), Summary(misaligned)));
  }
}

SECTL_CHECK("memory.allocate_zero", kRecommended,
            "allocate of 0 bytes returns null or valid memory, and deallocate takes it back "
            "without crashing",
            .tests = {kAllocate, kDeallocate},
            .severity_reason =
                "No released TensorFlow asks allocate for 0 bytes (its DeviceMemAllocator "
                "allocates only when num_bytes > 0), so none frees a 0-byte block either; "
                "other hosts and direct users may",
            .establishes =
                "`allocate` of 0 bytes returns null or valid memory without crashing, and "
                "`deallocate` takes back a non-null block passed as TensorFlow passes blocks "
                "(only `opaque` set)",
            .common_mistakes =
                "Writing a bookkeeping header in front of a block that was never obtained for 0 "
                "bytes, or asking the driver for 0 bytes and using its null answer; writing into "
                "a 0-byte heap block of the plugin's own (`malloc(0)` returns a block that must "
                "never be written; the guard allocator makes it end at an inaccessible page).",
            .how_to_fix =
                "Handle a size of 0 first: return `opaque = NULL`, `size = 0` (or a valid "
                "minimal block), and let `deallocate` accept what `allocate(0)` returned.",
            .proven_by =
                "`ALLOCATE_ZERO_CRASH` (crash), `ALLOCATE_ZERO_OVERRUNS_SHADOW` (crash: \"wrote 4 "
                "bytes past the end of a 0-byte block\")",
            .unusual_use =
                "TensorFlow's allocators never ask the plugin for 0 bytes: "
                "DeviceMemAllocator::Alloc (device_mem_allocator.h) calls it only when "
                "num_bytes > 0") {
  SkipUnlessProvided(check, {PluginFunction::kAllocate, PluginFunction::kDeallocate});
  const host::Device& device = check.device();
  const SP_DeviceMemoryBase memory =
      check.Require(host::UnusualCalls::Allocate(device, 0), "allocate(0 bytes)");
  check.details() = {{"opaque", Address(memory.opaque)}, {"reported_size", memory.size}};
  // Freeing null is memory.deallocate's to test; a real block goes back as
  // TensorFlow returns every block.
  if (memory.opaque != nullptr) host::UnusualCalls::Deallocate(device, OnlyOpaque(memory.opaque));
}

// ---------------------------------------------------------------------------
// deallocate
// ---------------------------------------------------------------------------

namespace {

// bytes_in_use now, or nullopt where the plugin keeps no statistics.
std::optional<int64_t> BytesInUse(conform::CheckContext& check, const host::Device& device) {
  const auto stats = check.Require(device.QueryAllocatorStats(), "get_allocator_stats");
  if (!stats) return std::nullopt;
  return stats->bytes_in_use;
}

// How many bytes bytes_in_use drops by when `free` returns a fresh
// allocation of `size` bytes; nullopt where statistics are unavailable.
template <typename Free>
std::optional<int64_t> BytesReleased(conform::CheckContext& check, const host::Device& device,
                                     uint64_t size, Free free) {
  RawAllocation allocation = RequireRawAllocation(check, device, size);
  const auto held = BytesInUse(check, device);
  free(allocation);
  const auto after = BytesInUse(check, device);
  if (!held || !after) return std::nullopt;
  return *held - *after;
}

}  // namespace

SECTL_CHECK("memory.deallocate", kRequired,
            "deallocate accepts null memory, and frees memory passed with only `opaque` set, as "
            "TensorFlow passes it",
            .tests = {kDeallocate},
            .severity_reason =
                "TensorFlow 2.5 and later (every generation) free every tensor with "
                "DeviceMemoryBase(ptr): size 0 and payload 0. A deallocate that needs the size "
                "leaks every tensor, one that crashes on size 0 kills the process",
            .establishes =
                "`deallocate` accepts memory whose `opaque` is null, and a 1 MiB block passed "
                "with only `opaque` set (size 0, payload 0, as TensorFlow frees every tensor) is "
                "really freed: `bytes_in_use` drops as much as when the block is passed as "
                "`allocate` filled it (judged where `get_allocator_stats` answers)",
            .common_mistakes =
                "Freeing by `size` or by a handle kept in `payload`, which TensorFlow never "
                "passes back (`DeviceMemoryBase(ptr)` has size 0 and payload 0), so every tensor "
                "leaks; crashing on a null `opaque` or on size 0. TensorFlow's own unit test of "
                "`deallocate` calls the executor directly and passes the size, so a plugin "
                "tested only against it never meets size 0.",
            .how_to_fix =
                "Find the allocation from `opaque` alone (keep a map from address to "
                "allocation), accept `opaque == NULL` as a no-op, and never rely on `size` or "
                "`payload` in `deallocate`.",
            .proven_by = "`DEALLOCATE_NEEDS_SIZE`") {
  SkipUnlessProvided(check, {PluginFunction::kAllocate, PluginFunction::kDeallocate,
                             PluginFunction::kGetAllocatorStats});
  const host::Device& device = check.device();
  // The null-representative value: what a failed or zero-byte allocation leaves.
  host::UnusualCalls::Deallocate(device, OnlyOpaque(nullptr));

  // Whether memory is really freed shows in bytes_in_use. A plugin that
  // frees only when told the size (or payload) releases the struct allocate
  // filled, but not TensorFlow's DeviceMemoryBase(ptr).
  constexpr uint64_t kSize = kMiB;
  const auto as_returned =
      BytesReleased(check, device, kSize, [](RawAllocation& memory) { memory.FreeAsReturned(); });
  const auto as_tensorflow = BytesReleased(
      check, device, kSize, [](RawAllocation& memory) { memory.FreeAsTensorFlowDoes(); });
  check.details() = {{"size", kSize}};
  if (!as_returned || !as_tensorflow) {
    check.details()["release_observed"] =
        "not judged: get_allocator_stats returns false, so freeing cannot be observed";
    return;
  }
  check.details()["released_when_passed_as_returned"] = *as_returned;
  check.details()["released_when_passed_only_opaque"] = *as_tensorflow;
  // Judged only where the plugin's own statistics show a release at all;
  // statistics that never drop are memory.allocator_stats' to report.
  const auto enough = static_cast<int64_t>(kSize / 2);
  if (*as_returned >= enough && *as_tensorflow < enough) {
    check.Fail(fmt::format(
        "deallocate frees a block of {} when given the struct allocate filled (bytes_in_use "
        "drops by {}), but not when given only `opaque` (it drops by {}): TensorFlow frees "
        "through DeviceMemoryBase(ptr), with size and payload 0, so every tensor it frees leaks",
        Bytes(kSize), Bytes(*as_returned), Bytes(*as_tensorflow)));
  }
}

// ---------------------------------------------------------------------------
// Several threads at once
// ---------------------------------------------------------------------------

constexpr int kAllocatingThreads = 8;
constexpr int kAllocationsPerThread = 32;
// Small sizes, where allocators keep lock-free caches, and a few larger ones.
constexpr std::array<uint64_t, 8> kConcurrentSizes = {24, 64, 100, 256, 200, 48, 4096, 40000};

namespace {

struct ThreadAllocations {
  std::vector<host::DeviceMemory> memory;
  std::vector<uint64_t> sizes;
  std::string error;
};

}  // namespace

SECTL_CHECK("memory.concurrent_allocation", kRequired,
            "Allocations made by several threads at once never overlap", .tests = {kAllocate},
            .severity_reason =
                "TensorFlow 2.5 and later allocate from the executor's many threads at once "
                "(with use_bfc_allocator false, every tensor is one allocate call); overlapping "
                "blocks make two tensors share memory",
            .establishes =
                "8 threads started together each make 32 allocations of 24 bytes to 40,000 bytes "
                "and hold them: no two blocks overlap, whichever threads made them",
            .common_mistakes =
                "A suballocator or bump pointer without a lock (read the next free offset, write "
                "it back advanced), so two threads inside it at once get the same block; with "
                "`use_bfc_allocator` false, TensorFlow calls `allocate` for every tensor from "
                "many threads.",
            .how_to_fix =
                "Protect the allocator's state with a mutex or update it atomically "
                "(`atomic_fetch_add` on the offset), and test allocation from several threads.",
            .proven_by = "`OVERLAPPING_ALLOCATIONS`") {
  SkipUnlessProvided(check, {PluginFunction::kAllocate, PluginFunction::kDeallocate});
  const host::Device& device = check.device();
  std::vector<ThreadAllocations> results(kAllocatingThreads);
  {
    std::latch start(kAllocatingThreads);
    std::vector<std::jthread> threads;
    threads.reserve(kAllocatingThreads);
    for (int t = 0; t < kAllocatingThreads; ++t) {
      threads.emplace_back([&device, &start, &mine = results[t], t] {
        start.arrive_and_wait();  // all threads allocate at the same moment
        for (int i = 0; i < kAllocationsPerThread; ++i) {
          const uint64_t size = kConcurrentSizes[(i + t) % kConcurrentSizes.size()];
          auto memory = device.Allocate(size);
          if (!memory) {
            mine.error = memory.error().message();
            return;
          }
          mine.memory.push_back(std::move(*memory));
          mine.sizes.push_back(size);
        }
      });
    }
  }
  std::vector<Range> ranges;
  for (size_t t = 0; t < results.size(); ++t) {
    if (!results[t].error.empty()) {
      check.Fail(fmt::format("thread {} could not allocate: {}", t, results[t].error));
    }
    for (size_t i = 0; i < results[t].memory.size(); ++i) {
      ranges.push_back({reinterpret_cast<uintptr_t>(results[t].memory[i].opaque()),
                        results[t].sizes[i],
                        fmt::format("thread {}'s block of {}", t, Bytes(results[t].sizes[i])),
                        static_cast<int>(t)});
    }
  }
  check.details() = {
      {"threads", kAllocatingThreads}, {"allocations", ranges.size()}, {"sizes", kConcurrentSizes}};
  if (auto overlap = FindOverlap(ranges)) {
    if (overlap->first.thread == overlap->second.thread) {
      // Made one after another by one thread: no race is needed to explain it.
      check.Fail(fmt::format(
          "while {} threads allocated at once, blocks that one thread allocated one after "
          "another overlap: {}. That is not a race between threads: allocate hands out memory "
          "that is still in use, and two tensors would share it",
          kAllocatingThreads, Describe(*overlap)));
    } else {
      check.Fail(fmt::format(
          "blocks allocated by different threads at the same time overlap: {}. TensorFlow "
          "allocates from many threads (its executor runs ops in parallel), and two tensors "
          "would share memory",
          Describe(*overlap)));
    }
  }
  // Freed from their own threads, at once, as TensorFlow frees them.
  std::vector<std::jthread> freeing;
  freeing.reserve(results.size());
  for (auto& mine : results) {
    freeing.emplace_back([&mine] { mine.memory.clear(); });
  }
}

// ---------------------------------------------------------------------------
// Host and unified memory
// ---------------------------------------------------------------------------

constexpr std::array<uint64_t, 4> kHostSizes = {1, 100, 4097, kMiB + 3};

namespace {

// Allocates each of kHostSizes of `kind`, and fails for blocks that are
// misaligned or do not hold what the host writes into them.
void CheckHostAccessibleMemory(conform::CheckContext& check, host::HostMemoryKind kind,
                               std::string_view allocate_name) {
  const host::Device& device = check.device();
  nlohmann::json blocks = nlohmann::json::array();
  std::vector<std::string> misaligned;
  std::vector<std::string> unusable;
  for (uint64_t size : kHostSizes) {
    auto memory = check.Require(device.AllocateHost(kind, size),
                                fmt::format("{}({})", allocate_name, Bytes(size)));
    blocks.push_back({{"size", size}, {"address", Address(memory.data())}});
    if (const uint64_t past = MisalignmentOf(memory.data()); past != 0) {
      misaligned.push_back(fmt::format("{}({}) returned {}, {} past a 64-byte boundary",
                                       allocate_name, Bytes(size), Address(memory.data()),
                                       Bytes(past)));
    }
    // Written and read as TensorFlow would, directly; where the plugin is
    // (its server's process, or this one).
    const auto pattern = conform::TestPattern(size, static_cast<unsigned>(size));
    const auto& dispatcher = device.dispatcher();
    if (auto written =
            dispatcher.WritePluginMemory(memory.data(), std::as_bytes(std::span(pattern)));
        !written) {
      unusable.push_back(fmt::format("{}: {}", Bytes(size), written.error().message()));
      continue;
    }
    auto read = dispatcher.ReadPluginMemory(memory.data(), size);
    if (!read) {
      unusable.push_back(fmt::format("{}: {}", Bytes(size), read.error().message()));
      continue;
    }
    if (auto difference = conform::FirstDifference(
            pattern.data(), reinterpret_cast<const unsigned char*>(read->data()), size);
        !difference.empty()) {
      unusable.push_back(fmt::format("{}: {}", Bytes(size), difference));
    }
  }
  check.details()["blocks"] = std::move(blocks);
  if (!misaligned.empty()) {
    check.Fail(fmt::format(
        "{} of {} blocks are not 64-byte aligned ({}): TensorFlow places tensors in this memory "
        "and CHECK-fails (\"Check failed: IsAligned()\") on a misaligned one, aborting the "
        "process",
        misaligned.size(), kHostSizes.size(), Summary(misaligned)));
  }
  if (!unusable.empty()) {
    check.Fail(fmt::format("blocks from {} do not hold what the host writes into them ({})",
                           allocate_name, Summary(unusable)));
  }
}

}  // namespace

SECTL_CHECK("memory.host_memory", kRequired,
            "host_memory_allocate returns 64-byte aligned host memory the host can use",
            .tests = {kHostMemoryAllocate},
            .severity_reason =
                "TensorFlow 2.5 and later take the device's pinned host tensors from "
                "host_memory_allocate (the pluggable device's host allocator) and CHECK their "
                "64-byte alignment like any tensor's",
            .establishes =
                "`host_memory_allocate` of 1, 100, 4097 and 1 MiB+3 bytes returns 64-byte "
                "aligned memory that holds what the host writes into it",
            .common_mistakes =
                "Pinned host memory taken from plain `malloc` (16-byte aligned), or offset by a "
                "header the plugin keeps in front of it.",
            .how_to_fix =
                "Align host allocations to 64 bytes, as for device memory (`aligned_alloc(64, "
                "...)`, or the driver's pinned allocator with that alignment).",
            .proven_by = "`UNALIGNED_HOST_MEMORY`") {
  SkipUnlessProvided(check,
                     {PluginFunction::kHostMemoryAllocate, PluginFunction::kHostMemoryDeallocate});
  CheckHostAccessibleMemory(check, host::HostMemoryKind::kPinned, "host_memory_allocate");
}

SECTL_CHECK(
    "memory.unified_memory", kRecommended,
    "unified_memory_allocate returns 64-byte aligned memory the host can use, where the "
    "platform supports unified memory",
    .tests = {kUnifiedMemoryAllocate},
    .severity_reason =
        "No released TensorFlow allocates unified memory for a pluggable device (its "
        "device factory answers \"Unified memory is not supported yet\"); TensorFlow "
        "only requires the member to be set when supports_unified_memory is true",
    .establishes =
        "where the platform sets `supports_unified_memory`, `unified_memory_allocate` of "
        "1, 100, 4097 and 1 MiB+3 bytes returns 64-byte aligned memory that holds what "
        "the host writes into it (skipped otherwise)",
    .common_mistakes = "Unified memory taken from an allocator with less than 64-byte alignment.",
    .how_to_fix =
        "Align unified allocations to 64 bytes; or leave `supports_unified_memory` "
        "false, since no released TensorFlow asks a pluggable device for unified memory.",
    .proven_by = "`UNALIGNED_UNIFIED_MEMORY`") {
  if (!check.platform().supports_unified_memory()) {
    check.Skip(
        "the platform does not set supports_unified_memory (optional), so TensorFlow "
        "never asks for unified memory");
  }
  SkipUnlessProvided(
      check, {PluginFunction::kUnifiedMemoryAllocate, PluginFunction::kUnifiedMemoryDeallocate});
  CheckHostAccessibleMemory(check, host::HostMemoryKind::kUnified, "unified_memory_allocate");
}

// ---------------------------------------------------------------------------
// Allocator statistics
// ---------------------------------------------------------------------------

namespace {

nlohmann::json Describe(const SP_AllocatorStats& stats) {
  return {{"num_allocs", stats.num_allocs},
          {"bytes_in_use", stats.bytes_in_use},
          {"peak_bytes_in_use", stats.peak_bytes_in_use},
          {"largest_alloc_size", stats.largest_alloc_size},
          {"has_bytes_limit", stats.has_bytes_limit != 0},
          {"bytes_limit", stats.bytes_limit}};
}

// The statistics now; the check skips where the plugin keeps none.
SP_AllocatorStats RequireStats(conform::CheckContext& check, const host::Device& device) {
  const auto stats = check.Require(device.QueryAllocatorStats(), "get_allocator_stats");
  if (!stats) {
    check.Skip(
        "get_allocator_stats returns false: the plugin keeps no allocator statistics, "
        "which TensorFlow accepts (it then reports none)");
  }
  return *stats;
}

// A warning unless `condition` holds: the statistics are a recommendation.
void Recommend(conform::CheckContext& check, bool condition, std::string message) {
  if (!condition) check.Warn(std::move(message));
}

// What must hold in any one snapshot.
void ExpectSelfConsistent(conform::CheckContext& check, const SP_AllocatorStats& stats,
                          std::string_view when) {
  Recommend(check, stats.bytes_in_use >= 0 && stats.peak_bytes_in_use >= stats.bytes_in_use,
            fmt::format("{}, get_allocator_stats reports bytes_in_use = {} and "
                        "peak_bytes_in_use = {}: the peak can never be below what is in use",
                        when, stats.bytes_in_use, stats.peak_bytes_in_use));
  if (stats.has_bytes_limit != 0) {
    Recommend(check, stats.bytes_in_use <= stats.bytes_limit,
              fmt::format("{}, bytes_in_use = {} exceeds the reported bytes_limit = {}", when,
                          stats.bytes_in_use, stats.bytes_limit));
  }
}

// The largest limit the check exceeds on purpose: allocating beyond it must
// fail, but a plugin that does not enforce it really hands the memory out.
constexpr int64_t kLargestTestableLimit = int64_t{1} << 30;

// Where the statistics report a bytes_limit small enough to exceed, asks for
// one byte more than it leaves, which must fail cleanly (no memory).
void CheckLimitIsEnforced(conform::CheckContext& check, const host::Device& device,
                          const SP_AllocatorStats& stats) {
  if (stats.has_bytes_limit == 0) {
    check.details()["bytes_limit_tested"] = "no: has_bytes_limit is false";
    return;
  }
  const int64_t beyond = stats.bytes_limit - stats.bytes_in_use + 1;
  if (beyond > kLargestTestableLimit) {
    check.details()["bytes_limit_tested"] = fmt::format(
        "no: the reported bytes_limit ({}, {} in use) is too large to exceed, as sectl "
        "allocates at most 1 GiB to test a limit",
        Roughly(stats.bytes_limit), Bytes(stats.bytes_in_use));
    return;
  }
  const auto size = static_cast<uint64_t>(std::max<int64_t>(beyond, 1));
  const SP_DeviceMemoryBase memory = check.Require(host::UnusualCalls::Allocate(device, size),
                                                   fmt::format("allocate({})", Bytes(size)));
  check.details()["bytes_limit_tested"] = fmt::format("yes: asked for {}", Bytes(size));
  if (memory.opaque != nullptr) {
    RawAllocation{device, memory}.FreeAsTensorFlowDoes();
    check.Warn(fmt::format(
        "allocate gave {} although get_allocator_stats reports a bytes_limit of {} with {} in "
        "use: a limit that is not enforced misleads TensorFlow's memory reports and whoever "
        "sizes work by them",
        Bytes(size), Bytes(stats.bytes_limit), Bytes(stats.bytes_in_use)));
  }
}

}  // namespace

SECTL_CHECK("memory.allocator_stats", kRecommended,
            "get_allocator_stats counts allocations, bytes_in_use rises and falls with them, and "
            "a reported bytes_limit is enforced",
            .tests = {kGetAllocatorStats},
            .severity_reason =
                "TensorFlow only reports the statistics (memory profiling, tf.config "
                "get_memory_info) and treats a false return as 'unavailable'",
            .establishes =
                "while 1 MiB and 3 MiB+7 bytes are held, `bytes_in_use` rises by at least their "
                "sum and `num_allocs` by 2; after they are freed, `bytes_in_use` returns; "
                "`peak_bytes_in_use` is never below `bytes_in_use`; a `bytes_limit` of 1 GiB or "
                "less (with `has_bytes_limit`) is enforced: asking for more than it leaves fails",
            .common_mistakes =
                "Statistics that only ever grow (`deallocate` forgets to subtract); a "
                "`bytes_limit` reported but never checked by `allocate`. TensorFlow's own test "
                "plugin returns true without filling anything.",
            .how_to_fix =
                "Keep the counters in `allocate` and `deallocate` under one lock; report "
                "`has_bytes_limit` only for a limit `allocate` enforces; return false when you "
                "keep no statistics.",
            .proven_by =
                "`STATS_NOT_RELEASED`, `LIMIT_NOT_ENFORCED`; `STATS_CRASH` (a crash, which makes "
                "it required)") {
  SkipUnlessProvided(check, {PluginFunction::kAllocate, PluginFunction::kDeallocate,
                             PluginFunction::kGetAllocatorStats});
  const host::Device& device = check.device();
  const SP_AllocatorStats before = RequireStats(check, device);
  ExpectSelfConsistent(check, before, "before allocating");

  constexpr std::array<uint64_t, 2> kSizes = {kMiB, 3 * kMiB + 7};
  std::vector<RawAllocation> held;
  held.reserve(kSizes.size());
  for (uint64_t size : kSizes) {
    held.push_back(RequireRawAllocation(check, device, size));
  }
  const SP_AllocatorStats during = RequireStats(check, device);
  // Freed with the struct allocate filled: whether TensorFlow's opaque-only
  // free works is memory.deallocate's question, not this one's.
  for (RawAllocation& allocation : held) allocation.FreeAsReturned();
  const SP_AllocatorStats after = RequireStats(check, device);
  check.details() = {
      {"before", Describe(before)}, {"holding", Describe(during)}, {"after", Describe(after)}};

  const auto requested = static_cast<int64_t>(kSizes[0] + kSizes[1]);
  ExpectSelfConsistent(check, during, "holding two allocations");
  ExpectSelfConsistent(check, after, "after freeing them");
  Recommend(check, during.bytes_in_use - before.bytes_in_use >= requested,
            fmt::format("allocating {} in two blocks raised bytes_in_use only from {} to {}: "
                        "TensorFlow's memory reports would understate what is in use",
                        Bytes(requested), before.bytes_in_use, during.bytes_in_use));
  Recommend(check, during.num_allocs - before.num_allocs >= 2,
            fmt::format("two allocations moved num_allocs from {} to {}", before.num_allocs,
                        during.num_allocs));
  Recommend(check, after.bytes_in_use <= before.bytes_in_use,
            fmt::format("bytes_in_use was {} before two allocations and is {} after both were "
                        "freed: freed memory is never given back in the statistics, so "
                        "TensorFlow sees usage grow without end",
                        before.bytes_in_use, after.bytes_in_use));
  Recommend(check, after.peak_bytes_in_use >= during.bytes_in_use,
            fmt::format("peak_bytes_in_use is {} after bytes_in_use reached {}",
                        after.peak_bytes_in_use, during.bytes_in_use));
  CheckLimitIsEnforced(check, device, after);
}

// ---------------------------------------------------------------------------
// device_memory_usage
// ---------------------------------------------------------------------------

SECTL_CHECK(
    "memory.usage", kRequired, "device_memory_usage returns true with 0 <= free <= total",
    .tests = {kDeviceMemoryUsage},
    .severity_reason =
        "TensorFlow 2.5 and later size the device's memory pool from "
        "device_memory_usage when creating the device, and fail device creation "
        "(\"Failed to query available memory\") when it returns false",
    .establishes = "`device_memory_usage` returns true, with total > 0 and 0 <= free <= total",
    .common_mistakes =
        "Returning false when the driver cannot say (TensorFlow then fails to create the "
        "device), or returning true without filling `free` and `total` (TensorFlow's own "
        "test plugin does).",
    .how_to_fix =
        "Always return true with real numbers; where the device cannot tell, report its "
        "capacity as total and an estimate of what is free.",
    .proven_by = "`USAGE_RETURNS_FALSE`") {
  SkipUnlessProvided(check, {PluginFunction::kDeviceMemoryUsage});
  const host::MemoryUsage usage =
      check.Require(check.device().QueryMemoryUsage(), "device_memory_usage");
  check.details() = {{"free_bytes", usage.free_bytes}, {"total_bytes", usage.total_bytes}};
  // The judgement `sectl probe` reports too (host/memory_usage_judgement.h).
  for (std::string& problem : host::MemoryUsageProblems(usage)) check.Fail(std::move(problem));
}

// How much a check takes to see free memory drop, and how much of that drop
// must show despite other processes using the same memory.
constexpr uint64_t kTakenForUsage = 64 * kMiB;
constexpr int64_t kExpectedDrop = kTakenForUsage / 2;
constexpr int kUsageAttempts = 3;

namespace {

int64_t PhysicalMemoryBytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page_size > 0 ? static_cast<int64_t>(pages) * page_size : 0;
}

// Writes every page of `memory`, for devices (or plugins reading the
// system's free memory) that commit memory only when it is first touched:
// with sync_memcpy_htod, or memcpy_htod and a wait where the check avoids it.
void Touch(conform::CheckContext& check, const host::Device& device,
           const host::DeviceMemory& memory, uint64_t bytes) {
  const conform::HostBytes chunk(kMiB, 0x11);
  std::unique_ptr<host::Stream> stream;
  if (check.Avoids(PluginFunction::kSyncMemcpyHtoD)) {
    stream = check.Require(device.CreateStream(), "create_stream (touching the memory taken)");
  }
  for (uint64_t offset = 0; offset < bytes; offset += chunk.size()) {
    const uint64_t size = std::min<uint64_t>(chunk.size(), bytes - offset);
    if (!stream) {
      check.Require(device.SyncMemcpyHtoD(memory.Slice(offset, size), chunk.data(), size),
                    "sync_memcpy_htod (touching the memory taken)");
      continue;
    }
    check.Require(stream->MemcpyHtoD(memory.Slice(offset, size), chunk.data(), size),
                  "memcpy_htod (touching the memory taken)");
  }
  if (stream) {
    check.Require(conform::WaitForStream(check, *stream),
                  "waiting for the stream (touching the memory taken)");
  }
}

}  // namespace

SECTL_CHECK("memory.usage_tracks_allocations", kRecommended,
            "The free memory device_memory_usage reports drops when memory is allocated",
            .tests = {kDeviceMemoryUsage},
            .severity_reason =
                "TensorFlow reads device_memory_usage once, when it creates the device, so "
                "free memory that never drops misleads only later readers (a pooled "
                "allocator with constant free memory is common and harmless)",
            .establishes =
                "while 64 MiB are allocated (and written to all of it, for devices that commit "
                "memory on first touch), the free memory `device_memory_usage` reports drops by "
                "at least 32 MiB, in one of 3 attempts; free memory that follows the host's RAM "
                "is not judged",
            .common_mistakes =
                "Reporting all memory as free whatever is allocated, or a constant; a pooled "
                "allocator that never updates the figure (common and harmless to TensorFlow, "
                "which reads it once).",
            .how_to_fix =
                "Report free memory as the device (or your allocator's accounting) sees it at "
                "the time of the call.",
            .proven_by = "`FREE_NEVER_DROPS`") {
  SkipUnlessProvided(check, {PluginFunction::kAllocate, PluginFunction::kDeallocate,
                             PluginFunction::kDeviceMemoryUsage, PluginFunction::kSyncMemcpyHtoD});
  const host::Device& device = check.device();
  // device_memory_usage failing fails this check, which tests it, as it
  // does memory.usage: what it establishes cannot be seen.
  auto read_free = [&] {
    return check.Require(device.QueryMemoryUsage(), "device_memory_usage").free_bytes;
  };
  const int64_t initially_free = read_free();
  if (initially_free < static_cast<int64_t>(2 * kTakenForUsage)) {
    check.Skip(fmt::format("only {} is free; the check takes {}", Roughly(initially_free),
                           Bytes(kTakenForUsage)));
  }
  // Other processes may take or give back memory meanwhile: a drop of half
  // the size in any attempt suffices, and every reading is kept.
  std::vector<int64_t> readings;
  int64_t largest_drop = 0;
  for (int attempt = 0; attempt < kUsageAttempts && largest_drop < kExpectedDrop; ++attempt) {
    const int64_t free_before = read_free();
    auto memory = check.Require(device.Allocate(kTakenForUsage), "allocate(64 MiB)");
    int64_t free_holding = read_free();
    if (free_before - free_holding < kExpectedDrop) {
      Touch(check, device, memory, kTakenForUsage);
      free_holding = read_free();
    }
    memory.Release();
    readings.insert(readings.end(), {free_before, free_holding, read_free()});
    largest_drop = std::max(largest_drop, free_before - free_holding);
  }
  const int64_t total = check.Require(device.QueryMemoryUsage(), "device_memory_usage").total_bytes;
  check.details() = {{"taken_bytes", kTakenForUsage},
                     {"free_readings", readings},
                     {"largest_drop", largest_drop},
                     {"total_bytes", total}};
  if (largest_drop >= kExpectedDrop) return;

  const bool never_changed = std::all_of(readings.begin(), readings.end(),
                                         [&](int64_t free) { return free == readings.front(); });
  if (never_changed) {
    check.Warn(fmt::format(
        "device_memory_usage reports {} free whatever is allocated: it stayed the same while "
        "sectl took {} and wrote to all of it, {} times over. TensorFlow sizes its memory pool "
        "from this number, counting on memory that is already taken",
        Roughly(readings.front()), Bytes(kTakenForUsage), kUsageAttempts));
    return;
  }
  // A device whose memory is the host's RAM may report the system's free
  // memory, which every other process moves too: not judged.
  const int64_t physical = PhysicalMemoryBytes();
  if (physical > 0 && std::abs(total - physical) <= physical / 10) {
    check.details()["not_judged"] =
        "free memory follows the host's RAM, which other processes move as well";
    return;
  }
  check.Warn(fmt::format(
      "free memory dropped by at most {} while sectl held {} ({} attempts): TensorFlow sizes "
      "its memory pool from free memory, and would count on memory that is already taken",
      Bytes(largest_drop), Bytes(kTakenForUsage), kUsageAttempts));
}

}  // namespace sectl::checks
