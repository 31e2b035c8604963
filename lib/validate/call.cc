#include "validate/call.h"

#include <fmt/format.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>

#include "validate/finding_log.h"
#include "validate/layer.h"

namespace sectl::validate {

namespace {

// Pthread keys, not thread_local: this library is dlopen'ed, so
// thread_local would be dynamic TLS, whose bookkeeping LeakSanitizer
// (clang 14, glibc 2.36) misreads and crashes on at exit.
pthread_key_t NewThreadKey() {
  pthread_key_t created{};
  ::pthread_key_create(&created, nullptr);
  return created;
}

pthread_key_t InFlightKey() {
  static const pthread_key_t key = NewThreadKey();
  return key;
}

}  // namespace

InFlight::InFlight(Call& call) : outer_(::pthread_getspecific(InFlightKey())) {
  ::pthread_setspecific(InFlightKey(), &call);
}

InFlight::~InFlight() { ::pthread_setspecific(InFlightKey(), outer_); }

Call* InFlightOnThisThread() { return static_cast<Call*>(::pthread_getspecific(InFlightKey())); }

uint32_t ThisThreadNumber() {
  static const pthread_key_t key = NewThreadKey();
  static std::atomic<uint32_t> next_number{1};
  auto number = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(::pthread_getspecific(key)));
  if (number == 0) {
    number = next_number.fetch_add(1, std::memory_order_relaxed);
    // NOLINTNEXTLINE(performance-no-int-to-ptr): a number kept in the key's slot
    ::pthread_setspecific(key, reinterpret_cast<void*>(static_cast<uintptr_t>(number)));
  }
  return number;
}

// arguments_ is filled only up to argument_count_ (call.h says why).
// NOLINTNEXTLINE(cppcoreguidelines-pro-type-member-init)
Call::Call(abi::PluginFunction function, const SP_Device* device, trace::RecordKind kind)
    : layer_(Layer::Get()) {
  record_.kind = kind;
  record_.function = function;
  record_.device = device != nullptr ? device->ordinal : -1;
  record_.sequence = layer_.NextSequence();
  record_.thread = ThisThreadNumber();
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
  if (record_.kind == trace::RecordKind::kCall) layer_.CountCall(record_.function, forwarded_);
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
