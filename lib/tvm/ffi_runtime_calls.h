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
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/error.h"
#include "loader/plugin_library.h"
#include "tvm/ffi_runtime_abi.h"

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
// TVMFFIObjectDecRef when destroyed, unless taken back with Release().
class FfiObject {
 public:
  FfiObject() = default;
  FfiObject(ffi_abi::ObjectHandle handle, ffi_abi::ObjectDecRef dec_ref)
      : handle_(handle), dec_ref_(dec_ref) {}
  ~FfiObject() { Reset(); }
  FfiObject(FfiObject&& other) noexcept
      : handle_(std::exchange(other.handle_, nullptr)), dec_ref_(other.dec_ref_) {}
  FfiObject& operator=(FfiObject&& other) noexcept {
    if (this != &other) {
      Reset();
      handle_ = std::exchange(other.handle_, nullptr);
      dec_ref_ = other.dec_ref_;
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
    if (handle_ != nullptr) (void)dec_ref_(std::exchange(handle_, nullptr));
  }

  ffi_abi::ObjectHandle handle_ = nullptr;
  ffi_abi::ObjectDecRef dec_ref_ = nullptr;
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
  // kNotFound names the first missing entry point.
  static Expected<FfiRuntime> Bind(const loader::PluginLibrary& library);

  const FfiEntryPoints& entry_points() const { return entry_; }

  // TVMFFIFunctionGetGlobal: the function, or an empty FfiObject when the
  // runtime registers no global of that name.
  Expected<FfiObject> GetGlobal(const std::string& name);
  // TVMFFIFunctionCall of `function` (called `name` in messages).
  Expected<FfiResult> Call(const std::string& name, const FfiObject& function,
                           std::vector<ffi_abi::Any> arguments);
  // TVMFFIObjectDecRef of a reference taken with FfiObject::Release().
  Expected<void> DecRef(ffi_abi::ObjectHandle handle);

  // Every call into the runtime that answers a status goes through here:
  // a nonzero result becomes an error carrying the raised Error's kind and
  // message, which also becomes last_error(). (The others: Call's
  // TVMFFIFunctionCall comes here too; TVMBackendAllocWorkspace answers a
  // pointer, see Invoke; FfiObject's destructor releases without asking.)
  template <typename Function, typename... Args>
  Expected<void> Dispatch(const std::string& name, Function function, Args... args) {
    last_error_.reset();
    auto result = Invoke(name, function, args...);
    if (!result) return tl::unexpected(result.error());
    if (*result == 0) return {};
    return tl::unexpected(TakeRaisedError(name, fmt::format("returned {}", *result)));
  }
  // Calls `function`, turning a C++ exception thrown through its C
  // boundary into an error: TVM's TVMBackendAllocWorkspace and
  // TVMBackendFreeWorkspace catch nothing (src/runtime/device_api.cc).
  template <typename Function, typename... Args>
  auto Invoke(const std::string& name, Function function, Args... args)
      -> Expected<decltype(function(args...))> {
    try {
      return function(args...);
    } catch (const std::exception& thrown) {
      return Fail(
          ErrorCode::kPluginError,
          fmt::format("{} threw a C++ exception through its C boundary: {}", name, thrown.what()));
    }
  }
  // The error for a failed call whose failure is not a return code (a
  // workspace allocation's null): whatever the runtime raised, if anything.
  Error TakeRaisedError(const std::string& name, const std::string& what);

  // "<kind>: <message>" of the last raised Error, empty when its message
  // was; nullopt when the last failure raised none.
  const std::optional<std::string>& last_error() const { return last_error_; }

 private:
  explicit FfiRuntime(FfiEntryPoints entry) : entry_(entry) {}

  FfiEntryPoints entry_;
  std::optional<std::string> last_error_;
};

}  // namespace sectl::tvm
