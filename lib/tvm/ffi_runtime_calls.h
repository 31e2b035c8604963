// Calling into a TVM runtime through tvm-ffi's C ABI (ffi_runtime_abi.h):
// the entry points bound from the loaded library, owned object references
// released exactly once, global functions looked up and called, and a
// raised Error turned into sectl's Error with the runtime's kind and
// message. The DeviceAPI route over tvm-ffi (ffi_runtime_route.h) is built
// on this; nothing here knows about devices.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "abi/plugin_functions.h"
#include "base/error.h"
#include "host/journal.h"
#include "loader/plugin_library.h"
#include "tvm/ffi_runtime_abi.h"
#include "tvm/runtime_call.h"

namespace sectl::tvm {

// The tvm-ffi and backend entry points the route calls, from dlsym on the
// runtime library (which also searches libtvm_ffi.so, its dependency).
struct FfiEntryPoints {
  ffi_abi::FunctionGetGlobal get_global = nullptr;
  ffi_abi::FunctionCall call = nullptr;
  ffi_abi::ErrorMoveFromRaised move_error = nullptr;
  ffi_abi::ObjectDecRef dec_ref = nullptr;
  ffi_abi::BackendAllocWorkspace alloc_workspace = nullptr;
  ffi_abi::BackendFreeWorkspace free_workspace = nullptr;
};

// One owned strong reference to a tvm-ffi object: released with
// TVMFFIObjectDecRef, through `caller` (and so journalled), when destroyed,
// unless taken back with Release(). `caller` outlives the object.
class FfiObject {
 public:
  FfiObject() = default;
  FfiObject(ffi_abi::ObjectHandle handle, ffi_abi::ObjectDecRef dec_ref,
            const RuntimeCaller* caller)
      : handle_(handle), dec_ref_(dec_ref), caller_(caller) {}
  ~FfiObject() { Reset(); }
  FfiObject(FfiObject&& other) noexcept
      : handle_(std::exchange(other.handle_, nullptr)),
        dec_ref_(other.dec_ref_),
        caller_(other.caller_) {}
  FfiObject& operator=(FfiObject&& other) noexcept {
    if (this != &other) {
      Reset();
      handle_ = std::exchange(other.handle_, nullptr);
      dec_ref_ = other.dec_ref_;
      caller_ = other.caller_;
    }
    return *this;
  }
  FfiObject(const FfiObject&) = delete;
  FfiObject& operator=(const FfiObject&) = delete;

  ffi_abi::ObjectHandle get() const { return handle_; }
  bool empty() const { return handle_ == nullptr; }
  // The type index in the object's own header.
  int32_t header_type_index() const {
    return static_cast<const ffi_abi::ObjectHeader*>(handle_)->type_index;
  }
  // Gives the reference up without releasing it: the caller now owns it.
  ffi_abi::ObjectHandle Release() { return std::exchange(handle_, nullptr); }

 private:
  void Reset() {
    if (handle_ == nullptr) return;
    (void)caller_->Call(abi::PluginFunction::kTvmFfiObjectDecRef, dec_ref_,
                        std::exchange(handle_, nullptr));
  }

  ffi_abi::ObjectHandle handle_ = nullptr;
  ffi_abi::ObjectDecRef dec_ref_ = nullptr;
  const RuntimeCaller* caller_ = nullptr;
};

// A call's result: the value cell and, when it holds an object, the owned
// reference to it (released with the result).
struct FfiResult {
  ffi_abi::Any value{};
  FfiObject object;
};

// An argument cell: a borrowed view, as tvm-ffi's callers pass them.
ffi_abi::Any FfiInt(int64_t value);
ffi_abi::Any FfiDevice(DLDevice device);
ffi_abi::Any FfiDataType(DLDataType dtype);
ffi_abi::Any FfiTensorPointer(DLTensor* tensor);
ffi_abi::Any FfiObjectView(const FfiObject& object);
ffi_abi::Any FfiNone();

class FfiRuntime {
 public:
  // The entry points `library` lacks (empty: it offers the tvm-ffi route).
  static std::vector<std::string> MissingEntryPoints(const loader::PluginLibrary& library);
  // kNotFound names the first missing entry point. Every call into the
  // runtime is journalled in `journal` (kept alive by the caller), or in a
  // journal of the runtime's own when null.
  static Expected<FfiRuntime> Bind(const loader::PluginLibrary& library,
                                   host::Journal* journal = nullptr);

  const FfiEntryPoints& entry_points() const { return entry_; }

  // TVMFFIFunctionGetGlobal: the function, or an empty FfiObject when the
  // runtime registers no global of that name.
  Expected<FfiObject> GetGlobal(const std::string& name);
  // TVMFFIFunctionCall of `function`, the global `global` (one of the
  // catalogue's kTvmRuntimeGlobal functions, under which the call is
  // journalled and named in messages).
  Expected<FfiResult> Call(abi::PluginFunction global, const FfiObject& function,
                           std::vector<ffi_abi::Any> arguments);
  // TVMFFIObjectDecRef of a reference taken with FfiObject::Release().
  Expected<void> DecRef(ffi_abi::ObjectHandle handle);

  // Every call into the runtime goes through here, and so through the
  // journal (tvm/runtime_call.h), journalled as `function`: a nonzero
  // result becomes an error carrying the raised Error's kind and message,
  // which also becomes last_error(); an escaped C++ exception, an error
  // saying so. TVMBackendAllocWorkspace answers a pointer: see Invoke.
  template <typename Function, typename... Args>
  Expected<void> Dispatch(abi::PluginFunction function, Function entry_point, Args... args) {
    return DispatchAs(function, abi::QualifiedName(function), entry_point, args...);
  }
  // The same, named `shown` in an error the result becomes.
  template <typename Function, typename... Args>
  Expected<void> DispatchAs(abi::PluginFunction function, std::string_view shown,
                            Function entry_point, Args... args) {
    last_error_.reset();
    auto result = Invoke(function, entry_point, args...);
    if (!result) return tl::unexpected(result.error());
    if (*result == 0) return {};
    return tl::unexpected(TakeRaisedError(std::string(shown), fmt::format("returned {}", *result)));
  }
  // Calls `entry_point` as `function`, through the journal; its result as
  // it is. TVM's TVMBackendAllocWorkspace and TVMBackendFreeWorkspace
  // catch nothing (src/runtime/device_api.cc): an exception thrown through
  // them is an error here.
  template <typename R, typename... Params, typename... Args>
  Expected<R> Invoke(abi::PluginFunction function, R (*entry_point)(Params...), Args... args) {
    return caller_->Call(function, entry_point, args...);
  }
  // The error for a failed call whose failure is not a return code (a
  // workspace allocation's null): whatever the runtime raised, if anything.
  Error TakeRaisedError(const std::string& name, const std::string& what);

  // "<kind>: <message>" of the last raised Error, empty when its message
  // was; nullopt when the last failure raised none.
  const std::optional<std::string>& last_error() const { return last_error_; }

 private:
  FfiRuntime(FfiEntryPoints entry, host::Journal* journal)
      : entry_(entry),
        caller_(std::make_unique<RuntimeCaller>(journal, "a raised Error (TVMFFIErrorSetRaised)")) {
  }

  FfiObject Own(ffi_abi::ObjectHandle handle) const {
    return FfiObject(handle, entry_.dec_ref, caller_.get());
  }

  FfiEntryPoints entry_;
  // On the heap: every FfiObject keeps its address.
  std::unique_ptr<RuntimeCaller> caller_;
  std::optional<std::string> last_error_;
};

}  // namespace sectl::tvm
