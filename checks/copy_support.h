// What the copy and fill checks share: device allocations whose every byte
// sectl knows, with the range an operation targets in their interior (as
// TensorFlow passes a tensor inside a BFC region) and sentinel bytes on both
// sides, set and read back whole through copies other than the one under test.
//
// Why not simply copy in and back out? Each check must blame the form it tests
// and no other. So every allocation is set and read back through one of four
// verification paths, a host-to-device copy paired with a device-to-host copy
// (synchronous, or on a stream), chosen per allocation: the first pair whose
// whole-allocation round trips return exactly what was written, twice with
// different contents (a reader returning a stale copy fails the second),
// preferring pairs that do not involve the form under test. With one broken
// form among the four, some pair avoids it, so only that form's check fails.
// A form the check only uses and that failed (or crashed or hung in an
// earlier run of the check: CheckContext::Avoids) is left out, so a seed
// through a crashing sync_memcpy_htod falls back to memcpy_htod plus a wait,
// and the other way round. When no pair is left, the check is blocked by the
// broken form it only uses; only a check that tests one of the forms and
// finds no pair working fails.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "abi/host_generations.h"
#include "abi/plugin_functions.h"
#include "conform/check.h"
#include "conform/check_support.h"
#include "host/device.h"
#include "host/memory.h"
#include "host/platform.h"
#include "host/stream.h"

namespace sectl::checks::copies {

// Sentinel bytes on each side of a range: BFC chunks are multiples of 256
// bytes, so a range starting 256 bytes into an allocation is a typical
// tensor inside a larger region.
inline constexpr uint64_t kSentinelBytes = 256;

// Seeds of conform::TestPattern, so that every kind of content differs from
// every other at every position.
inline constexpr unsigned kBackgroundSeed = 1;
inline constexpr unsigned kSourceBackgroundSeed = 2;
inline constexpr unsigned kPayloadSeed = 3;
inline constexpr unsigned kSecondPayloadSeed = 4;
inline constexpr unsigned kHostBackgroundSeed = 5;

// ---------------------------------------------------------------------------
// The six copy forms
// ---------------------------------------------------------------------------

enum class CopyForm { kHtoD, kDtoH, kDtoD, kSyncHtoD, kSyncDtoH, kSyncDtoD };

inline constexpr std::array kAllCopyForms = {CopyForm::kHtoD,     CopyForm::kDtoH,
                                             CopyForm::kDtoD,     CopyForm::kSyncHtoD,
                                             CopyForm::kSyncDtoH, CopyForm::kSyncDtoD};

inline abi::PluginFunction FunctionOf(CopyForm form) {
  switch (form) {
    case CopyForm::kHtoD:
      return abi::PluginFunction::kMemcpyHtoD;
    case CopyForm::kDtoH:
      return abi::PluginFunction::kMemcpyDtoH;
    case CopyForm::kDtoD:
      return abi::PluginFunction::kMemcpyDtoD;
    case CopyForm::kSyncHtoD:
      return abi::PluginFunction::kSyncMemcpyHtoD;
    case CopyForm::kSyncDtoH:
      return abi::PluginFunction::kSyncMemcpyDtoH;
    case CopyForm::kSyncDtoD:
      return abi::PluginFunction::kSyncMemcpyDtoD;
  }
  throw std::logic_error("unknown copy form");
}

// "memcpy_htod"
inline std::string_view MemberOf(CopyForm form) { return abi::InfoOf(FunctionOf(form)).member; }

inline std::string_view MemberOf(abi::PluginFunction function) {
  return abi::InfoOf(function).member;
}

// "1 byte", "13 bytes"
inline std::string CountOfBytes(uint64_t size) {
  return size == 1 ? "1 byte" : fmt::format("{} bytes", size);
}

// Skips the check when the plugin does not provide `function`, saying
// whether the chosen TensorFlow generation lets it (optional or never called)
// or another check already reports it (create_stream_executor failed, or a
// required member is missing).
inline void SkipUnlessProvided(conform::CheckContext& check, abi::PluginFunction function) {
  const host::Platform& platform = check.platform();
  if (platform.Provides(function)) return;
  for (const host::Finding& finding : platform.findings().all()) {
    if (finding.id == "platform.create_stream_executor.failed") {
      check.Skip(
          fmt::format("the plugin gave this host no SP_StreamExecutor ({}); "
                      "registration.init reports it",
                      finding.message));
    }
  }
  const std::string_view member = MemberOf(function);
  const abi::HostGeneration& generation = check.generation();
  switch (abi::RequirementOf(function, generation, platform.supports_unified_memory())) {
    case abi::Requirement::kValidated:
      check.Skip(
          fmt::format("the plugin does not provide {}, which {} requires; "
                      "registration.required_callbacks reports it",
                      member, generation.description));
    case abi::Requirement::kCalledUnconditionally:
      check.Skip(
          fmt::format("the plugin does not provide {}, which {} calls without checking for "
                      "null; registration.required_callbacks reports it",
                      member, generation.description));
    case abi::Requirement::kOptional:
      check.Skip(fmt::format("the plugin does not provide {} (optional)", member));
    case abi::Requirement::kUnused:
      break;
  }
  check.Skip(fmt::format("the plugin does not provide {}, which {} never calls (optional for it)",
                         member, generation.description));
}

// Stops the check as blocked when `error` is a plugin function's that the
// check only uses (a stream it could not create, a wait that failed): the
// check testing that function reports it. Returns otherwise, for the caller
// to report an error of a function under test.
inline void BlockIfOnlyUsed(conform::CheckContext& check, std::string_view doing,
                            const Error& error) {
  const auto culprit = error.culprit();
  if (culprit && !check.Tests(*culprit)) {
    check.Blocked(*culprit, fmt::format("{}: {}", doing, error.message()));
  }
}

// ---------------------------------------------------------------------------
// Running copies and fills to completion
// ---------------------------------------------------------------------------

// Runs copies of any form and stream work to completion: a form on a stream
// is followed by a wait, so that every form leaves its result in place when
// it returns and callers can treat synchronous and stream forms alike.
class CopyEngine {
 public:
  explicit CopyEngine(conform::CheckContext& check) : check_(check), device_(check.device()) {}

