#include "replay/replayer.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <vector>

#include "host/device.h"
#include "host/event.h"
#include "host/memory.h"
#include "host/platform.h"
#include "host/stream.h"
#include "host/tf_status_handle.h"
#include "host/timer.h"
#include "host/unusual_calls.h"
#include "loader/plugin_library.h"
#include "replay/replay_objects.h"
#include "replay/shadow_memory.h"
#include "tensorflow/c/tf_status.h"

namespace sectl::replay {
namespace {

using abi::PluginFunction;
using trace::DeviceRange;
using trace::RecordKind;
using trace::TraceRecord;

std::string DescribeRange(std::string_view role, const DeviceRange& range) {
  return fmt::format("{}allocation {} [{}, +{})", role, range.allocation, range.offset, range.size);
}

std::string TfCodeText(int32_t code) {
  return fmt::format("{} ({})", host::TfCodeName(static_cast<TF_Code>(code)), code);
}

class Replayer {
 public:
  Replayer(const trace::Trace& trace, const ReplayOptions& options, host::Journal& journal,
           ReplayProgress& progress)
      : trace_(trace), options_(options), journal_(journal), progress_(progress) {
    for (const TraceRecord& record : trace.records) {
      if (record.kind == RecordKind::kCallbackRan && record.callback != 0) {
        recorded_callback_codes_[record.callback] = record.status;
        host_callback_codes_[record.callback] = static_cast<int32_t>(record.result);
      }
    }
  }
  Replayer(const Replayer&) = delete;
  Replayer& operator=(const Replayer&) = delete;
  ~Replayer() { TearDownAll(); }

  Expected<ReplayReport> Run() {
    auto library = loader::PluginLibrary::Open(options_.plugin_path, {.lazy = options_.lazy});
    if (!library) return tl::unexpected(library.error());
    library_.emplace(std::move(*library));

    std::vector<size_t> order(trace_.records.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return trace_.records[a].sequence < trace_.records[b].sequence;
    });
    for (const size_t index : order) {
      if (stopped_) break;
      const TraceRecord& record = trace_.records[index];
      if (record.kind == RecordKind::kEnd) break;
      if (record.kind != RecordKind::kCall && record.kind != RecordKind::kCallInFlight) continue;
      progress_.record_in_progress.store(static_cast<int64_t>(index), std::memory_order_release);
      if (record.kind == RecordKind::kCallInFlight) {
        // The call the recorded process crashed in: issued again, so that
        // a build that still crashes there crashes here too (the child's
        // crash names this record); its results were never recorded, so
        // there is nothing to compare them with.
        comparing_ = false;
        Replay(index, record);
        comparing_ = true;
        Note(
            fmt::format("the recorded process crashed in {} (record {}); this build returned "
                        "from it",
                        abi::QualifiedName(record.function), index));
        progress_.records_done.fetch_add(1, std::memory_order_release);
        continue;
      }
      Replay(index, record);
      progress_.records_done.fetch_add(1, std::memory_order_release);
    }
    if (trace_.truncated) {
      Note(
          "the trace ends mid-record (the traced process died): replayed up to its last "
          "whole record");
    }
    // What the trace never tore down, torn down as TensorFlow would.
    progress_.record_in_progress.store(-1, std::memory_order_release);
    TearDownAll();
    CheckCallbacksAtEnd();
    if (shadow_.overflowed()) {
      Note("the shadow of device memory reached its cap; copies after that were not verified");
    }
    report_.outcome =
        report_.divergence_count > 0 ? ReplayOutcome::kDiverged : ReplayOutcome::kClean;
    return std::move(report_);
  }

 private:
  // ---- reporting -----------------------------------------------------------

  void Diverge(size_t index, std::string what) {
    if (!comparing_) return;
    const TraceRecord& record = trace_.records[index];
    ++report_.divergence_count;
    progress_.divergences.fetch_add(1, std::memory_order_release);
    int64_t none = -1;
    progress_.first_divergence.compare_exchange_strong(none, static_cast<int64_t>(index));
    if (report_.divergences.size() < kMaxKeptDivergences) {
      report_.divergences.push_back({index, record.sequence, record.thread,
                                     std::string(abi::QualifiedName(record.function)),
                                     DescribeRecordObjects(record), std::move(what)});
    }
    if (options_.stop_at_first) {
      stopped_ = true;
      report_.stopped_at_first = true;
    }
  }

  void Note(std::string text) {
    ++report_.note_count;
    if (report_.notes.size() < kMaxKeptNotes) report_.notes.push_back(std::move(text));
  }

  void Skip(size_t index, std::string_view why) {
    ++report_.records_skipped;
    const TraceRecord& record = trace_.records[index];
    Note(
        fmt::format("record {} ({}) skipped: {}", index, abi::QualifiedName(record.function), why));
  }

  // Compares the replay's outcome of a call that takes a TF_Status with the
  // recorded code. True when the replayed call succeeded.
  bool CompareStatus(size_t index, const Expected<void>& outcome) {
    const int32_t recorded = trace_.records[index].status;
    if (recorded == -1) return outcome.has_value();
    if (recorded == TF_OK && !outcome) {
      Diverge(index, fmt::format("failed now ({}); it succeeded in the recording",
                                 outcome.error().message()));
    } else if (recorded != TF_OK && outcome) {
      Diverge(index, fmt::format("succeeded now; it failed in the recording with {}",
                                 TfCodeText(recorded)));
    }
    return outcome.has_value();
  }

