#include "validate/call.h"

#include <fmt/format.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <memory_resource>

#include "validate/finding_log.h"
#include "validate/layer.h"
#include "validate/layer_heap.h"

namespace sectl::validate {

// What the layer keeps per thread: its number and the call in flight on it.
// One pthread key, read once per call: not thread_local, because this
// library is dlopen'ed, so thread_local would be dynamic TLS, whose
// bookkeeping LeakSanitizer (clang 14, glibc 2.36) misreads and crashes on
// at exit; and one key, not two, because each pthread_setspecific costs
// more than the rest of a cheap call's bookkeeping.
// It also counts the thread's calls: a plain increment of a counter only
// this thread writes, where one shared counter would cost a locked
// instruction on every call. The report adds up every thread's.
struct ThreadSlot {
  uint32_t number = 0;
  Call* in_flight = nullptr;
  std::array<std::atomic<uint64_t>, kCountedFunctions> forwarded{};
  std::array<std::atomic<uint64_t>, kCountedFunctions> withheld{};
  ThreadSlot* next = nullptr;  // every slot made, newest first

  void Count(abi::PluginFunction function, bool was_forwarded) {
    std::atomic<uint64_t>& counter =
        (was_forwarded ? forwarded : withheld)[static_cast<size_t>(function)];
    counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
};

namespace {

// The newest slot; slots are only ever added, so a reader (the report,
// even from a signal handler) walks the list without a lock.
std::atomic<ThreadSlot*> newest_slot{nullptr};

pthread_key_t ThreadSlotKey() {
  static const pthread_key_t key = [] {
    pthread_key_t created{};
    ::pthread_key_create(&created, nullptr);
    return created;
  }();
  return key;
}

// The slot of this thread if it has one (for a signal handler: allocates
// nothing).
ThreadSlot* ExistingThreadSlot() {
  return static_cast<ThreadSlot*>(::pthread_getspecific(ThreadSlotKey()));
}

// The slot of this thread, made at its first call. Slots are never freed:
// a few bytes per thread that ever called the plugin, in the layer's heap,
// and a call made while the thread exits still finds its own.
ThreadSlot& ThisThreadSlot() {
  ThreadSlot* slot = ExistingThreadSlot();
  if (slot == nullptr) [[unlikely]] {
    static std::atomic<uint32_t> next_number{1};
    slot = std::pmr::polymorphic_allocator<ThreadSlot>(LayerHeap()).new_object<ThreadSlot>();
    slot->number = next_number.fetch_add(1, std::memory_order_relaxed);
    slot->next = newest_slot.load(std::memory_order_relaxed);
    while (!newest_slot.compare_exchange_weak(slot->next, slot, std::memory_order_release,
                                              std::memory_order_relaxed)) {
    }
    ::pthread_setspecific(ThreadSlotKey(), slot);
  }
  return *slot;
}

}  // namespace

InFlight::InFlight(Call& call) : slot_(call.thread_slot()), outer_(slot_->in_flight) {
  slot_->in_flight = &call;
}

InFlight::~InFlight() { slot_->in_flight = outer_; }

Call* InFlightOnThisThread() {
  const ThreadSlot* slot = ExistingThreadSlot();
  return slot != nullptr ? slot->in_flight : nullptr;
}

uint32_t ThisThreadNumber() { return ThisThreadSlot().number; }

CallCounts CountsOfEveryThread() {
  CallCounts total;
  for (const ThreadSlot* slot = newest_slot.load(std::memory_order_acquire); slot != nullptr;
       slot = slot->next) {
    for (size_t i = 0; i < kCountedFunctions; ++i) {
      total.forwarded[i] += slot->forwarded[i].load(std::memory_order_relaxed);
      total.withheld[i] += slot->withheld[i].load(std::memory_order_relaxed);
    }
  }
  return total;
}

// arguments_ is filled only up to argument_count_ (call.h says why).
// NOLINTNEXTLINE(cppcoreguidelines-pro-type-member-init)
Call::Call(abi::PluginFunction function, const SP_Device* device, trace::RecordKind kind)
    : layer_(Layer::Get()), thread_slot_(&ThisThreadSlot()) {
  record_.kind = kind;
  record_.function = function;
  record_.device = device != nullptr ? device->ordinal : -1;
  record_.sequence = layer_.NextSequence();
  record_.thread = thread_slot_->number;
  if (layer_.tracing()) record_.start_ns = layer_.Now();
  if (kind == trace::RecordKind::kCall &&
      layer_.objects().DeviceWasDestroyed(device, record_.device)) {
    const std::string what = fmt::format("device {} ({}) was destroyed before this call",
                                         record_.device, static_cast<const void*>(device));
    Raise(FindingKind::kDeviceUsedAfterDestroy, what);
    Withhold(what);
  }
}

TF_Status* Call::SubstituteForNullStatus() {
  if (!substitute_status_) {
    Raise(FindingKind::kStatusNullFromHost,
          fmt::format("the host passed a null TF_Status to {}", abi::QualifiedName(function())));
    substitute_status_.reset(TF_NewStatus());
  }
  return substitute_status_.get();
}

Call::~Call() {
  if (record_.kind == trace::RecordKind::kCall) {
    thread_slot_->Count(record_.function, forwarded_);
    // Traced as such, so that a replay does not issue what the plugin
    // never saw (a destroyed handle would crash it there).
    if (!forwarded_) record_.kind = trace::RecordKind::kCallWithheld;
  }
  if (layer_.tracing()) {
    record_.duration_ns = layer_.Now() - record_.start_ns;
    layer_.AppendToTrace(record_);
  }
}

void Call::Keep(const char* name, uint64_t value, bool hex) {
  if (argument_count_ < arguments_.size()) arguments_[argument_count_++] = {name, value, hex};
}

void Call::Raise(FindingKind kind, std::string message) {
  Finding finding;
  finding.kind = kind;
  finding.function = record_.function;
  finding.message = std::move(message);
  finding.sequence = record_.sequence;
  finding.thread = record_.thread;
  finding.os_thread = static_cast<int64_t>(::syscall(SYS_gettid));
  if (record_.device >= 0) finding.arguments.push_back({"device", std::to_string(record_.device)});
  for (size_t i = 0; i < argument_count_; ++i) {
    const KeptArgument& argument = arguments_[i];
    finding.arguments.push_back({argument.name, argument.hex ? fmt::format("{:#x}", argument.value)
                                                             : std::to_string(argument.value)});
  }
  layer_.findings().Add(finding);
  if (InfoOf(kind).severity == Severity::kError) layer_.AfterError();
}

}  // namespace sectl::validate
