// What the validation layer knows about the plugin's objects: which
// streams, events and timers are live and on which device, which device
// memory is allocated, and which host callbacks are still to run. Handles
// are the plugin's own values, tracked by value and never replaced: the
// plugin's kernels receive them from TensorFlow and must see their own.
//
// Real plugins share one handle among several streams (NEC's VEDA returns
// a static stream) or return null handles (TensorFlow's sample plugin), so
// a handle is counted, not owned: creating it again while live is legal,
// destroying it more often than it was created is not, and null is never
// tracked.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory_resource>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "tensorflow/c/experimental/stream_executor/stream_executor.h"
#include "trace/trace_record.h"
#include "validate/flat_handle_map.h"
#include "validate/layer_heap.h"
#include "validate/short_lock.h"

namespace sectl::validate {

enum class HandleKind : uint8_t { kStream, kEvent, kTimer };
std::string_view HandleKindName(HandleKind kind);  // "stream", "event", "timer"

// How a handle passed to the plugin stands.
enum class HandleUse : uint8_t {
  kLive,          // created on this device, not destroyed since
  kUntracked,     // null: the plugin returned null handles, nothing to check
  kNeverCreated,  // no create returned it
  kDestroyed,     // every creation of it was destroyed
  kOtherDevice,   // live, but created on another device
};

struct HandleCheck {
  HandleUse use = HandleUse::kUntracked;
  uint32_t id = 0;          // the identity for the trace
  int32_t created_on = -1;  // for kOtherDevice: a device that created it
};

// Where a device-memory argument lies.
enum class RangePlace : uint8_t {
  kInside,        // inside one live device (or unified) allocation
  kEmpty,         // size 0: nothing to place
  kPastEnd,       // starts in an allocation and runs past its end
  kInHostMemory,  // inside a host_memory_allocate block
  kNowhere,       // in no live allocation
};

struct RangeCheck {
  RangePlace place = RangePlace::kNowhere;
  trace::DeviceRange range;      // allocation 0 unless kInside
  uint64_t allocation_size = 0;  // for kPastEnd: the allocation's size
};

// A live allocation, for leak reports.
struct AllocationRecord {
  uintptr_t base = 0;
  uint64_t size = 0;
  uint32_t id = 0;
  int32_t device = -1;
  bool unified = false;
  bool host = false;        // host_memory_allocate
  uintptr_t call_site = 0;  // the host's return address into its own code
  uint64_t sequence = 0;
  // Further allocations the plugin returned at this same base while it was
  // live (its fault, reported once): each is freed in turn.
  uint32_t duplicates = 0;
};

enum class Deallocation : uint8_t { kOk, kUnknown, kTwice, kNull, kOtherDevice };

// A host callback the plugin has been given and has not yet run.
struct PendingCallback {
  SE_StatusCallbackFn function = nullptr;
  void* argument = nullptr;
  const void* stream = nullptr;
  int32_t device = -1;
  uint32_t stream_id = 0;
  uint64_t sequence = 0;  // the host_callback call's
  // The layer's sequence counter when host_callback returned to the host
  // (kNotReturned until then): a synchronisation covers the callback only
  // if it began after that, as nothing else orders two calls of two
  // threads.
  static constexpr uint64_t kNotReturned = ~uint64_t{0};
  uint64_t returned_at = kNotReturned;
  bool reported_late = false;
};

class ObjectTracker {
 public:
  // Devices. TensorFlow hands create_device an SP_Device on its stack and
  // passes its executor's own copy (another address) to every later call,
  // so the layer cannot key devices by the address create_device saw. It
  // keeps which ordinals are live, and the addresses destroy_device was
  // given: a later call on such an address whose device (by the ordinal
  // now there) is not live is a use after destroy. Lock-free (every call
  // asks): fixed arrays, written only by create and destroy.
  // `ordinal`: SP_Device.ordinal as the plugin filled it in, which is what
  // later calls read.
  void DeviceCreated(int32_t ordinal);
  void DeviceDestroyed(const SP_Device* device, int32_t ordinal);
  // Whether a call on `device`, which now reads `ordinal`, uses a destroyed
  // device.
  bool DeviceWasDestroyed(const SP_Device* device, int32_t ordinal) const;
  // Live streams, events and timers created on `device`, by HandleKind.
  std::array<size_t, 3> LiveHandlesOn(int32_t device) const;