  // For functions that return a TF_Bool or a pointer instead of a status.
  // A failed allocation's error, saying what the replay's memory limit was:
  // a trace can ask for any size, so the replaying process has one.
  Expected<void> UnderTheLimit(Expected<void> outcome) const {
    if (outcome || options_.memory_limit.empty()) return outcome;
    return Fail(outcome.error().code(),
                fmt::format("{}; the replay's process may use at most --memory-limit {}",
                            outcome.error().message(), options_.memory_limit));
  }

  bool CompareSuccess(size_t index, bool recorded_success, const Expected<void>& outcome) {
    if (recorded_success && !outcome) {
      Diverge(index, fmt::format("failed now ({}); it succeeded in the recording",
                                 outcome.error().message()));
    } else if (!recorded_success && outcome) {
      Diverge(index, "succeeded now; it failed in the recording");
    }
    return outcome.has_value();
  }

  // ---- objects -------------------------------------------------------------

  host::Platform* PlatformFor(size_t index) {
    if (platform_) return platform_.get();
    if (platform_failed_) return nullptr;
    if (platform_destroyed_) {
      Skip(index, "it comes after the trace destroyed the platform");
      return nullptr;
    }
    if (trace_.records[index].function != PluginFunction::kInitPlugin) {
      Note(
          "the trace does not begin with SE_InitPlugin; the plugin was registered before "
          "its first record");
    }
    auto platform = host::Platform::Create(*library_, journal_);
    if (!platform) {
      platform_failed_ = true;
      stopped_ = true;  // nothing can be replayed without a platform
      const TraceRecord& record = trace_.records[index];
      if (record.function == PluginFunction::kInitPlugin && record.status > 0) {
        Note(fmt::format("the plugin could not be registered, as in the recording: {}",
                         platform.error().message()));
      } else {
        Diverge(index,
                fmt::format("the plugin could not be registered: {}", platform.error().message()));
      }
      return nullptr;
    }
    platform_ = std::move(*platform);
    report_.platform_name = platform_->name();
    return platform_.get();
  }

  host::Device* DeviceFor(size_t index, int ordinal) {
    if (auto found = devices_.find(ordinal); found != devices_.end()) return found->second.get();
    host::Platform* platform = PlatformFor(index);
    if (platform == nullptr) return nullptr;
    Note(fmt::format("device {} is used before the trace creates it; created at record {}", ordinal,
                     index));
    auto device = platform->CreateDevice(ordinal);
    if (!device) {
      Diverge(index,
              fmt::format("device {} could not be created: {}", ordinal, device.error().message()));
      return nullptr;
    }
    return devices_.emplace(ordinal, std::move(*device)).first->second.get();
  }

  template <typename Map>
  auto* Find(Map& map, uint32_t id, size_t index, std::string_view kind) {
    auto found = map.find(id);
    if (found == map.end()) {
      Skip(index, fmt::format("it names {} {}, which this replay does not have", kind, id));
      return static_cast<decltype(&found->second)>(nullptr);
    }
    return &found->second;
  }

  // A device range the record names, or nullopt (and the record skipped)
  // when the replay cannot place it.
  std::optional<SP_DeviceMemoryBase> Place(size_t index, const DeviceRange& range, uint64_t bytes) {
    if (range.allocation == 0) {
      Skip(index,
           "a range lies in no live allocation (the traced host passed a pointer the "
           "layer could not place)");
      return std::nullopt;
    }
    ReplayAllocation* allocation = Find(allocations_, range.allocation, index, "allocation");
    if (allocation == nullptr) return std::nullopt;
    const uint64_t size = std::max(range.size, bytes);
    if (range.offset > allocation->size || size > allocation->size - range.offset) {
      Skip(index, fmt::format("{} does not fit in the {} bytes allocated", DescribeRange("", range),
                              allocation->size));
      return std::nullopt;
    }
    return allocation->Range(range.offset, size);
  }

  // ---- completion ----------------------------------------------------------

  // Everything enqueued on `stream_id` up to `ticket` is known complete, as
  // record `by` showed: verify its copies and its callbacks.
  void Complete(uint32_t stream_id, uint64_t ticket, size_t by) {
    auto found = streams_.find(stream_id);
    if (found == streams_.end()) return;
    std::deque<PendingWork>& pending = found->second.pending;
    while (!pending.empty() && pending.front().ticket <= ticket) {
      Settle(pending.front(), by);
      pending.pop_front();
    }
  }

  void CompleteDevice(int device, size_t by) {
    for (auto& [id, stream] : streams_) {
      if (stream.device == device) Complete(id, UINT64_MAX, by);
    }
  }

  void Settle(const PendingWork& work, size_t by) {
    if (work.verify) {
      Verify(work.record_index, work.allocation, work.offset, work.expected, work.host_bytes,
             fmt::format(" (checked when record {} showed the stream complete)", by));
    }
    if (work.callback_run) CheckCallbackRan(work, by);
  }

