#include "tvm/c_runtime_route.h"

#include <fmt/format.h>

#include <array>

#include "tvm/byte_tensor.h"
#include "tvm/c_runtime_abi.h"
#include "tvm/runtime_call.h"

namespace sectl::tvm {
namespace {

using F = abi::PluginFunction;

// The entry points the route needs, by name, and where each is kept.
struct EntryPoints {
  c_abi::DeviceAllocDataSpace alloc = nullptr;
  c_abi::DeviceFreeDataSpace free = nullptr;
  c_abi::DeviceCopyDataFromTo copy = nullptr;
  c_abi::StreamCreate stream_create = nullptr;
  c_abi::StreamFree stream_free = nullptr;
  c_abi::SetStream set_stream = nullptr;
  c_abi::Synchronize synchronize = nullptr;
  c_abi::StreamStreamSynchronize stream_stream_synchronize = nullptr;
  c_abi::BackendAllocWorkspace alloc_workspace = nullptr;
  c_abi::BackendFreeWorkspace free_workspace = nullptr;
  c_abi::GetLastError last_error = nullptr;
  c_abi::FuncGetGlobal get_global = nullptr;
  c_abi::FuncCall call = nullptr;
};

EntryPoints BindAll(const loader::PluginLibrary& library, std::vector<std::string>& missing) {
  EntryPoints entry;
  library.BindFunction("TVMDeviceAllocDataSpace", entry.alloc, missing);
  library.BindFunction("TVMDeviceFreeDataSpace", entry.free, missing);
  library.BindFunction("TVMDeviceCopyDataFromTo", entry.copy, missing);
  library.BindFunction("TVMStreamCreate", entry.stream_create, missing);
  library.BindFunction("TVMStreamFree", entry.stream_free, missing);
  library.BindFunction("TVMSetStream", entry.set_stream, missing);
  library.BindFunction("TVMSynchronize", entry.synchronize, missing);
  library.BindFunction("TVMStreamStreamSynchronize", entry.stream_stream_synchronize, missing);
  library.BindFunction("TVMBackendAllocWorkspace", entry.alloc_workspace, missing);
  library.BindFunction("TVMBackendFreeWorkspace", entry.free_workspace, missing);
  library.BindFunction("TVMGetLastError", entry.last_error, missing);
  library.BindFunction("TVMFuncGetGlobal", entry.get_global, missing);
  library.BindFunction("TVMFuncCall", entry.call, missing);
  return entry;
}

class CRuntimeRoute final : public DeviceApiRoute {
 public:
  CRuntimeRoute(EntryPoints entry, int device_type, host::Journal* journal)
      : entry_(entry), device_type_(device_type), caller_(journal, "TVMGetLastError") {}
  ~CRuntimeRoute() override {
    for (void* scratch : scratch_) {
      if (scratch != nullptr) (void)FreeDataSpace(scratch_device_, scratch);
    }
  }
  CRuntimeRoute(const CRuntimeRoute&) = delete;
  CRuntimeRoute& operator=(const CRuntimeRoute&) = delete;

  std::string Describe() const override {
    return "a TVM runtime library through its C API (TVM up to v0.20)";
  }
  int device_type() const override { return device_type_; }
  bool IsTvmRuntime() const override { return true; }
  std::optional<std::string> LastRuntimeError() const override { return last_error_; }