  const host::Device& device() const { return device_; }

  // The stream for the stream forms, created on first use (so that a check
  // of synchronous forms needs none).
  Expected<host::Stream*> stream() {
    if (!stream_) {
      auto created = device_.CreateStream();
      if (!created) return tl::unexpected(created.error());
      stream_ = std::move(*created);
    }
    return stream_.get();
  }

  // `enqueue` on the stream, then waits for the stream, whatever `enqueue`
  // returned: a plugin that failed an enqueue may still have queued work
  // on buffers the caller is about to free.
  Expected<void> OnStream(const std::function<Expected<void>(host::Stream&)>& enqueue) {
    auto stream = this->stream();
    if (!stream) return tl::unexpected(stream.error());
    auto enqueued = enqueue(**stream);
    auto waited = WaitFor(**stream);
    if (!enqueued) return enqueued;
    return waited;
  }

  Expected<void> ToDevice(CopyForm form, SP_DeviceMemoryBase destination, const void* source,
                          uint64_t size) {
    if (form == CopyForm::kSyncHtoD) return device_.SyncMemcpyHtoD(destination, source, size);
    return OnStream(
        [&](host::Stream& stream) { return stream.MemcpyHtoD(destination, source, size); });
  }

  Expected<void> ToHost(CopyForm form, void* destination, SP_DeviceMemoryBase source,
                        uint64_t size) {
    if (form == CopyForm::kSyncDtoH) return device_.SyncMemcpyDtoH(destination, source, size);
    return OnStream(
        [&](host::Stream& stream) { return stream.MemcpyDtoH(destination, source, size); });
  }