  void Verify(size_t index, uint32_t allocation, uint64_t offset,
              const std::vector<Segment>& expected, const std::vector<uint8_t>& actual,
              const std::string& when) {
    const auto mismatch = FindMismatch(expected, offset, actual);
    if (!mismatch) return;
    Diverge(index,
            fmt::format("read back 0x{:02x} at allocation {} offset {} (byte {} of the "
                        "copy), expected 0x{:02x} as written by {}{}{}",
                        mismatch->actual, allocation, mismatch->offset, mismatch->offset - offset,
                        mismatch->expected, DescribeWriter(mismatch->writer),
                        mismatch->copier == kNoRecord
                            ? ""
                            : ", copied there by " + DescribeWriter(mismatch->copier),
                        when));
  }

  // "record 7 (sequence 8, SP_StreamExecutor.memcpy_htod)".
  std::string DescribeWriter(uint32_t index) const {
    const TraceRecord& record = trace_.records[index];
    return fmt::format("record {} (sequence {}, {})", index, record.sequence,
                       abi::QualifiedName(record.function));
  }

  void CheckCallbackRan(const PendingWork& work, size_t by) {
    const int runs = work.callback_run->runs.load(std::memory_order_acquire);
    const auto recorded = recorded_callback_codes_.find(work.callback);
    if (runs == 0) {
      if (recorded != recorded_callback_codes_.end()) {
        Diverge(work.record_index,
                fmt::format("host callback {} has not run by record {}, which synchronised its "
                            "stream; it ran in the recording",
                            work.callback, by));
      } else {
        Note(
            fmt::format("host callback {} (record {}) had not run by record {}, nor had it "
                        "in the recording",
                        work.callback, work.record_index, by));
      }
      return;
    }
    const int code = work.callback_run->code.load(std::memory_order_acquire);
    if (recorded != recorded_callback_codes_.end() && recorded->second != code) {
      Diverge(work.record_index,
              fmt::format("the plugin passed host callback {} the code {}; in the recording, {}",
                          work.callback, TfCodeText(code), TfCodeText(recorded->second)));
    }
  }

  void CheckCallbacksAtEnd() {
    for (const auto& [id, callback] : callbacks_) {
      if (callback.run->runs.load(std::memory_order_acquire) > 1) {
        Diverge(callback.record_index,
                fmt::format("host callback {} ran {} times", id,
                            callback.run->runs.load(std::memory_order_acquire)));
      }
    }
  }

  // ---- teardown ------------------------------------------------------------

  void DestroyStream(uint32_t id, size_t by) {
    auto found = streams_.find(id);
    if (found == streams_.end()) return;
    // ~Stream waits for the stream's work as TensorFlow's ~CStream does.
    found->second.stream.reset();
    Complete(id, UINT64_MAX, by);
    streams_.erase(found);
  }

  void TearDownDevice(int ordinal, size_t by) {
    std::vector<uint32_t> ids;
    for (const auto& [id, stream] : streams_) {
      if (stream.device == ordinal) ids.push_back(id);
    }
    for (const uint32_t id : ids) DestroyStream(id, by);
    std::erase_if(events_, [&](const auto& entry) { return entry.second.device == ordinal; });
    std::erase_if(timers_, [&](const auto& entry) { return entry.second.second == ordinal; });
    for (auto it = allocations_.begin(); it != allocations_.end();) {
      if (it->second.device != ordinal) {
        ++it;
        continue;
      }
      shadow_.Drop(it->first);
      it = allocations_.erase(it);
    }
    std::erase_if(host_allocations_,
                  [&](const auto& entry) { return entry.second.second == ordinal; });
    devices_.erase(ordinal);
  }

  void TearDownAll() {
    std::vector<int> ordinals;
    for (const auto& [ordinal, device] : devices_) ordinals.push_back(ordinal);
    // Objects of a device the trace never created (none in a whole trace).
    for (const auto& [id, stream] : streams_) ordinals.push_back(stream.device);
    for (const int ordinal : ordinals) {
      TearDownDevice(ordinal, trace_.records.empty() ? 0 : trace_.records.size() - 1);
    }
    platform_.reset();
  }

  // ---- one record ----------------------------------------------------------

  void Replay(size_t index, const TraceRecord& record) {
    switch (record.function) {
      case PluginFunction::kInitPlugin:
      case PluginFunction::kCreateDeviceFns:
      case PluginFunction::kCreateStreamExecutor:
      case PluginFunction::kCreateTimerFns: {
        // Matched by Platform::Create, which makes these calls in this order.
        const bool had_platform = platform_ != nullptr;
        host::Platform* platform = PlatformFor(index);
        if (platform != nullptr && !had_platform && record.status > 0) {
          Diverge(index, fmt::format("registration succeeded now; it failed in the recording "
                                     "with {}",
                                     TfCodeText(record.status)));
        }
        ++report_.calls_replayed;
        return;
      }
      case PluginFunction::kDestroyDeviceFns:
      case PluginFunction::kDestroyStreamExecutor:
      case PluginFunction::kDestroyTimerFns:
      case PluginFunction::kDestroyPlatform:
      case PluginFunction::kDestroyPlatformFns:
        // Matched by the Platform's destructor, at the first of them.
        if (platform_ != nullptr) {
          TearDownAll();
          platform_destroyed_ = true;
        }
        ++report_.calls_replayed;
        return;
      default:
        break;
    }
    if (!abi::IsPluginFunction(record.function) ||
        record.function >= PluginFunction::kTvmDevice0Init) {
      Skip(index, "not a StreamExecutor function this replay knows");
      return;
    }
    if (PlatformFor(index) == nullptr) return;
    const size_t skipped_before = report_.records_skipped;
    ReplayCall(index, record);
    if (report_.records_skipped == skipped_before) ++report_.calls_replayed;
  }

