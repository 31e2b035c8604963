// The store behind recorded_registrations.h: one mutex over every list, since
// plugins may register from several threads and sectl reads from its own.

#include "tf_c_api/recorded_registrations.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <new>

namespace sectl::tf_c_api {
namespace {

struct Recordings {
  std::mutex mutex;
  std::vector<KernelRegistration> kernels;
  std::vector<OpRegistration> ops;
  std::vector<UnprovidedCall> unprovided;
  // Index into `unprovided`. The keys view the exported functions' __func__
  // strings, which live as long as the program.
  std::unordered_map<std::string_view, std::size_t> unprovided_index;
  std::vector<ApiMisuse> misuses;
  std::vector<LogMessage> log_messages;
  NotRecordedCounts not_recorded;
};

// Never destroyed: a plugin's threads may still call in while the process
// exits, after static destructors have run.
Recordings& State() {
  static Recordings& state = *std::make_unique<Recordings>().release();
  return state;
}

// Appends under the cap, or counts the entry as not recorded.
template <typename Entry>
void AppendCapped(std::vector<Entry>& entries, Entry entry, std::size_t cap,
                  uint64_t& not_recorded) noexcept {
  try {
    if (entries.size() < cap) {
      entries.push_back(std::move(entry));
      return;
    }
  } catch (const std::bad_alloc&) {
    // Counted below, like an entry over the cap.
  }
  ++not_recorded;
}

}  // namespace

std::vector<KernelRegistration> RecordedKernels() {
  Recordings& state = State();
  std::lock_guard lock(state.mutex);
  return state.kernels;
}

std::vector<OpRegistration> RecordedOps() {
  Recordings& state = State();
  std::lock_guard lock(state.mutex);
  return state.ops;
}

std::vector<UnprovidedCall> UnprovidedCalls() {
  Recordings& state = State();
  std::lock_guard lock(state.mutex);
  return state.unprovided;
}

std::vector<ApiMisuse> RecordedMisuses() {
  Recordings& state = State();
  std::lock_guard lock(state.mutex);
  return state.misuses;
}

std::vector<LogMessage> RecordedLogMessages() {
  Recordings& state = State();
  std::lock_guard lock(state.mutex);
  return state.log_messages;
}

NotRecordedCounts NotRecorded() {
  Recordings& state = State();
  std::lock_guard lock(state.mutex);
  return state.not_recorded;
}

ModuleRecording RecordedSoFar() {
  Recordings& state = State();
  std::lock_guard lock(state.mutex);
  return {.kernels = state.kernels,
          .ops = state.ops,
          .unprovided_calls = state.unprovided,
          .misuses = state.misuses,
          .log_messages = state.log_messages,
          .not_recorded = state.not_recorded};
}

void ClearRecordings() {
  Recordings& state = State();
  std::lock_guard lock(state.mutex);
  state.kernels.clear();
  state.ops.clear();
  state.unprovided.clear();
  state.unprovided_index.clear();
  state.misuses.clear();
  state.log_messages.clear();
  state.not_recorded = {};
}

void RecordKernel(KernelRegistration registration) noexcept {
  try {
    Recordings& state = State();
    std::lock_guard lock(state.mutex);
    AppendCapped(state.kernels, std::move(registration), kMaxRecordedKernels,
                 state.not_recorded.kernels);
  } catch (...) {
    // Only locking can throw here (std::system_error); the entry is lost.
  }
}

void RecordOp(OpRegistration registration) noexcept {
  try {
    Recordings& state = State();
    std::lock_guard lock(state.mutex);
    AppendCapped(state.ops, std::move(registration), kMaxRecordedOps, state.not_recorded.ops);
  } catch (...) {
    // As in RecordKernel.
  }
}

void RecordMisuse(const char* function, std::string problem) noexcept {
  try {
    ApiMisuse misuse{.function = function, .problem = std::move(problem)};
    Recordings& state = State();
    std::lock_guard lock(state.mutex);
    AppendCapped(state.misuses, std::move(misuse), kMaxRecordedMisuses, state.not_recorded.misuses);
  } catch (...) {
    // Out of memory for the copy, or a failed lock: the entry is lost.
  }
}

void RecordLogMessage(LogMessage message) noexcept {
  try {
    Recordings& state = State();
    std::lock_guard lock(state.mutex);
    AppendCapped(state.log_messages, std::move(message), kMaxRecordedLogMessages,
                 state.not_recorded.log_messages);
  } catch (...) {
    // As in RecordKernel.
  }
}

void NoteUnprovided(const char* function, TF_Status* status, bool needs_running_kernel) noexcept {
  try {
    Recordings& state = State();
    std::lock_guard lock(state.mutex);
    // Reserved first, so that a failed push_back cannot leave an index entry
    // pointing past the end.
    state.unprovided.reserve(state.unprovided.size() + 1);
    const auto [entry, inserted] =
        state.unprovided_index.try_emplace(function, state.unprovided.size());
    if (inserted) {
      state.unprovided.push_back(
          UnprovidedCall{.function = function, .needs_running_kernel = needs_running_kernel});
    }
    ++state.unprovided[entry->second].calls;
  } catch (...) {
    // The count is lost; the status below still tells the plugin.
  }
  if (status == nullptr) {
    return;
  }
  // A fixed buffer, so that even an allocation failure leaves the plugin with
  // an error it can read.
  char message[256] = {};
  try {
    fmt::format_to_n(message, sizeof(message) - 1,
                     "sectl does not provide {}: sectl records a plugin's registrations but "
                     "runs no TensorFlow kernels, graphs or file systems",
                     function);
  } catch (...) {
    std::strncpy(message, "sectl does not provide this function", sizeof(message) - 1);
  }
  TF_SetStatus(status, TF_UNIMPLEMENTED, message);
}

void SetStatusFor(TF_Status* status, TF_Code code, const char* function,
                  std::string_view problem) noexcept {
  if (status == nullptr) {
    return;
  }
  char message[kMaxRecordedStringBytes + 256] = {};
  try {
    if (function != nullptr) {
      fmt::format_to_n(message, sizeof(message) - 1, "{}: {}", function, problem);
    } else {
      fmt::format_to_n(message, sizeof(message) - 1, "{}", problem);
    }
  } catch (...) {
    // Formatting into a fixed buffer does not allocate; keep what was written.
  }
  TF_SetStatus(status, code, message);
}

std::string BoundedCopy(const char* text, bool* truncated) {
  if (text == nullptr) {
    return {};
  }
  // One byte more than is kept, to tell a string of exactly the cap from a
  // longer one.
  const std::size_t length = strnlen(text, kMaxRecordedStringBytes + 1);
  if (length > kMaxRecordedStringBytes) {
    if (truncated != nullptr) {
      *truncated = true;
    }
    return std::string(text, kMaxRecordedStringBytes);
  }
  return std::string(text, length);
}

void AppendError(std::string& errors, std::string_view error, bool* truncated) {
  if (!errors.empty()) {
    errors += "; ";
  }
  errors += error;
  if (errors.size() > kMaxRecordedStringBytes) {
    errors.resize(kMaxRecordedStringBytes);
    if (truncated != nullptr) {
      *truncated = true;
    }
  }
}

}  // namespace sectl::tf_c_api