  Expected<void> WithinDevice(CopyForm form, SP_DeviceMemoryBase destination,
                              SP_DeviceMemoryBase source, uint64_t size) {
    if (form == CopyForm::kSyncDtoD) return device_.SyncMemcpyDtoD(destination, source, size);
    return OnStream(
        [&](host::Stream& stream) { return stream.MemcpyDtoD(destination, source, size); });
  }

 private:
  // block_host_until_done (or TensorFlow's event fallback), then
  // synchronize_all_activity: two independent ways, so that one returning
  // early (which the stream and event checks report) cannot make a correct
  // copy look wrong here. Only the first one's error counts: it is the
  // stream's own status, where an asynchronous copy reports failure. A way
  // that crashed or hung in an earlier run of the check is left out.
  Expected<void> WaitFor(host::Stream& stream) const {
    using abi::PluginFunction;
    const bool block = !check_.Avoids(PluginFunction::kBlockHostUntilDone);
    const bool synchronize = !check_.Avoids(PluginFunction::kSynchronizeAllActivity);
    if (!block && !synchronize) {
      return PluginFailure(PluginFunction::kBlockHostUntilDone,
                           "no way is left to wait for a stream: block_host_until_done and "
                           "synchronize_all_activity both failed earlier");
    }
    Expected<void> waited;
    if (block) waited = stream.BlockHostUntilDone();
    if (synchronize) {
      auto synchronized = device_.SynchronizeAllActivity();
      if (!block) waited = std::move(synchronized);
    }
    return waited;
  }

  conform::CheckContext& check_;
  const host::Device& device_;
  std::unique_ptr<host::Stream> stream_;
};

// ---------------------------------------------------------------------------
// Fenced allocations
// ---------------------------------------------------------------------------

// Where an operation's range lies in its allocation.
struct FenceLayout {
  uint64_t offset = kSentinelBytes;  // sentinel bytes in front of the range
  uint64_t size = 0;                 // the range itself
  uint64_t tail = kSentinelBytes;    // sentinel bytes after it
  uint64_t total() const { return offset + size + tail; }
};

// One way to set a whole allocation from the host and read it back.
struct VerificationPath {
  CopyForm writer;  // kHtoD or kSyncHtoD
  CopyForm reader;  // kDtoH or kSyncDtoH

  bool Involves(CopyForm form) const { return writer == form || reader == form; }
  std::string Describe() const {
    return fmt::format("{} and {}", MemberOf(writer), MemberOf(reader));
  }
};

// A device allocation, what it must hold, and the path that confirmed it.
class FencedAllocation {
 public:
  FencedAllocation(host::DeviceMemory memory, FenceLayout layout, VerificationPath path,
                   conform::HostBytes expected)
      : memory_(std::move(memory)), layout_(layout), path_(path), expected_(std::move(expected)) {}

  const FenceLayout& layout() const { return layout_; }
  const VerificationPath& path() const { return path_; }

  // The range under test, as TensorFlow passes a tensor inside a larger
  // allocation: an interior `opaque`, `size` bytes, `payload` 0.
  SP_DeviceMemoryBase range() const { return memory_.Slice(layout_.offset, layout_.size); }
  SP_DeviceMemoryBase Slice(uint64_t offset, uint64_t size) const {
    return memory_.Slice(offset, size);
  }
  SP_DeviceMemoryBase whole() const { return memory_.Slice(0, layout_.total()); }

  // What the whole allocation must read back as; a check writes what its
  // operation should produce into expected_range().
  const conform::HostBytes& expected() const { return expected_; }
  std::span<unsigned char> expected_range() {
    return std::span(expected_).subspan(layout_.offset, layout_.size);
  }

  // Whether the two allocations share a byte (allocate handed out the same
  // memory twice; the memory checks report that).
  bool Overlaps(const FencedAllocation& other) const {
    const auto* begin = static_cast<const unsigned char*>(memory_.opaque());
    const auto* other_begin = static_cast<const unsigned char*>(other.memory_.opaque());
    return begin < other_begin + other.layout_.total() && other_begin < begin + layout_.total();
  }