  void ReplayCall(size_t index, const TraceRecord& record) {
    switch (record.function) {
      case PluginFunction::kGetDeviceCount:
        return ReplayDeviceCount(index, record);
      case PluginFunction::kCreateDevice:
        return ReplayCreateDevice(index, record);
      case PluginFunction::kDestroyDevice:
        return TearDownDevice(record.device, index);
      case PluginFunction::kGetNumaNode:
      case PluginFunction::kGetMemoryBandwidth:
      case PluginFunction::kGetGflops:
      case PluginFunction::kGetAllocatorStats:
      case PluginFunction::kDeviceMemoryUsage:
        return ReplayDeviceQuery(index, record);
      case PluginFunction::kAllocate:
      case PluginFunction::kUnifiedMemoryAllocate:
        return ReplayAllocate(index, record);
      case PluginFunction::kDeallocate:
      case PluginFunction::kUnifiedMemoryDeallocate:
        if (record.destination.allocation == 0) return ReplayDeallocateOfNothing(index, record);
        if (Find(allocations_, record.destination.allocation, index, "allocation") != nullptr) {
          shadow_.Drop(record.destination.allocation);
          allocations_.erase(record.destination.allocation);
        }
        return;
      case PluginFunction::kHostMemoryAllocate:
        return ReplayHostAllocate(index, record);
      case PluginFunction::kHostMemoryDeallocate:
        if (record.host_allocation == 0) return ReplayDeallocateOfNothing(index, record);
        if (Find(host_allocations_, record.host_allocation, index, "host allocation") != nullptr) {
          host_allocations_.erase(record.host_allocation);
        }
        return;
      case PluginFunction::kCreateStream:
      case PluginFunction::kCreateEvent:
      case PluginFunction::kCreateTimer:
        return ReplayCreate(index, record);
      case PluginFunction::kDestroyStream:
        if (Find(streams_, record.stream, index, "stream") != nullptr) {
          DestroyStream(record.stream, index);
        }
        return;
      case PluginFunction::kDestroyEvent:
        if (Find(events_, record.event, index, "event") != nullptr) events_.erase(record.event);
        return;
      case PluginFunction::kDestroyTimer:
        if (Find(timers_, record.timer, index, "timer") != nullptr) timers_.erase(record.timer);
        return;
      default:
        return ReplayStreamCall(index, record);
    }
  }

  void ReplayDeviceCount(size_t index, const TraceRecord& record) {
    auto count = platform_->DeviceCount();
    if (!count) {
      Diverge(index, fmt::format("failed now: {}", count.error().message()));
    } else if (*count != record.result) {
      Note(fmt::format("the plugin reports {} device{} here; the traced machine had {}", *count,
                       *count == 1 ? "" : "s", record.result));
    }
  }

  void ReplayCreateDevice(size_t index, const TraceRecord& record) {
    if (devices_.contains(record.device)) {
      Skip(index, fmt::format("device {} exists already", record.device));
      return;
    }
    auto device = platform_->CreateDevice(record.device);
    if (!CompareStatus(index, device ? Expected<void>() : tl::unexpected(device.error()))) return;
    devices_.emplace(record.device, std::move(*device));
  }

  void ReplayDeviceQuery(size_t index, const TraceRecord& record) {
    host::Device* device = DeviceFor(index, record.device);
    if (device == nullptr) return;
    switch (record.function) {
      case PluginFunction::kGetNumaNode:
        (void)device->NumaNode();
        return;
      case PluginFunction::kGetMemoryBandwidth:
        (void)device->MemoryBandwidth();
        return;
      case PluginFunction::kGetGflops:
        (void)device->Gflops();
        return;
      case PluginFunction::kDeviceMemoryUsage: {
        auto usage = device->QueryMemoryUsage();
        CompareSuccess(index, record.result != 0,
                       usage ? Expected<void>() : tl::unexpected(usage.error()));
        return;
      }
      default: {
        auto stats = device->QueryAllocatorStats();
        Expected<void> answered;
        if (!stats) {
          answered = tl::unexpected(stats.error());
        } else if (!stats->has_value()) {
          answered = Fail(ErrorCode::kPluginError, "get_allocator_stats returned false");
        }
        CompareSuccess(index, record.result != 0, answered);
        return;
      }
    }
  }