  Expected<AttrValue> GetAttr(int device_id, DeviceAttrKind kind) override;
  Expected<void*> AllocDataSpace(int device_id, size_t bytes, size_t alignment) override {
    void* out = nullptr;
    auto called = Dispatch(F::kTvmDeviceAllocDataSpace, entry_.alloc, Device(device_id), bytes,
                           alignment, DLDataType{kDLUInt, 8, 1}, &out);
    if (!called) return tl::unexpected(called.error());
    return out;
  }
  Expected<void> FreeDataSpace(int device_id, void* pointer) override {
    return Dispatch(F::kTvmDeviceFreeDataSpace, entry_.free, Device(device_id), pointer);
  }
  Expected<void*> AllocWorkspace(int device_id, size_t bytes) override {
    last_error_.reset();
    auto out = caller_.Call(F::kTvmBackendAllocWorkspace, entry_.alloc_workspace, device_type_,
                            device_id, uint64_t{bytes}, int{kDLUInt}, 8);
    if (!out) return out;
    if (*out == nullptr) {
      return Failed(F::kTvmBackendAllocWorkspace, fmt::format("returned null for {} bytes", bytes));
    }
    return out;
  }
  Expected<void> FreeWorkspace(int device_id, void* pointer) override {
    return Dispatch(F::kTvmBackendFreeWorkspace, entry_.free_workspace, device_type_, device_id,
                    pointer);
  }
  Expected<void> CopyDataFromTo(const Place& from, const Place& to, size_t bytes, int device_id,
                                RouteStream stream) override {
    return CopyUnequalSizes(from, bytes, to, bytes, device_id, stream);
  }
  Expected<void> CopyUnequalSizes(const Place& from, size_t from_bytes, const Place& to,
                                  size_t to_bytes, int device_id, RouteStream stream) override {
    ByteTensor source(from, from_bytes, Device(device_id));
    ByteTensor target(to, to_bytes, Device(device_id));
    return Dispatch(F::kTvmDeviceCopyDataFromTo, entry_.copy, source.get(), target.get(), stream);
  }
  Expected<RouteStream> CreateStream(int device_id) override {
    c_abi::StreamHandle out = nullptr;
    auto called =
        Dispatch(F::kTvmStreamCreate, entry_.stream_create, device_type_, device_id, &out);
    if (!called) return tl::unexpected(called.error());
    return out;
  }
  Expected<void> FreeStream(int device_id, RouteStream stream) override {
    return Dispatch(F::kTvmStreamFree, entry_.stream_free, device_type_, device_id, stream);
  }
  Expected<void> SetStream(int device_id, RouteStream stream) override {
    return Dispatch(F::kTvmSetStream, entry_.set_stream, device_type_, device_id, stream);
  }
  Expected<void> StreamSync(int device_id, RouteStream stream) override {
    return Dispatch(F::kTvmSynchronize, entry_.synchronize, device_type_, device_id, stream);
  }
  Expected<void> SyncStreamFromTo(int device_id, RouteStream from, RouteStream to) override {
    return Dispatch(F::kTvmStreamStreamSynchronize, entry_.stream_stream_synchronize, device_type_,
                    device_id, from, to);
  }
  // The C API has no host callback: large device-to-device copies queued on
  // the stream keep it busy instead.
  Expected<void> HoldUpStream(int device_id, RouteStream stream) override {
    constexpr size_t kScratchBytes = size_t{32} << 20;
    constexpr int kCopies = 4;
    if (scratch_[0] == nullptr) {
      for (void*& scratch : scratch_) {
        auto allocated = AllocDataSpace(device_id, kScratchBytes, 64);
        if (!allocated) return tl::unexpected(allocated.error());
        scratch = *allocated;
      }
      scratch_device_ = device_id;
    }
    for (int i = 0; i < kCopies; ++i) {
      auto copied = CopyDataFromTo({Side::kDevice, scratch_[i % 2], 0},
                                   {Side::kDevice, scratch_[(i + 1) % 2], 0}, kScratchBytes,
                                   device_id, stream);
      if (!copied) return copied;
    }
    return {};
  }

 private:
  DLDevice Device(int device_id) const {
    return DLDevice{static_cast<DLDeviceType>(device_type_), device_id};
  }

  // Every call into the runtime that answers a status goes through here,
  // and so through the journal (caller_): a nonzero result becomes an error
  // carrying TVMGetLastError's text.
  template <typename Function, typename... Args>
  Expected<void> Dispatch(abi::PluginFunction function, Function entry_point, Args... args) {
    last_error_.reset();
    auto result = caller_.Call(function, entry_point, args...);
    if (!result) return tl::unexpected(result.error());
    if (*result == 0) return {};
    return Failed(function, fmt::format("returned {}", *result));
  }

  // How a message names the call: a global function is called through
  // TVMFuncCall ("TVMFuncCall(runtime.GetDeviceAttr)").
  static std::string CallName(abi::PluginFunction function) {
    if (abi::InfoOf(function).struct_name == abi::kTvmRuntimeGlobal) {
      return fmt::format("TVMFuncCall({})", abi::QualifiedName(function));
    }
    return std::string(abi::QualifiedName(function));
  }