 private:
  host::DeviceMemory memory_;
  FenceLayout layout_;
  VerificationPath path_;
  conform::HostBytes expected_;
};

// What differs between what an allocation holds and what it should.
struct Damage {
  std::string description;    // "" when nothing differs
  bool in_range = false;      // the operation's own result is wrong
  bool around_range = false;  // bytes outside its range changed

  bool none() const { return description.empty(); }
};

inline constexpr std::string_view kCorruptsTensor =
    "TensorFlow would compute on a corrupted tensor";
inline constexpr std::string_view kCorruptsNeighbours =
    "with TensorFlow's BFC allocator the bytes around a tensor belong to its neighbours, which "
    "would be corrupted";

// What a check found, size by size, with what it means to TensorFlow said
// once at the end, so that a long message still reads as one.
class Problems {
 public:
  void Add(std::string problem) { problems_.push_back(std::move(problem)); }

  // "<operation>: <damage>", explained as damage to TensorFlow's tensors.
  void Add(std::string_view operation, const Damage& damage) {
    Add(fmt::format("{}: {}", operation, damage.description));
    if (damage.in_range) Explain(kCorruptsTensor);
    if (damage.around_range) Explain(kCorruptsNeighbours);
  }

  void Explain(std::string_view consequence) {
    if (std::find(consequences_.begin(), consequences_.end(), consequence) == consequences_.end()) {
      consequences_.emplace_back(consequence);
    }
  }

  bool empty() const { return problems_.empty(); }

  std::string Describe() const {
    std::string text;
    for (const std::vector<std::string>* list : {&problems_, &consequences_}) {
      for (const std::string& part : *list) {
        if (!text.empty()) text += "; ";
        text += part;
      }
    }
    return text;
  }

 private:
  std::vector<std::string> problems_;
  std::vector<std::string> consequences_;
};

// "byte 12 of the range reads 0x00 where 0x5a belongs" and the like: what
// differs between `expected` and `actual` in front of, inside and after the
// range `layout` describes.
inline Damage FindDamage(const FenceLayout& layout, std::span<const unsigned char> expected,
                         std::span<const unsigned char> actual) {
  const uint64_t begin = layout.offset;
  const uint64_t end = layout.offset + layout.size;
  std::optional<uint64_t> last_in_front;  // the one nearest the range says most
  std::optional<uint64_t> first_inside;
  std::optional<uint64_t> first_after;
  uint64_t wrong_inside = 0;
  for (uint64_t i = 0; i < expected.size(); ++i) {
    if (expected[i] == actual[i]) continue;
    if (i < begin) {
      last_in_front = i;
    } else if (i < end) {
      if (!first_inside) first_inside = i;
      ++wrong_inside;
    } else if (!first_after) {
      first_after = i;
    }
  }
  std::vector<std::string> parts;
  if (first_inside) {
    const uint64_t i = *first_inside;
    parts.push_back(
        fmt::format("byte {} of the range reads 0x{:02x} where 0x{:02x} belongs ({} of "
                    "its {} bytes wrong)",
                    i - begin, actual[i], expected[i], wrong_inside, layout.size));
  }
  if (last_in_front) {
    const uint64_t i = *last_in_front;
    parts.push_back(fmt::format(
        "it wrote in front of the range (which starts at byte {}): byte {} of the allocation "
        "changed from 0x{:02x} to 0x{:02x}",
        begin, i, expected[i], actual[i]));
  }
  if (first_after) {
    const uint64_t i = *first_after;
    parts.push_back(fmt::format(
        "it wrote past the end of the range (which ends before byte {}): byte {} of the "
        "allocation changed from 0x{:02x} to 0x{:02x}",
        end, i, expected[i], actual[i]));
  }
  Damage damage{.in_range = first_inside.has_value(),
                .around_range = last_in_front.has_value() || first_after.has_value()};
  for (const std::string& part : parts) {
    if (!damage.description.empty()) damage.description += "; ";
    damage.description += part;
  }
  return damage;
}

// Makes fenced allocations for a check of one form (or of none: fills) and
// reads them back, through verification paths that avoid that form when
// they can.
class CopyBench {
 public:
  CopyBench(conform::CheckContext& check, std::optional<CopyForm> under_test)
      : check_(check), engine_(check) {
    const std::array<VerificationPath, 4> all = {{{CopyForm::kSyncHtoD, CopyForm::kSyncDtoH},
                                                  {CopyForm::kHtoD, CopyForm::kDtoH},
                                                  {CopyForm::kSyncHtoD, CopyForm::kDtoH},
                                                  {CopyForm::kHtoD, CopyForm::kSyncDtoH}}};
    paths_.assign(all.begin(), all.end());
    if (under_test) {
      std::stable_partition(paths_.begin(), paths_.end(), [&](const VerificationPath& path) {
        return !path.Involves(*under_test);
      });
    }
  }

