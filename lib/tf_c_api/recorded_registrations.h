// What a plugin's kernel and op modules registered through the TensorFlow C
// API that sectl exports (kernels.h, ops.h), which of the API's other
// functions it called, how it misused the API, and what it logged.
//
// sectl runs no TensorFlow: TF_RegisterKernelBuilder and
// TF_RegisterOpDefinition only record their arguments here, and every
// function sectl cannot provide (TF_GetInput, TF_AllocateOutput, ...) records
// that it was called and fails. sectl reads the result after a plugin's
// TF_InitKernel has run, to report what the plugin registered.
//
// A plugin is untrusted: every string it passes is copied with a bound, and
// the number of entries kept is capped, so a plugin that registers in a loop
// cannot exhaust sectl's memory. What did not fit is counted (NotRecorded).

#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tensorflow/c/tf_status.h"
#include "tf_c_api/module_recording.h"

namespace sectl::tf_c_api {

// Copies of what has been recorded so far, in call order.
std::vector<KernelRegistration> RecordedKernels();
std::vector<OpRegistration> RecordedOps();
// Each function once, in the order of its first call.
std::vector<UnprovidedCall> UnprovidedCalls();
std::vector<ApiMisuse> RecordedMisuses();
std::vector<LogMessage> RecordedLogMessages();
NotRecordedCounts NotRecorded();
// All of the above, read at once.
ModuleRecording RecordedSoFar();

// Forgets everything recorded; for tests. Builders a plugin still holds stay
// valid.
void ClearRecordings();

// For the exported C functions in lib/tf_c_api only. Those marked noexcept
// never throw, because their callers are C code; when memory runs out, the
// entry is dropped.

// Records a registration, or counts it as not recorded past the cap.
void RecordKernel(KernelRegistration registration) noexcept;
void RecordOp(OpRegistration registration) noexcept;
void RecordMisuse(const char* function, std::string problem) noexcept;
void RecordLogMessage(LogMessage message) noexcept;

// Counts a call to `function` and, when status is not null, sets it to
// TF_UNIMPLEMENTED with a message that names the function. Pass the exported
// function's __func__: the count keeps the pointer, so the text must live as
// long as the program. `needs_running_kernel`: the function takes a kernel's
// construction or context (UnprovidedCall says why that matters).
void NoteUnprovided(const char* function, TF_Status* status,
                    bool needs_running_kernel = false) noexcept;

// Clears an out-parameter the plugin passed, when it passed one: what a
// stand-in leaves there is a zero, never what was there before.
template <typename Value>
void ClearOutParameter(Value* out) noexcept {
  if (out != nullptr) *out = Value{};
}

// Sets status (when not null) to `code` with the message
// "<function>: <problem>", or just the problem when function is null. Formats
// into a fixed buffer, so it works when memory has run out.
void SetStatusFor(TF_Status* status, TF_Code code, const char* function,
                  std::string_view problem) noexcept;

// A copy of a string a plugin passed, at most kMaxRecordedStringBytes long;
// sets *truncated when it was cut. Null reads as empty. Never reads past the
// first NUL or past kMaxRecordedStringBytes + 1 bytes. May throw
// std::bad_alloc.
std::string BoundedCopy(const char* text, bool* truncated);

// Appends to a "; "-separated error text, keeping it under the string cap.
// May throw std::bad_alloc.
void AppendError(std::string& errors, std::string_view error, bool* truncated);

// The builders handed to a plugin (TF_KernelBuilder, TF_OpDefinitionBuilder),
// owned here rather than through the pointer the plugin holds. Every call
// looks its builder up instead of dereferencing what the plugin passed, so a
// null, stale or invented pointer is reported, never followed. A registered
// builder stays here, as TensorFlow's registry keeps it; Builder has a
// `bool registered` member that says so.
template <typename Builder>
class BuilderRegistry {
 public:
  // What a lookup found.
  enum class Found { kUsable, kNull, kUnknown, kRegistered };

  // Keeps the builder and returns its handle, or null when `capacity`
  // builders are already kept. May throw std::bad_alloc.
  Builder* Add(std::unique_ptr<Builder> builder, std::size_t capacity) {
    std::lock_guard lock(mutex_);
    if (builders_.size() >= capacity) {
      return nullptr;
    }
    Builder* handle = builder.get();
    builders_.emplace(handle, std::move(builder));
    return handle;
  }

  // Calls use(builder) under the lock when the handle is a builder handed out
  // here and not registered yet.
  template <typename Use>
  Found WithUsable(const Builder* handle, Use&& use) {
    std::lock_guard lock(mutex_);
    Builder* builder = nullptr;
    const Found found = Look(handle, &builder);
    if (found == Found::kUsable) {
      use(*builder);
    }
    return found;
  }

  // Forgets a builder that was never registered, destroying it after the
  // lock is released.
  Found Delete(const Builder* handle) {
    std::unique_ptr<Builder> doomed;
    std::lock_guard lock(mutex_);
    Builder* builder = nullptr;
    const Found found = Look(handle, &builder);
    if (found == Found::kUsable) {
      auto entry = builders_.find(handle);
      doomed = std::move(entry->second);
      builders_.erase(entry);
    }
    return found;
  }

  // Why a lookup that did not find a usable builder failed, for messages.
  static const char* Describe(Found found) {
    switch (found) {
      case Found::kUsable:
        return "the builder is usable";
      case Found::kNull:
        return "the builder is NULL";
      case Found::kUnknown:
        return "the builder is not one sectl handed out, or it was deleted";
      case Found::kRegistered:
        return "the builder was registered already, and TensorFlow owns it from then on";
    }
    return "";
  }

 private:
  Found Look(const Builder* handle, Builder** builder) {
    if (handle == nullptr) {
      return Found::kNull;
    }
    const auto entry = builders_.find(handle);
    if (entry == builders_.end()) {
      return Found::kUnknown;
    }
    *builder = entry->second.get();
    return (*builder)->registered ? Found::kRegistered : Found::kUsable;
  }

  std::mutex mutex_;
  std::unordered_map<const Builder*, std::unique_ptr<Builder>> builders_;
};

}  // namespace sectl::tf_c_api
