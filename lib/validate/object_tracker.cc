#include "validate/object_tracker.h"

#include <algorithm>
#include <iterator>

namespace sectl::validate {
namespace {

size_t IndexOf(HandleKind kind) { return static_cast<size_t>(kind); }

uintptr_t AddressOf(const void* pointer) { return reinterpret_cast<uintptr_t>(pointer); }

// The allocation in `allocations` that starts at or before `address`.
template <typename Map>
auto AtOrBefore(const Map& allocations, uintptr_t address) {
  auto after = allocations.upper_bound(address);
  if (after == allocations.begin()) return allocations.end();
  return std::prev(after);
}

}  // namespace

std::string_view HandleKindName(HandleKind kind) {
  switch (kind) {
    case HandleKind::kStream:
      return "stream";
    case HandleKind::kEvent:
      return "event";
    case HandleKind::kTimer:
      return "timer";
  }
  return "handle";
}

bool ObjectTracker::CreatedOn(const HandleState& state, int32_t device) {
  if (device < 0) return true;  // a call that names no device
  if (device >= 64) return state.other_devices;
  return (state.devices >> device & 1U) != 0;
}

void ObjectTracker::Forget(uint8_t kind, const void* value, uint32_t id, int32_t device) {
  forgotten_[next_forgotten_] = {kind, id, device, value};
  next_forgotten_ = (next_forgotten_ + 1) % forgotten_.size();
}

// Consulted only for a value that is not live, so an entry left from before
// the value was created again can only be read once it is gone again, and
// then the newest entry, found first, is the one that counts.
const ObjectTracker::Forgotten* ObjectTracker::Recall(uint8_t kind, const void* value) const {
  for (size_t age = 1; age <= forgotten_.size(); ++age) {
    const Forgotten& entry =
        forgotten_[(next_forgotten_ + forgotten_.size() - age) % forgotten_.size()];
    if (entry.kind == kind && entry.value == value) return &entry;
  }
  return nullptr;
}

void ObjectTracker::DeviceCreated(int32_t ordinal) {
  if (ordinal >= 0 && static_cast<size_t>(ordinal) < kTrackedOrdinals) {
    ordinal_live_[static_cast<size_t>(ordinal)].fetch_add(1);
  }
}

void ObjectTracker::DeviceDestroyed(const SP_Device* device, int32_t ordinal) {
  if (ordinal < 0 || static_cast<size_t>(ordinal) >= kTrackedOrdinals || device == nullptr) return;
  auto& live = ordinal_live_[static_cast<size_t>(ordinal)];
  for (int32_t now = live.load(); now > 0 && !live.compare_exchange_weak(now, now - 1);) {
  }
  destroyed_at_[next_destroyed_.fetch_add(1) % destroyed_at_.size()].store(device);
}

bool ObjectTracker::DeviceWasDestroyed(const SP_Device* device, int32_t ordinal) const {
  if (device == nullptr || next_destroyed_.load(std::memory_order_relaxed) == 0) return false;
  bool destroyed_here = false;
  for (const auto& address : destroyed_at_) {
    if (address.load(std::memory_order_relaxed) == device) destroyed_here = true;
  }
  if (!destroyed_here) return false;
  // The address may hold another device by now (the host's allocator gave
  // the struct's memory to the next executor): only a device not live is
  // a use after destroy.
  if (ordinal < 0 || static_cast<size_t>(ordinal) >= kTrackedOrdinals) return true;
  return ordinal_live_[static_cast<size_t>(ordinal)].load() <= 0;
}

std::array<size_t, 3> ObjectTracker::LiveHandlesOn(int32_t device) const {
  std::lock_guard lock(mutex_);
  std::array<size_t, 3> live{};
  for (size_t kind = 0; kind < live.size(); ++kind) {
    for (const auto& [handle, state] : handles_[kind]) {
      if (state.live > 0 && CreatedOn(state, device)) ++live[kind];
    }
  }
  return live;
}

uint32_t ObjectTracker::HandleCreated(HandleKind kind, const void* handle, int32_t device) {
  if (handle == nullptr) return 0;
  std::lock_guard lock(mutex_);
  HandleState& state = handles_[IndexOf(kind)][handle];
  if (state.live <= 0) {
    // A new object, or a value the plugin reuses after a destroy.
    state = HandleState{};
    state.id = next_handle_id_[IndexOf(kind)]++;
    state.first_device = device;
  }
  ++state.live;
  if (device >= 64) {
    state.other_devices = true;
  } else if (device >= 0) {
    state.devices |= uint64_t{1} << device;
  }
  return state.id;
}

HandleCheck ObjectTracker::CheckHandle(HandleKind kind, const void* handle, int32_t device) const {
  if (handle == nullptr) return {};
  std::lock_guard lock(mutex_);
  return CheckHandleLocked(kind, handle, device);
}

HandleCheck ObjectTracker::CheckHandleLocked(HandleKind kind, const void* handle,
                                             int32_t device) const {
  if (handle == nullptr) return {};
  const auto& table = handles_[IndexOf(kind)];
  const auto found = table.find(handle);
  return ClassifyLocked(kind, handle, device, found == table.end() ? nullptr : &found->second);
}

HandleCheck ObjectTracker::ClassifyLocked(HandleKind kind, const void* handle, int32_t device,
                                          const HandleState* state) const {
  if (state == nullptr) {
    const Forgotten* destroyed = Recall(static_cast<uint8_t>(kind), handle);
    if (destroyed == nullptr) return {HandleUse::kNeverCreated};
    return {HandleUse::kDestroyed, destroyed->id, destroyed->device};
  }
  if (state->live <= 0) return {HandleUse::kDestroyed, state->id, state->first_device};
  if (!CreatedOn(*state, device)) return {HandleUse::kOtherDevice, state->id, state->first_device};
  return {HandleUse::kLive, state->id, state->first_device};
}

HandleCheck ObjectTracker::HandleDestroyed(HandleKind kind, const void* handle, int32_t device) {
  const HandleCheck before = CheckHandle(kind, handle, device);
  if (before.use != HandleUse::kLive && before.use != HandleUse::kOtherDevice) return before;
  std::lock_guard lock(mutex_);
  auto& table = handles_[IndexOf(kind)];
  const auto found = table.find(handle);
  if (--found->second.live > 0) return before;
  // The last creation is gone: forget the handle but for the ring.
  Forget(static_cast<uint8_t>(kind), handle, found->second.id, found->second.first_device);
  table.erase(found);
  if (kind == HandleKind::kEvent) recorded_events_.erase(handle);
  return before;
}

ObjectTracker::OrderedCallCheck ObjectTracker::BeginOrderedCall(const void* stream, int32_t device,
                                                                HandleKind other_kind,
                                                                const void* other) {
  OrderedCallCheck check;
  std::lock_guard lock(mutex_);
  // The stream's entry found once, to check it and to count the work.
  HandleState* stream_state = nullptr;
  if (stream != nullptr) {
    auto& streams = handles_[IndexOf(HandleKind::kStream)];
    if (const auto found = streams.find(stream); found != streams.end()) {
      stream_state = &found->second;
    }
    check.stream = ClassifyLocked(HandleKind::kStream, stream, device, stream_state);
  }
  check.other = CheckHandleLocked(other_kind, other, device);
  // Counted only where the call will be passed on (a destroyed or unknown
  // handle withholds it) and the stream is one the layer tracks.
  const auto passed_on = [](HandleUse use) {
    return use != HandleUse::kNeverCreated && use != HandleUse::kDestroyed;
  };
  if (stream_state != nullptr && passed_on(check.stream.use) && passed_on(check.other.use)) {
    ++stream_state->unsynchronised;
    ++stream_state->enqueued_total;
  }
  return check;
}

void ObjectTracker::EnqueueFailed(const void* stream) {
  if (stream == nullptr) return;
  std::lock_guard lock(mutex_);
  auto& table = handles_[IndexOf(HandleKind::kStream)];
  const auto found = table.find(stream);
  if (found == table.end()) return;
  // A synchronisation in between may have cleared the count already.
  if (found->second.unsynchronised > 0) --found->second.unsynchronised;
  if (found->second.enqueued_total > 0) --found->second.enqueued_total;
}

void ObjectTracker::NoteStreamSynchronised(const void* stream) {
  std::lock_guard lock(mutex_);
  auto& table = handles_[IndexOf(HandleKind::kStream)];
  const auto found = table.find(stream);
  if (found != table.end()) found->second.unsynchronised = 0;
}

void ObjectTracker::NoteDeviceSynchronised(int32_t device) {
  std::lock_guard lock(mutex_);
  for (auto& [handle, state] : handles_[IndexOf(HandleKind::kStream)]) {
    if (CreatedOn(state, device)) state.unsynchronised = 0;
  }
}

void ObjectTracker::NoteEventRecorded(const void* event, const void* stream) {
  if (event == nullptr || stream == nullptr) return;
  std::lock_guard lock(mutex_);
  auto& streams = handles_[IndexOf(HandleKind::kStream)];
  const auto found = streams.find(stream);
  recorded_events_[event] =
      EventRecordState{stream, found != streams.end() ? found->second.enqueued_total : 0};
}

void ObjectTracker::NoteEventComplete(const void* event) {
  std::lock_guard lock(mutex_);
  const auto recorded = recorded_events_.find(event);
  if (recorded == recorded_events_.end()) return;
  const EventRecordState record = recorded->second;
  auto& table = handles_[IndexOf(HandleKind::kStream)];
  const auto stream = table.find(record.stream);
  if (stream == table.end()) return;
  // Work enqueued after the record is not covered by the event.
  const uint64_t after = stream->second.enqueued_total - record.work_at_record;
  if (after < stream->second.unsynchronised) stream->second.unsynchronised = after;
}

uint64_t ObjectTracker::UnsynchronisedWork(const void* stream) const {
  std::lock_guard lock(mutex_);
  const auto& table = handles_[IndexOf(HandleKind::kStream)];
  const auto found = table.find(stream);
  return found == table.end() ? 0 : found->second.unsynchronised;
}

int64_t ObjectTracker::LiveCreations(HandleKind kind, const void* handle) const {
  std::lock_guard lock(mutex_);
  const auto& table = handles_[IndexOf(kind)];
  const auto found = table.find(handle);
  return found == table.end() ? 0 : found->second.live;
}

uint32_t ObjectTracker::Allocated(const AllocationRecord& allocation,
                                  std::optional<AllocationRecord>* overlapped) {
  std::lock_guard lock(mutex_);
  AllocationRecord record = allocation;
  record.id = next_allocation_id_++;
  const auto same_base = device_allocations_.find(record.base);
  if (same_base != device_allocations_.end()) {
    // Two live allocations at one address: both frees are the host's due,
    // and either's bytes are the host's to use.
    if (record.size > 0 || same_base->second.size > 0) {
      *overlapped = same_base->second;
      overlaps_seen_ = true;
    }
    ++same_base->second.duplicates;
    same_base->second.size = std::max(same_base->second.size, record.size);
    return same_base->second.id;
  }
  if (record.size > 0) {
    const auto before = AtOrBefore(device_allocations_, record.base);
    if (before != device_allocations_.end() &&
        before->second.base + before->second.size > record.base) {
      *overlapped = before->second;
    }
    const auto after = device_allocations_.upper_bound(record.base);
    if (after != device_allocations_.end() && after->second.base < record.base + record.size) {
      *overlapped = after->second;
    }
    if (overlapped->has_value()) overlaps_seen_ = true;
  }
  device_allocations_[record.base] = record;
  return record.id;
}

uint32_t ObjectTracker::HostAllocated(const AllocationRecord& allocation) {
  std::lock_guard lock(mutex_);
  AllocationRecord record = allocation;
  record.id = next_host_allocation_id_++;
  record.host = true;
  host_allocations_[record.base] = record;
  return record.id;
}

Deallocation ObjectTracker::Deallocated(const void* base, bool host, int32_t device, uint32_t* id,
                                        int32_t* owner) {
  if (base == nullptr) return Deallocation::kNull;
  std::lock_guard lock(mutex_);
  auto& allocations = host ? host_allocations_ : device_allocations_;
  const auto found = allocations.find(AddressOf(base));
  const uint8_t freed_kind = host ? kFreedHost : kFreedDevice;
  if (found == allocations.end()) {
    const Forgotten* freed = Recall(freed_kind, base);
    if (freed == nullptr) return Deallocation::kUnknown;
    *id = freed->id;
    return Deallocation::kTwice;
  }
  *id = found->second.id;
  if (device >= 0 && found->second.device >= 0 && found->second.device != device) {
    *owner = found->second.device;
    return Deallocation::kOtherDevice;
  }
  if (found->second.duplicates > 0) {
    --found->second.duplicates;
    return Deallocation::kOk;
  }
  Forget(freed_kind, base, found->second.id, found->second.device);
  allocations.erase(found);
  return Deallocation::kOk;
}

std::pmr::map<uintptr_t, AllocationRecord>::const_iterator ObjectTracker::Containing(
    uintptr_t start, uint64_t size) const {
  auto nearest = AtOrBefore(device_allocations_, start);
  if (!overlaps_seen_ || nearest == device_allocations_.end()) return nearest;
  const auto contains = [&](const AllocationRecord& record, uint64_t bytes) {
    const uint64_t offset = start - record.base;
    return (offset < record.size || (record.size == 0 && offset == 0)) &&
           bytes <= record.size - offset;
  };
  auto holding_start = device_allocations_.end();
  auto candidate = nearest;
  for (size_t looked = 0; looked < kOverlapSearchLimit; ++looked) {
    if (contains(candidate->second, size)) return candidate;
    if (holding_start == device_allocations_.end() && contains(candidate->second, 1)) {
      holding_start = candidate;
    }
    if (candidate == device_allocations_.begin()) break;
    --candidate;
  }
  return holding_start != device_allocations_.end() ? holding_start : nearest;
}

RangeCheck ObjectTracker::PlaceDeviceRange(const void* address, uint64_t size) const {
  if (size == 0) return {RangePlace::kEmpty, {0, 0, 0}};
  std::lock_guard lock(mutex_);
  return PlaceDeviceRangeLocked(AddressOf(address), size);
}

RangeCheck ObjectTracker::PlaceDeviceRangeLocked(uintptr_t start, uint64_t size) const {
  if (size == 0) return {RangePlace::kEmpty, {0, 0, 0}};
  const auto allocation = Containing(start, size);
  if (allocation != device_allocations_.end()) {
    const AllocationRecord& record = allocation->second;
    const uint64_t offset = start - record.base;
    if (offset < record.size || (record.size == 0 && offset == 0)) {
      if (size <= record.size - offset) {
        return {RangePlace::kInside, {record.id, offset, size}, record.size};
      }
      return {RangePlace::kPastEnd, {0, offset, size}, record.size};
    }
  }
  const auto host = AtOrBefore(host_allocations_, start);
  if (host != host_allocations_.end() && start - host->second.base < host->second.size) {
    return {RangePlace::kInHostMemory, {0, 0, size}, host->second.size};
  }
  return {RangePlace::kNowhere, {0, 0, size}, 0};
}

std::optional<AllocationRecord> ObjectTracker::DeviceAllocationTouchingLocked(uintptr_t start,
                                                                              uint64_t size) const {
  if (size == 0) return std::nullopt;
  const auto before = Containing(start, size);
  if (before != device_allocations_.end() && !before->second.unified &&
      start - before->second.base < before->second.size) {
    return before->second;
  }
  const auto after = device_allocations_.upper_bound(start);
  if (after != device_allocations_.end() && !after->second.unified && after->second.size > 0 &&
      after->second.base - start < size) {
    return after->second;
  }
  return std::nullopt;
}

ObjectTracker::CopyPlaces ObjectTracker::PlaceCopy(const void* device_address, uint64_t size,
                                                   const void* host_address) const {
  std::lock_guard lock(mutex_);
  return {PlaceDeviceRangeLocked(AddressOf(device_address), size),
          DeviceAllocationTouchingLocked(AddressOf(host_address), size)};
}

std::vector<AllocationRecord> ObjectTracker::LiveAllocations(std::optional<int32_t> device) const {
  std::lock_guard lock(mutex_);
  std::vector<AllocationRecord> live;
  for (const auto* allocations : {&device_allocations_, &host_allocations_}) {
    for (const auto& [base, record] : *allocations) {
      if (!device || record.device == *device) live.push_back(record);
    }
  }
  return live;
}

uint32_t ObjectTracker::CallbackEnqueued(const PendingCallback& callback) {
  std::lock_guard lock(mutex_);
  const uint32_t id = next_callback_id_++;
  pending_callbacks_[id] = callback;
  return id;
}

void ObjectTracker::CallbackNotEnqueued(uint32_t id) {
  std::lock_guard lock(mutex_);
  pending_callbacks_.erase(id);
}

void ObjectTracker::CallbackEnqueueReturned(uint32_t id, uint64_t sequence_now) {
  std::lock_guard lock(mutex_);
  if (const auto found = pending_callbacks_.find(id); found != pending_callbacks_.end()) {
    found->second.returned_at = sequence_now;
  }
}

std::optional<PendingCallback> ObjectTracker::CallbackRan(uint32_t id, bool* was_issued) {
  std::lock_guard lock(mutex_);
  const auto found = pending_callbacks_.find(id);
  if (found == pending_callbacks_.end()) {
    *was_issued = id != 0 && id < next_callback_id_;
    return std::nullopt;
  }
  PendingCallback callback = found->second;
  pending_callbacks_.erase(found);
  return callback;
}

std::vector<PendingCallback> ObjectTracker::OverdueCallbacks(const void* stream, int32_t device,
                                                             uint64_t sequence) {
  std::lock_guard lock(mutex_);
  std::vector<PendingCallback> overdue;
  for (auto& [id, callback] : pending_callbacks_) {
    const bool covered = stream != nullptr ? callback.stream == stream : callback.device == device;
    // Covered only by a synchronisation that began after host_callback
    // returned: one that overlapped it owes that callback nothing.
    if (covered && callback.returned_at < sequence && !callback.reported_late) {
      callback.reported_late = true;
      overdue.push_back(callback);
    }
  }
  return overdue;
}

size_t ObjectTracker::PendingCallbacksOn(const void* stream) const {
  std::lock_guard lock(mutex_);
  size_t count = 0;
  for (const auto& [id, callback] : pending_callbacks_) {
    // One already reported as the plugin's (not run by a synchronisation)
    // is not the host's pending work.
    count += callback.stream == stream && !callback.reported_late ? 1 : 0;
  }
  return count;
}

}  // namespace sectl::validate