  // A deallocate that named no allocation: the traced host freed null (or
  // a pointer no allocation held; the trace keeps no address, and null is
  // the one such pointer a correct plugin must accept). Replayed as a
  // deallocate of null, so the plugin gets the call the trace holds.
  void ReplayDeallocateOfNothing(size_t index, const TraceRecord& record) {
    host::Device* device = DeviceFor(index, record.device);
    if (device == nullptr) return;
    switch (record.function) {
      case PluginFunction::kDeallocate:
        device->Deallocate(nullptr);
        return;
      case PluginFunction::kUnifiedMemoryDeallocate:
        device->DeallocateHost(host::HostMemoryKind::kUnified, nullptr);
        return;
      default:
        device->DeallocateHost(host::HostMemoryKind::kPinned, nullptr);
        return;
    }
  }

  // allocate, unified_memory_allocate or host_memory_allocate of 0 bytes,
  // which no TensorFlow asks for but other hosts do. Null is a valid answer
  // there (no memory, no failure), so the recording and this build are
  // compared by what a host can tell apart: null or a block. A null this
  // replay gets is never deallocated: the trace holds no such call, and
  // TensorFlow's allocators never free null.
  void ReplayZeroByteAllocation(size_t index, const TraceRecord& record,
                                const host::Device& device) {
    const bool pinned = record.function == PluginFunction::kHostMemoryAllocate;
    const bool unified = record.function == PluginFunction::kUnifiedMemoryAllocate;
    Expected<void*> answer = nullptr;
    SP_DeviceMemoryBase memory{};
    if (pinned || unified) {
      answer = host::UnusualCalls::AllocateHost(
          device, pinned ? host::HostMemoryKind::kPinned : host::HostMemoryKind::kUnified, 0);
    } else if (auto filled = host::UnusualCalls::Allocate(device, 0, record.memory_space)) {
      memory = *filled;
      answer = memory.opaque;
    } else {
      answer = tl::unexpected(filled.error());
    }
    const bool recorded_block = record.created != 0;
    if (!answer) {
      Diverge(index, fmt::format("an allocation of 0 bytes failed now ({}); in the recording it "
                                 "returned {}",
                                 answer.error().message(), recorded_block ? "a block" : "null"));
      return;
    }
    const bool block = *answer != nullptr;
    if (block != recorded_block) {
      Diverge(index, fmt::format("an allocation of 0 bytes returned {} now; in the recording it "
                                 "returned {}",
                                 block ? "a block" : "null", recorded_block ? "a block" : "null"));
    }
    if (!block) return;
    // A block is given back when the trace frees it, or at teardown; one the
    // recording never had (a divergence above) goes back at once.
    ReplayAllocation allocation;
    allocation.device = record.device;
    if (pinned) {
      host::HostMemory host_memory(&device, host::HostMemoryKind::kPinned, *answer, 0);
      if (recorded_block) {
        host_allocations_.insert_or_assign(record.created,
                                           std::make_pair(std::move(host_memory), record.device));
      }
      return;
    }
    if (unified) {
      allocation.unified = host::HostMemory(&device, host::HostMemoryKind::kUnified, *answer, 0);
    } else {
      allocation.device_memory = host::DeviceMemory(&device, memory);
    }
    if (recorded_block) allocations_.insert_or_assign(record.created, std::move(allocation));
  }

  void ReplayAllocate(size_t index, const TraceRecord& record) {
    host::Device* device = DeviceFor(index, record.device);
    if (device == nullptr) return;
    if (record.size == 0) return ReplayZeroByteAllocation(index, record, *device);
    ReplayAllocation allocation;
    allocation.size = record.size;
    allocation.device = record.device;
    Expected<void> outcome;
    if (record.function == PluginFunction::kAllocate) {
      auto memory = device->Allocate(record.size, record.memory_space);
      if (memory) {
        allocation.device_memory = std::move(*memory);
      } else {
        outcome = tl::unexpected(memory.error());
      }
    } else {
      auto memory = device->AllocateHost(host::HostMemoryKind::kUnified, record.size);
      if (memory) {
        allocation.unified = std::move(*memory);
      } else {
        outcome = tl::unexpected(memory.error());
      }
    }
    if (record.created == 0 && outcome) {
      // Memory the recording's machine (or its limits) could not give is
      // not a defect of this build; later records naming it are skipped.
      Note(
          fmt::format("record {}: an allocation of {} bytes that failed in the recording "
                      "succeeded now",
                      index, record.size));
      return;
    }
    if (!CompareSuccess(index, record.created != 0, UnderTheLimit(outcome)) ||
        record.created == 0) {
      return;
    }
    allocations_.insert_or_assign(record.created, std::move(allocation));
  }

  void ReplayHostAllocate(size_t index, const TraceRecord& record) {
    host::Device* device = DeviceFor(index, record.device);
    if (device == nullptr) return;
    if (record.size == 0) return ReplayZeroByteAllocation(index, record, *device);
    auto memory = device->AllocateHost(host::HostMemoryKind::kPinned, record.size);
    if (record.created == 0 && memory) {
      Note(
          fmt::format("record {}: a host allocation of {} bytes that failed in the recording "
                      "succeeded now",
                      index, record.size));
      return;
    }
    if (!CompareSuccess(
            index, record.created != 0,
            UnderTheLimit(memory ? Expected<void>() : tl::unexpected(memory.error()))) ||
        record.created == 0) {
      return;
    }
    host_allocations_.insert_or_assign(record.created,
                                       std::make_pair(std::move(*memory), record.device));
  }