  CopyEngine& engine() { return engine_; }

  // An allocation laid out as `layout`, filled with recognisable bytes
  // (conform::TestPattern with `seed`) and confirmed through the first
  // verification path that round-trips. Stops the check when none does.
  FencedAllocation Fence(const FenceLayout& layout, unsigned seed) {
    const uint64_t total = layout.total();
    host::DeviceMemory memory = check_.Require(engine_.device().Allocate(total),
                                               fmt::format("allocate of {} bytes", total));
    conform::HostBytes background = conform::TestPattern(total, seed);
    conform::HostBytes inverse(background);
    for (unsigned char& byte : inverse) byte = static_cast<unsigned char>(~byte);
    const SP_DeviceMemoryBase whole = memory.Slice(0, total);

    std::vector<std::string> failures;
    // The copies of the pairs that returned wrong bytes without an error:
    // each pair's writer and reader are equally suspect.
    std::vector<abi::PluginFunction> suspects;
    const auto note_suspect = [&](CopyForm form) {
      if (std::find(suspects.begin(), suspects.end(), FunctionOf(form)) == suspects.end()) {
        suspects.push_back(FunctionOf(form));
      }
    };
    // The functions this check only uses that failed or are avoided, in the
    // order met: the first blocks the check when no path is left.
    std::vector<abi::PluginFunction> broken;
    const auto note_broken = [&](abi::PluginFunction function) {
      if (check_.Tests(function)) return;
      check_.Avoid(function);
      if (std::find(broken.begin(), broken.end(), function) == broken.end()) {
        broken.push_back(function);
      }
    };
    for (const VerificationPath path : paths_) {  // a copy: Remember reorders paths_
      if (const auto avoided = AvoidedFunctionOf(path)) {
        note_broken(*avoided);
        failures.push_back(
            fmt::format("{}: not tried, {} failed earlier", path.Describe(), MemberOf(*avoided)));
        continue;
      }
      // Two different contents: a reader that returns what it read before
      // (a stale cache) fails the second.
      auto confirmed = StoreThrough(path, whole, inverse);
      if (confirmed) confirmed = StoreThrough(path, whole, background);
      if (confirmed) {
        Remember(path);
        return FencedAllocation(std::move(memory), layout, path, std::move(background));
      }
      if (const auto culprit = confirmed.error().culprit()) {
        note_broken(*culprit);
      } else {
        note_suspect(path.writer);
        note_suspect(path.reader);
      }
      failures.push_back(fmt::format("{}: {}", path.Describe(), confirmed.error().message()));
    }
    const std::string what_failed = fmt::format(
        "no way to confirm what the device holds: no pair of a host-to-device and a "
        "device-to-host copy round-tripped a {}-byte allocation ({})",
        total, Join(failures));
    if (!broken.empty()) check_.Blocked(broken.front(), what_failed);
    const std::vector<abi::PluginFunction> ordered = ReadersFirst(suspects);
    NoteCannotTell(ordered);
    if (!TestsAnyCopy()) {
      // Every pair returned wrong bytes without an error: which copy is at
      // fault cannot be told, but the first writer tried is the usual one.
      check_.Blocked(FunctionOf(paths_.front().writer),
                     what_failed + "; the memcpy.* checks report the broken copies");
    }
    std::string beyond = what_failed +
                         "; the copies are broken beyond what one check can attribute, and "
                         "TensorFlow could move no tensor intact";
    // A check that tests several copies names the first suspect it tests,
    // so that its failure joins the root cause that lists the others
    // (details.cannot_tell) rather than standing without one.
    for (const abi::PluginFunction suspect : ordered) {
      if (check_.Tests(suspect)) check_.AbortIn(suspect, std::move(beyond));
    }
    check_.Abort(std::move(beyond));
  }