  // Handles.
  uint32_t HandleCreated(HandleKind kind, const void* handle, int32_t device);
  HandleCheck CheckHandle(HandleKind kind, const void* handle, int32_t device) const;
  // Counts a destroy. The check says how the handle stood before it.
  HandleCheck HandleDestroyed(HandleKind kind, const void* handle, int32_t device);

  // A stream-ordered call, before it is passed on, under one lock (the
  // layer's cost per call is mostly its locks): `stream` checked, and
  // `other` (of `other_kind`: an event, a timer, the source stream of a
  // dependency) when given; and the call counted as work enqueued on the
  // stream, as if it will succeed. The caller undoes that with
  // EnqueueFailed when the plugin refuses the call or it is withheld.
  struct OrderedCallCheck {
    HandleCheck stream;
    HandleCheck other;
  };
  OrderedCallCheck BeginOrderedCall(const void* stream, int32_t device,
                                    HandleKind other_kind = HandleKind::kStream,
                                    const void* other = nullptr);
  void EnqueueFailed(const void* stream);

  // Work on streams, for destroy-with-pending-work (enqueues are counted
  // by BeginOrderedCall).
  void NoteStreamSynchronised(const void* stream);
  void NoteDeviceSynchronised(int32_t device);
  void NoteEventRecorded(const void* event, const void* stream);
  void NoteEventComplete(const void* event);  // its stream's earlier work is done
  // Work enqueued on `stream` since it was last known to be done.
  uint64_t UnsynchronisedWork(const void* stream) const;
  // How many creations of `handle` are live. A plugin may hand every caller
  // one shared stream (NEC's VEDA does): until the last of them is
  // destroyed, the work on it may be another holder's.
  int64_t LiveCreations(HandleKind kind, const void* handle) const;

  // Memory.
  // Registers an allocation; returns its identity, and in `overlapped` a live
  // allocation it overlaps, if any.
  uint32_t Allocated(const AllocationRecord& allocation,
                     std::optional<AllocationRecord>* overlapped);
  uint32_t HostAllocated(const AllocationRecord& allocation);
  // `device`: the call's device; an allocation of another device is not
  // freed (kOtherDevice, its device in `owner`).
  Deallocation Deallocated(const void* base, bool host, int32_t device, uint32_t* id,
                           int32_t* owner);
  RangeCheck PlaceDeviceRange(const void* address, uint64_t size) const;
  // A copy between host and device memory, under one lock: where its
  // device range lies, and the device allocation its host range touches.
  struct CopyPlaces {
    RangeCheck device;
    std::optional<AllocationRecord> host_touches;
  };
  CopyPlaces PlaceCopy(const void* device_address, uint64_t size, const void* host_address) const;
  std::vector<AllocationRecord> LiveAllocations(std::optional<int32_t> device) const;

  // Host callbacks.
  uint32_t CallbackEnqueued(const PendingCallback& callback);
  void CallbackNotEnqueued(uint32_t id);
  // Takes the callback `id` off the pending list; nullopt when it is not
  // pending (already run: `was_issued` tells a second call from garbage).
  std::optional<PendingCallback> CallbackRan(uint32_t id, bool* was_issued);
  // host_callback has returned to the host; `sequence_now` is the layer's
  // sequence counter at that moment.
  void CallbackEnqueueReturned(uint32_t id, uint64_t sequence_now);
  // Pending callbacks enqueued before `sequence` on `stream` (or on any
  // stream of `device` when stream is null) not reported yet; marks them.
  std::vector<PendingCallback> OverdueCallbacks(const void* stream, int32_t device,
                                                uint64_t sequence);
  size_t PendingCallbacksOn(const void* stream) const;