  void ReplayCreate(size_t index, const TraceRecord& record) {
    host::Device* device = DeviceFor(index, record.device);
    if (device == nullptr) return;
    if (record.function == PluginFunction::kCreateStream) {
      auto stream = device->CreateStream();
      if (!CompareStatus(index, stream ? Expected<void>() : tl::unexpected(stream.error())) ||
          record.created == 0) {
        return;
      }
      DestroyStream(record.created, index);  // an identity reused: a malformed trace
      streams_[record.created].stream = std::move(*stream);
      streams_[record.created].device = record.device;
    } else if (record.function == PluginFunction::kCreateEvent) {
      auto event = device->CreateEvent();
      if (!CompareStatus(index, event ? Expected<void>() : tl::unexpected(event.error())) ||
          record.created == 0) {
        return;
      }
      events_.insert_or_assign(record.created, ReplayEvent{std::move(*event), record.device});
    } else {
      auto timer = device->CreateTimer();
      if (!CompareStatus(index, timer ? Expected<void>() : tl::unexpected(timer.error())) ||
          record.created == 0) {
        return;
      }
      timers_.insert_or_assign(record.created, std::make_pair(std::move(*timer), record.device));
    }
  }

  // Calls made on a device without a stream (synchronous copies, waits on
  // events, synchronize_all_activity) or on a stream.
  void ReplayStreamCall(size_t index, const TraceRecord& record) {
    switch (record.function) {
      case PluginFunction::kSyncMemcpyHtoD:
      case PluginFunction::kSyncMemcpyDtoH:
      case PluginFunction::kSyncMemcpyDtoD:
        return ReplaySyncCopy(index, record);
      case PluginFunction::kSynchronizeAllActivity: {
        host::Device* device = DeviceFor(index, record.device);
        if (device != nullptr && CompareStatus(index, device->SynchronizeAllActivity())) {
          CompleteDevice(record.device, index);
        }
        return;
      }
      case PluginFunction::kGetEventStatus:
        return ReplayEventStatus(index, record);
      case PluginFunction::kBlockHostForEvent: {
        ReplayEvent* event = Find(events_, record.event, index, "event");
        if (event != nullptr && CompareStatus(index, event->event->BlockHost())) {
          Complete(event->stream, event->ticket, index);
        }
        return;
      }
      case PluginFunction::kNanoseconds: {
        auto* timer = Find(timers_, record.timer, index, "timer");
        if (timer != nullptr) (void)timer->first->Nanoseconds();
        return;
      }
      default:
        break;
    }
    ReplayStream* stream = Find(streams_, record.stream, index, "stream");
    if (stream == nullptr) return;
    switch (record.function) {
      case PluginFunction::kMemcpyHtoD:
      case PluginFunction::kMemcpyDtoH:
      case PluginFunction::kMemcpyDtoD:
      case PluginFunction::kMemZero:
      case PluginFunction::kMemset:
      case PluginFunction::kMemset32:
        return ReplayAsyncWrite(index, record, *stream);
      case PluginFunction::kBlockHostUntilDone:
        if (CompareStatus(index, stream->stream->BlockHostUntilDone())) {
          Complete(record.stream, UINT64_MAX, index);
        }
        return;
      case PluginFunction::kGetStreamStatus:
        CompareStatus(index, stream->stream->Status());
        return;
      case PluginFunction::kCreateStreamDependency: {
        ReplayStream* source = Find(streams_, record.other_stream, index, "stream");
        if (source != nullptr) CompareStatus(index, stream->stream->WaitFor(*source->stream));
        return;
      }
      case PluginFunction::kRecordEvent:
      case PluginFunction::kWaitForEvent: {
        ReplayEvent* event = Find(events_, record.event, index, "event");
        if (event == nullptr) return;
        if (record.function == PluginFunction::kWaitForEvent) {
          CompareStatus(index, stream->stream->WaitForEvent(*event->event));
          return;
        }
        if (CompareStatus(index, stream->stream->RecordEvent(*event->event))) {
          event->stream = record.stream;
          event->ticket = stream->tickets;
          event->seen_complete = false;
        }
        return;
      }
      case PluginFunction::kStartTimer:
      case PluginFunction::kStopTimer: {
        auto* timer = Find(timers_, record.timer, index, "timer");
        if (timer == nullptr) return;
        CompareStatus(index, record.function == PluginFunction::kStartTimer
                                 ? timer->first->Start(*stream->stream)
                                 : timer->first->Stop(*stream->stream));
        return;
      }
      case PluginFunction::kHostCallback:
        return ReplayHostCallback(index, record, *stream);
      default:
        Skip(index, "not a StreamExecutor function this replay knows");
        return;
    }
  }