  // Writes the allocation's expected() contents and confirms them, for a
  // check that changes what a range holds.
  void Store(const FencedAllocation& allocation) {
    check_.Require(StoreThrough(allocation.path(), allocation.whole(), allocation.expected()),
                   "setting an allocation's contents through a path that had worked before");
  }

  // The whole allocation as it reads back now.
  Expected<conform::HostBytes> ReadBack(const FencedAllocation& allocation) {
    return ReadThrough(allocation.path().reader, allocation.whole(), allocation.layout().total());
  }

  // Adds to `problems` what differs in the allocation after `operation`,
  // if anything does.
  void CheckIntact(const FencedAllocation& allocation, std::string_view operation,
                   Problems& problems) {
    auto actual = ReadBack(allocation);
    if (!actual) {
      BlockIfOnlyUsed(check_, fmt::format("reading an allocation back after {}", operation),
                      actual.error());
      problems.Add(fmt::format("after {}, reading the allocation back through {} failed: {}",
                               operation, MemberOf(allocation.path().reader),
                               actual.error().message()));
      return;
    }
    const Damage damage = FindDamage(allocation.layout(), allocation.expected(), *actual);
    if (!damage.none()) problems.Add(operation, damage);
  }

  // The verification paths that confirmed this check's allocations.
  nlohmann::json PathsUsed() const {
    nlohmann::json used = nlohmann::json::array();
    for (const std::string& path : used_) used.push_back(path);
    return used;
  }

 private:
  // Bytes after a read's host destination that must stay as they are; a
  // verification path that writes into them is not trusted.
  static constexpr size_t kReadSlack = 64;
  static constexpr unsigned char kSlackByte = 0xC5;

  Expected<void> StoreThrough(const VerificationPath& path, SP_DeviceMemoryBase whole,
                              std::span<const unsigned char> image) {
    if (auto written = engine_.ToDevice(path.writer, whole, image.data(), image.size()); !written) {
      return written;
    }
    auto read = ReadThrough(path.reader, whole, image.size());
    if (!read) return tl::unexpected(read.error());
    const std::string difference =
        conform::FirstDifference(image.data(), read->data(), image.size());
    if (!difference.empty()) return Fail(ErrorCode::kPluginError, difference);
    return {};
  }

  Expected<conform::HostBytes> ReadThrough(CopyForm reader, SP_DeviceMemoryBase whole,
                                           uint64_t size) {
    conform::HostBytes bytes(size + kReadSlack, kSlackByte);
    if (auto read = engine_.ToHost(reader, bytes.data(), whole, size); !read) {
      return tl::unexpected(read.error());
    }
    const bool slack_intact =
        std::all_of(bytes.begin() + static_cast<std::ptrdiff_t>(size), bytes.end(),
                    [](unsigned char b) { return b == kSlackByte; });
    if (!slack_intact) {
      return Fail(ErrorCode::kPluginError,
                  fmt::format("{} wrote past the end of its {}-byte host destination",
                              MemberOf(reader), size));
    }
    bytes.resize(size);
    return bytes;
  }

  // The first function of `path` that the check avoids and does not test.
  std::optional<abi::PluginFunction> AvoidedFunctionOf(const VerificationPath& path) const {
    for (const CopyForm form : {path.writer, path.reader}) {
      const abi::PluginFunction function = FunctionOf(form);
      if (check_.Avoids(function) && !check_.Tests(function)) return function;
    }
    return std::nullopt;
  }