 private:
  struct HandleState {
    uint32_t id = 0;
    int64_t live = 0;
    uint64_t devices = 0;        // bit n: created on device n (n < 64)
    bool other_devices = false;  // created on a device numbered 64 or more
    int32_t first_device = -1;
    uint64_t unsynchronised = 0;  // streams: work enqueued since done
    uint64_t enqueued_total = 0;  // streams: work enqueued ever (event records compare it)
  };
  HandleCheck CheckHandleLocked(HandleKind kind, const void* handle, int32_t device) const;
  // What the entry `state` found for `handle` (null: none) says.
  HandleCheck ClassifyLocked(HandleKind kind, const void* handle, int32_t device,
                             const HandleState* state) const;
  struct EventRecordState {
    const void* stream = nullptr;
    uint64_t work_at_record = 0;  // the stream's enqueue count when recorded
  };

  static bool CreatedOn(const HandleState& state, int32_t device);
  RangeCheck PlaceDeviceRangeLocked(uintptr_t start, uint64_t size) const;
  // The live device allocation containing any of [start, start + size)
  // that host code must not touch (not unified memory), if any.
  std::optional<AllocationRecord> DeviceAllocationTouchingLocked(uintptr_t start,
                                                                 uint64_t size) const;

  // The live device allocation that contains [start, start + size) whole,
  // else one that contains `start`; end() when none. Only once the plugin
  // has returned overlapping allocations can the nearest one below `start`
  // be a small block inside a large one that holds the range: then it looks
  // further down (bounded), so a copy inside the large block is not blamed
  // on the host.
  std::pmr::map<uintptr_t, AllocationRecord>::const_iterator Containing(uintptr_t start,
                                                                        uint64_t size) const;
  static constexpr size_t kOverlapSearchLimit = 4096;

  static constexpr size_t kTrackedOrdinals = 64;  // higher ordinals go unchecked
  // Devices created minus destroyed, per ordinal as the plugin filled it in
  // (a plugin may give several devices one ordinal).
  std::array<std::atomic<int32_t>, kTrackedOrdinals> ordinal_live_{};
  std::array<std::atomic<const SP_Device*>, 64> destroyed_at_{};  // a ring
  std::atomic<size_t> next_destroyed_{0};

  // What was destroyed or freed lately, to tell a second destroy (or a use
  // after destroy) from a value that was never created. A fixed ring, so
  // that the layer's memory does not grow with every create-destroy cycle:
  // sectl's own lifecycle checks would take that for the plugin's leak.
  struct Forgotten {
    uint8_t kind = 0xff;  // HandleKind, or kFreedDevice / kFreedHost
    uint32_t id = 0;
    int32_t device = -1;
    const void* value = nullptr;
  };
  static constexpr uint8_t kFreedDevice = 0x10;
  static constexpr uint8_t kFreedHost = 0x11;
  void Forget(uint8_t kind, const void* value, uint32_t id, int32_t device);
  const Forgotten* Recall(uint8_t kind, const void* value) const;

  // Every table lives in the layer's own guarded mappings (layer_heap.h),
  // out of reach of the plugin's and the host's stray heap writes.
  using HandleTable = FlatHandleMap<const void*, HandleState>;
  mutable ShortLock mutex_;
  std::array<HandleTable, 3> handles_{HandleTable(LayerHeap()), HandleTable(LayerHeap()),
                                      HandleTable(LayerHeap())};
  uint32_t next_handle_id_[3] = {1, 1, 1};
  FlatHandleMap<const void*, EventRecordState> recorded_events_{LayerHeap()};

  std::pmr::map<uintptr_t, AllocationRecord> device_allocations_{LayerHeap()};
  std::pmr::map<uintptr_t, AllocationRecord> host_allocations_{LayerHeap()};
  bool overlaps_seen_ = false;  // the plugin returned overlapping allocations
  uint32_t next_allocation_id_ = 1;
  uint32_t next_host_allocation_id_ = 1;
  std::array<Forgotten, 4096> forgotten_{};
  size_t next_forgotten_ = 0;

  FlatHandleMap<uint64_t, PendingCallback> pending_callbacks_{LayerHeap()};
  uint32_t next_callback_id_ = 1;
};

}  // namespace sectl::validate