  void ReplayEventStatus(size_t index, const TraceRecord& record) {
    ReplayEvent* event = Find(events_, record.event, index, "event");
    if (event == nullptr) return;
    auto status = event->event->Status();
    if (!status) {
      Diverge(index, fmt::format("failed now: {}", status.error().message()));
      return;
    }
    const bool recorded_error = record.result == SE_EVENT_ERROR;
    if ((*status == SE_EVENT_ERROR) != recorded_error ||
        (*status == SE_EVENT_UNKNOWN && record.result != SE_EVENT_UNKNOWN)) {
      Diverge(index, fmt::format("event status {} now; {} in the recording",
                                 static_cast<int>(*status), record.result));
      return;
    }
    if (*status == SE_EVENT_COMPLETE) {
      event->seen_complete = true;
      Complete(event->stream, event->ticket, index);
    } else if (*status == SE_EVENT_PENDING && event->seen_complete) {
      Diverge(index, fmt::format("event {} is pending again after it was complete, without "
                                 "being recorded again",
                                 record.event));
    }
  }

  // A host-to-device copy's source: the generator's bytes for this record.
  static std::vector<uint8_t> GeneratedSource(const TraceRecord& record) {
    std::vector<uint8_t> bytes(record.size);
    GenerateBytes(record.sequence, 0, bytes);
    return bytes;
  }

  static Content FillOf(const TraceRecord& record) {
    uint32_t word = 0;
    if (record.function == PluginFunction::kMemset) word = (record.pattern & 0xFFU) * 0x01010101U;
    if (record.function == PluginFunction::kMemset32) word = record.pattern;
    return Content{Content::Kind::kFill, word, record.destination.offset};
  }

  void ReplayAsyncWrite(size_t index, const TraceRecord& record, ReplayStream& stream) {
    const bool reads_device = record.function == PluginFunction::kMemcpyDtoH ||
                              record.function == PluginFunction::kMemcpyDtoD;
    const bool writes_device = record.function != PluginFunction::kMemcpyDtoH;
    std::optional<SP_DeviceMemoryBase> source;
    std::optional<SP_DeviceMemoryBase> destination;
    if (reads_device && !(source = Place(index, record.source, record.size))) return;
    if (writes_device && !(destination = Place(index, record.destination, record.size))) return;

    PendingWork work{.ticket = ++stream.tickets, .record_index = index};
    host::Stream& plugin_stream = *stream.stream;
    Expected<void> outcome;
    switch (record.function) {
      case PluginFunction::kMemcpyHtoD:
        work.host_bytes = GeneratedSource(record);
        outcome = plugin_stream.MemcpyHtoD(*destination, work.host_bytes.data(), record.size);
        break;
      case PluginFunction::kMemcpyDtoH:
        work.host_bytes.assign(record.size, 0);
        work.verify = true;
        work.allocation = record.source.allocation;
        work.offset = record.source.offset;
        work.expected = shadow_.Snapshot(work.allocation, work.offset, record.size);
        outcome = plugin_stream.MemcpyDtoH(work.host_bytes.data(), *source, record.size);
        break;
      case PluginFunction::kMemcpyDtoD:
        outcome = plugin_stream.MemcpyDtoD(*destination, *source, record.size);
        break;
      case PluginFunction::kMemZero:
        outcome = plugin_stream.MemZero(*destination, record.size);
        break;
      case PluginFunction::kMemset:
        outcome =
            plugin_stream.Memset8(*destination, static_cast<uint8_t>(record.pattern), record.size);
        break;
      default:
        outcome = plugin_stream.Memset32(*destination, record.pattern, record.size);
        break;
    }
    const bool succeeded = CompareStatus(index, outcome);
    if (writes_device) UpdateShadow(index, record, succeeded);
    // Failed work is not pending, but a failed copy may still read its host
    // buffer: keep it until the stream is known complete all the same.
    if (!succeeded) work.verify = false;
    stream.pending.push_back(std::move(work));
  }

  void UpdateShadow(size_t index, const TraceRecord& record, bool succeeded) {
    const DeviceRange& destination = record.destination;
    const auto writer = static_cast<uint32_t>(index);
    if (!succeeded) {
      shadow_.Forget(destination.allocation, destination.offset, record.size);
      return;
    }
    switch (record.function) {
      case PluginFunction::kMemcpyHtoD:
      case PluginFunction::kSyncMemcpyHtoD:
        shadow_.Write(destination.allocation, destination.offset, record.size,
                      {Content::Kind::kGenerated, record.sequence, destination.offset}, writer);
        return;
      case PluginFunction::kMemcpyDtoD:
      case PluginFunction::kSyncMemcpyDtoD:
        shadow_.Copy(destination.allocation, destination.offset, record.source.allocation,
                     record.source.offset, record.size, writer);
        return;
      default:
        shadow_.Write(destination.allocation, destination.offset, record.size, FillOf(record),
                      writer);
        return;
    }
  }