  // Every pair tried wrote through one of `suspects` and read back through
  // another, and none said it failed: a corrupting writer and a corrupting
  // reader look the same. The report names them together (report::RootCause's
  // cannot_tell_from) instead of blaming whichever the check tests.
  // The readers first: every observation ends in one.
  static std::vector<abi::PluginFunction> ReadersFirst(std::vector<abi::PluginFunction> suspects) {
    std::stable_partition(suspects.begin(), suspects.end(), [](abi::PluginFunction function) {
      return function == FunctionOf(CopyForm::kDtoH) || function == FunctionOf(CopyForm::kSyncDtoH);
    });
    return suspects;
  }

  // `ordered`: ReadersFirst of the suspects.
  void NoteCannotTell(const std::vector<abi::PluginFunction>& ordered) {
    if (ordered.size() < 2) return;
    nlohmann::json names = nlohmann::json::array();
    for (const abi::PluginFunction function : ordered) {
      names.push_back(std::string(abi::QualifiedName(function)));
    }
    check_.details()["cannot_tell"] = {
        {"functions", std::move(names)},
        {"why",
         "every observation wrote through a host-to-device copy and read back through a "
         "device-to-host one, and every pair came back wrong"}};
  }

  bool TestsAnyCopy() const {
    return std::any_of(kAllCopyForms.begin(), kAllCopyForms.end(),
                       [&](CopyForm form) { return check_.Tests(FunctionOf(form)); });
  }

  // Tries `path` first next time: most allocations of a check are confirmed
  // by the same path, and each failed attempt costs two round trips.
  void Remember(const VerificationPath& path) {
    const auto found = std::find_if(paths_.begin(), paths_.end(), [&](const VerificationPath& p) {
      return p.writer == path.writer && p.reader == path.reader;
    });
    std::rotate(paths_.begin(), found, found + 1);
    const std::string described = path.Describe();
    if (std::find(used_.begin(), used_.end(), described) == used_.end()) {
      used_.push_back(described);
    }
  }

  static std::string Join(const std::vector<std::string>& parts) {
    std::string joined;
    for (const std::string& part : parts) {
      if (!joined.empty()) joined += "; ";
      joined += part;
    }
    return joined;
  }

  conform::CheckContext& check_;
  CopyEngine engine_;
  std::vector<VerificationPath> paths_;
  std::vector<std::string> used_;
};

// A host buffer for the host side of a copy under test: `size` bytes ending
// exactly where an inaccessible page begins (a plugin touching the byte past
// the end crashes in its own call), preceded by canary bytes in the same
// mapping (a plugin writing in front of the buffer is seen).
class FencedHostBuffer {
 public:
  static constexpr size_t kCanaryBytes = 64;

  explicit FencedHostBuffer(size_t size) : mapping_(kCanaryBytes + size), size_(size) {
    if (!mapping_.ok()) throw std::runtime_error("sectl could not map a guarded host buffer");
    const conform::HostBytes fill = conform::TestPattern(mapping_.size(), kHostBackgroundSeed);
    std::copy(fill.begin(), fill.end(), mapping_.data());
  }

  unsigned char* data() const { return mapping_.data() + kCanaryBytes; }
  size_t size() const { return size_; }
  std::span<const unsigned char> bytes() const { return {data(), size_}; }

  // "" when the canary bytes in front are as they were; else which changed.
  std::string DamageInFront() const {
    const conform::HostBytes fill = conform::TestPattern(kCanaryBytes, kHostBackgroundSeed);
    for (size_t i = kCanaryBytes; i-- > 0;) {
      if (mapping_.data()[i] != fill[i]) {
        return fmt::format("it wrote in front of its host buffer: the byte {} before it changed",
                           kCanaryBytes - i);
      }
    }
    return {};
  }

 private:
  conform::GuardedHostBuffer mapping_;
  size_t size_;
};

}  // namespace sectl::checks::copies