  tl::unexpected<Error> Failed(abi::PluginFunction function, const std::string& what) {
    auto text = caller_.Call(F::kTvmGetLastError, entry_.last_error);
    if (!text) {
      last_error_ = std::string();
      return tl::unexpected(
          Error(ErrorCode::kPluginError,
                fmt::format("{} {}; then {}", CallName(function), what, text.error().message()))
              .BlamedOn(F::kTvmGetLastError));
    }
    last_error_ = *text == nullptr ? std::string() : std::string(*text);
    return tl::unexpected(Error(
        ErrorCode::kPluginError,
        fmt::format(
            "{} {}; TVMGetLastError: {}", CallName(function), what,
            last_error_->empty() ? "(empty)" : fmt::format("\"{}\"", FirstLineOf(*last_error_)))));
  }

  EntryPoints entry_;
  int device_type_;
  RuntimeCaller caller_;
  c_abi::FunctionHandle get_device_attr_ = nullptr;
  std::optional<std::string> last_error_;
  std::array<void*, 2> scratch_{};
  int scratch_device_ = 0;
};

Expected<AttrValue> CRuntimeRoute::GetAttr(int device_id, DeviceAttrKind kind) {
  if (get_device_attr_ == nullptr) {
    auto found =
        Dispatch(F::kTvmFuncGetGlobal, entry_.get_global, c_abi::kGetDeviceAttr, &get_device_attr_);
    if (!found) return tl::unexpected(found.error());
    if (get_device_attr_ == nullptr) {
      return Fail(
          ErrorCode::kNotFound,
          fmt::format("TVMFuncGetGlobal(\"{}\") found no such function", c_abi::kGetDeviceAttr));
    }
  }
  std::array<c_abi::Value, 3> arguments{};
  arguments[0].v_int64 = device_type_;
  arguments[1].v_int64 = device_id;
  arguments[2].v_int64 = static_cast<int64_t>(kind);
  std::array<int, 3> codes = {c_abi::kArgInt, c_abi::kArgInt, c_abi::kArgInt};
  c_abi::Value result{};
  int result_code = c_abi::kNullptr;
  // Journalled as the global it calls (TVMFuncCall of runtime.GetDeviceAttr).
  auto called = Dispatch(F::kTvmGlobalGetDeviceAttr, entry_.call, get_device_attr_,
                         arguments.data(), codes.data(), 3, &result, &result_code);
  if (!called) return tl::unexpected(called.error());
  switch (result_code) {
    case c_abi::kNullptr:
      return AttrValue{};  // TVM's None: the backend left the result unset
    case c_abi::kArgInt:
    case c_abi::kArgBool:
      return AttrValue{result.v_int64};
    case c_abi::kArgFloat:
      return AttrValue{static_cast<int64_t>(result.v_float64)};
    case c_abi::kStr:
      // The runtime's thread-local return buffer: copied at once.
      return AttrValue{std::string(result.v_str == nullptr ? "" : result.v_str)};
    default:
      return Fail(ErrorCode::kPluginError,
                  fmt::format("runtime.GetDeviceAttr({}) returned type code {}, which is "
                              "neither an integer, a string nor None",
                              DeviceAttrName(kind), result_code));
  }
}

}  // namespace

std::vector<std::string> MissingCRuntimeEntryPoints(const loader::PluginLibrary& library) {
  std::vector<std::string> missing;
  (void)BindAll(library, missing);
  return missing;
}

Expected<std::unique_ptr<DeviceApiRoute>> MakeCRuntimeRoute(const loader::PluginLibrary& library,
                                                            int device_type,
                                                            host::Journal* journal) {
  std::vector<std::string> missing;
  EntryPoints entry = BindAll(library, missing);
  if (!missing.empty()) {
    return Fail(ErrorCode::kNotFound,
                fmt::format("{}: does not export {}, an entry point of TVM's C runtime API "
                            "(TVM up to v0.20)",
                            library.path(), missing.front()));
  }
  return std::unique_ptr<DeviceApiRoute>(
      std::make_unique<CRuntimeRoute>(entry, device_type, journal));
}

}  // namespace sectl::tvm