  void ReplaySyncCopy(size_t index, const TraceRecord& record) {
    host::Device* device = DeviceFor(index, record.device);
    if (device == nullptr) return;
    std::optional<SP_DeviceMemoryBase> source;
    std::optional<SP_DeviceMemoryBase> destination;
    if (record.function != PluginFunction::kSyncMemcpyHtoD &&
        !(source = Place(index, record.source, record.size))) {
      return;
    }
    if (record.function != PluginFunction::kSyncMemcpyDtoH &&
        !(destination = Place(index, record.destination, record.size))) {
      return;
    }
    if (record.function == PluginFunction::kSyncMemcpyHtoD) {
      const std::vector<uint8_t> bytes = GeneratedSource(record);
      UpdateShadow(
          index, record,
          CompareStatus(index, device->SyncMemcpyHtoD(*destination, bytes.data(), record.size)));
    } else if (record.function == PluginFunction::kSyncMemcpyDtoD) {
      UpdateShadow(
          index, record,
          CompareStatus(index, device->SyncMemcpyDtoD(*destination, *source, record.size)));
    } else {
      std::vector<uint8_t> bytes(record.size);
      const auto expected =
          shadow_.Snapshot(record.source.allocation, record.source.offset, record.size);
      if (CompareStatus(index, device->SyncMemcpyDtoH(bytes.data(), *source, record.size))) {
        Verify(index, record.source.allocation, record.source.offset, expected, bytes, "");
      }
    }
  }

  void ReplayHostCallback(size_t index, const TraceRecord& record, ReplayStream& stream) {
    auto run = std::make_shared<CallbackRun>();
    // The recorded host's callback may have failed (written an error into
    // the status, which the plugin then keeps as the stream's): this one
    // answers the same.
    const auto host_code = host_callback_codes_.find(record.callback);
    const int32_t answer = host_code == host_callback_codes_.end() ? TF_OK : host_code->second;
    auto enqueued = stream.stream->EnqueueHostCallback([run, answer](TF_Status* status) {
      run->code.store(status == nullptr ? TF_OK : static_cast<int>(TF_GetCode(status)),
                      std::memory_order_release);
      run->runs.fetch_add(1, std::memory_order_acq_rel);
      if (status != nullptr && answer != TF_OK) {
        TF_SetStatus(status, static_cast<TF_Code>(answer),
                     "sectl replay: the recorded host callback failed");
      }
    });
    const Expected<void> outcome = enqueued ? Expected<void>() : tl::unexpected(enqueued.error());
    if (!CompareSuccess(index, record.result != 0, outcome)) return;
    callbacks_[record.callback] = {index, run};
    stream.pending.push_back(PendingWork{.ticket = ++stream.tickets,
                                         .record_index = index,
                                         .callback = record.callback,
                                         .callback_run = run});
  }

  struct CallbackEntry {
    size_t record_index = 0;
    std::shared_ptr<CallbackRun> run;
  };

  const trace::Trace& trace_;
  const ReplayOptions& options_;
  host::Journal& journal_;
  ReplayProgress& progress_;
  ReplayReport report_;
  bool stopped_ = false;
  bool comparing_ = true;  // false while replaying a call whose results were never recorded
  bool platform_failed_ = false;
  bool platform_destroyed_ = false;
  ShadowMemory shadow_;
  std::map<uint32_t, int32_t> recorded_callback_codes_;
  // The code each recorded host callback left in its status (its own failure).
  std::map<uint32_t, int32_t> host_callback_codes_;
  std::map<uint32_t, CallbackEntry> callbacks_;

  // Declared in the order they must outlive each other: the library the
  // platform, the platform its devices, a device its objects.
  std::optional<loader::PluginLibrary> library_;
  std::unique_ptr<host::Platform> platform_;
  std::map<int, std::unique_ptr<host::Device>> devices_;
  std::map<uint32_t, ReplayAllocation> allocations_;
  std::map<uint32_t, std::pair<host::HostMemory, int>> host_allocations_;
  std::map<uint32_t, ReplayEvent> events_;
  std::map<uint32_t, std::pair<std::unique_ptr<host::Timer>, int>> timers_;
  std::map<uint32_t, ReplayStream> streams_;
};

}  // namespace

std::string DescribeRecordObjects(const TraceRecord& record) {
  std::vector<std::string> parts;
  if (record.device >= 0) parts.push_back(fmt::format("device {}", record.device));
  if (record.stream != 0) parts.push_back(fmt::format("stream {}", record.stream));
  if (record.other_stream != 0) {
    parts.push_back(fmt::format("source stream {}", record.other_stream));
  }
  if (record.event != 0) parts.push_back(fmt::format("event {}", record.event));
  if (record.timer != 0) parts.push_back(fmt::format("timer {}", record.timer));
  if (record.host_allocation != 0) {
    parts.push_back(fmt::format("host allocation {}", record.host_allocation));
  }
  if (record.callback != 0) parts.push_back(fmt::format("callback {}", record.callback));
  if (record.destination != DeviceRange{}) {
    parts.push_back(DescribeRange("destination ", record.destination));
  }
  if (record.source != DeviceRange{}) parts.push_back(DescribeRange("source ", record.source));
  if (record.size != 0) parts.push_back(fmt::format("{} bytes", record.size));
  if (record.created != 0) parts.push_back(fmt::format("created {}", record.created));
  std::string text;
  for (const std::string& part : parts) {
    if (!text.empty()) text += ", ";
    text += part;
  }
  return text;
}

Expected<ReplayReport> ReplayTrace(const trace::Trace& trace, const ReplayOptions& options,
                                   host::Journal& journal, ReplayProgress& progress) {
  Replayer replayer(trace, options, journal, progress);
  return replayer.Run();
}

}  // namespace sectl::replay
