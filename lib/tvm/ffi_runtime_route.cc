#include "tvm/ffi_runtime_route.h"

#include <fmt/format.h>

#include <array>
#include <limits>
#include <map>

#include "tvm/byte_tensor.h"
#include "tvm/ffi_runtime_abi.h"
#include "tvm/ffi_runtime_calls.h"

namespace sectl::tvm {
namespace {

constexpr const char* kNullStreamOnly =
    "not expressible through tvm-ffi: runtime.TVMTensorCopyFromTo copies on the null stream "
    "(TVM v0.21 and later register no copy that takes a stream)";

// The globals the route calls, each looked up on first use. `fallback` is
// the name TVM registered before NDArray became Tensor, tried when the
// current one is absent (kCount: none). Their names are the catalogue's
// (abi/plugin_functions.def), under which the calls are journalled.
enum class Global {
  kGetDeviceAttr,
  kStreamCreate,
  kStreamFree,
  kSetStream,
  kStreamSync,
  kStreamSyncFromTo,
  kMakeShape,
  kTensorAlloc,
  kTensorCopy,
  kCount
};
using F = abi::PluginFunction;
struct GlobalName {
  F name;
  F fallback;
};
constexpr std::array<GlobalName, static_cast<size_t>(Global::kCount)> kGlobalNames = {{
    {F::kTvmGlobalGetDeviceAttr, F::kCount},
    {F::kTvmGlobalStreamCreate, F::kCount},
    {F::kTvmGlobalStreamFree, F::kCount},
    {F::kTvmGlobalSetStream, F::kCount},
    {F::kTvmGlobalStreamSync, F::kCount},
    {F::kTvmGlobalStreamSyncFromTo, F::kCount},
    {F::kTvmGlobalMakeShape, F::kCount},
    {F::kTvmGlobalTensorAlloc, F::kTvmGlobalArrayAlloc},
    {F::kTvmGlobalTensorCopy, F::kTvmGlobalArrayCopy},
}};

int64_t StreamAsInt(RouteStream stream) {
  return static_cast<int64_t>(reinterpret_cast<intptr_t>(stream));
}

class FfiRuntimeRoute final : public DeviceApiRoute {
 public:
  FfiRuntimeRoute(FfiRuntime runtime, int device_type)
      : runtime_(std::move(runtime)), device_type_(device_type) {}
  ~FfiRuntimeRoute() override {
    // The tensors first (their deleters free the data), then the globals.
    tensors_.clear();
    for (FfiObject& global : globals_) global = FfiObject();
  }
  FfiRuntimeRoute(const FfiRuntimeRoute&) = delete;
  FfiRuntimeRoute& operator=(const FfiRuntimeRoute&) = delete;

  std::string Describe() const override {
    return "a TVM runtime library through tvm-ffi (TVM v0.21 and later)";
  }
  int device_type() const override { return device_type_; }
  bool IsTvmRuntime() const override { return true; }
  std::optional<std::string> LastRuntimeError() const override { return runtime_.last_error(); }
  std::optional<std::string> CopyStreamLimit() const override { return kNullStreamOnly; }

  Expected<AttrValue> GetAttr(int device_id, DeviceAttrKind kind) override;
  Expected<void*> AllocDataSpace(int device_id, size_t bytes, size_t alignment) override;
  Expected<void> FreeDataSpace(int device_id, void* pointer) override;

  Expected<void*> AllocWorkspace(int device_id, size_t bytes) override {
    auto allocated =
        runtime_.Invoke(F::kTvmBackendAllocWorkspace, runtime_.entry_points().alloc_workspace,
                        device_type_, device_id, uint64_t{bytes}, int{kDLUInt}, 8);
    if (!allocated) return tl::unexpected(allocated.error());
    void* out = *allocated;
    if (out == nullptr) {
      return tl::unexpected(runtime_.TakeRaisedError(
          "TVMBackendAllocWorkspace", fmt::format("returned null for {} bytes", bytes)));
    }
    return out;
  }
  Expected<void> FreeWorkspace(int device_id, void* pointer) override {
    return runtime_.Dispatch(F::kTvmBackendFreeWorkspace, runtime_.entry_points().free_workspace,
                             device_type_, device_id, pointer);
  }

  Expected<void> CopyDataFromTo(const Place& from, const Place& to, size_t bytes, int device_id,
                                RouteStream stream) override {
    return CopyUnequalSizes(from, bytes, to, bytes, device_id, stream);
  }
  Expected<void> CopyUnequalSizes(const Place& from, size_t from_bytes, const Place& to,
                                  size_t to_bytes, int device_id, RouteStream stream) override {
    if (stream != nullptr) return RefuseStream("CopyDataFromTo");
    ByteTensor source(from, from_bytes, Device(device_id));
    ByteTensor target(to, to_bytes, Device(device_id));
    auto copied = CallGlobal(Global::kTensorCopy,
                             {FfiTensorPointer(source.get()), FfiTensorPointer(target.get())});
    if (!copied) return tl::unexpected(copied.error());
    return {};
  }

  Expected<RouteStream> CreateStream(int device_id) override {
    auto created = CallGlobal(Global::kStreamCreate, {FfiDevice(Device(device_id))});
    if (!created) return tl::unexpected(created.error());
    if (created->value.type_index != ffi_abi::kInt) {
      return Fail(ErrorCode::kPluginError,
                  fmt::format("{} returned type index {}, not an integer stream handle",
                              ffi_abi::kStreamCreate, created->value.type_index));
    }
    // TVM hands stream handles across tvm-ffi as int64 (device_api.cc).
    return reinterpret_cast<RouteStream>(  // NOLINT(performance-no-int-to-ptr)
        static_cast<intptr_t>(created->value.v_int64));
  }
  Expected<void> FreeStream(int device_id, RouteStream stream) override {
    return CallOnStream(Global::kStreamFree, device_id, stream);
  }
  Expected<void> SetStream(int device_id, RouteStream stream) override {
    return CallOnStream(Global::kSetStream, device_id, stream);
  }
  Expected<void> StreamSync(int device_id, RouteStream stream) override {
    return CallOnStream(Global::kStreamSync, device_id, stream);
  }
  Expected<void> SyncStreamFromTo(int device_id, RouteStream from, RouteStream to) override {
    auto synced = CallGlobal(
        Global::kStreamSyncFromTo,
        {FfiDevice(Device(device_id)), FfiInt(StreamAsInt(from)), FfiInt(StreamAsInt(to))});
    if (!synced) return tl::unexpected(synced.error());
    return {};
  }

  // Large device-to-device copies keep the null stream busy; no other
  // stream can be held up, since no copy takes one.
  Expected<void> HoldUpStream(int device_id, RouteStream stream) override {
    if (stream != nullptr) return RefuseStream("holding up a stream");
    constexpr size_t kScratchBytes = size_t{32} << 20;
    constexpr int kCopies = 4;
    if (scratch_[0] == nullptr) {
      for (void*& scratch : scratch_) {
        auto allocated = AllocDataSpace(device_id, kScratchBytes, ffi_abi::kAllocAlignment);
        if (!allocated) return tl::unexpected(allocated.error());
        scratch = *allocated;
      }
    }
    for (int i = 0; i < kCopies; ++i) {
      auto copied = CopyDataFromTo({Side::kDevice, scratch_[i % 2], 0},
                                   {Side::kDevice, scratch_[(i + 1) % 2], 0}, kScratchBytes,
                                   device_id, nullptr);
      if (!copied) return copied;
    }
    return {};
  }

 private:
  DLDevice Device(int device_id) const {
    return DLDevice{static_cast<DLDeviceType>(device_type_), device_id};
  }

  static tl::unexpected<Error> RefuseStream(const char* what) {
    return Fail(
        ErrorCode::kUnimplemented,
        fmt::format("{} on a stream other than the null stream: {}", what, kNullStreamOnly));
  }

  // The global's function, looked up once (and its older name if absent).
  Expected<const FfiObject*> Function(Global which) {
    const auto index = static_cast<size_t>(which);
    FfiObject& slot = globals_[index];
    if (!slot.empty()) return &slot;
    const GlobalName& name = kGlobalNames[index];
    for (F candidate : {name.name, name.fallback}) {
      if (candidate == F::kCount) continue;
      auto found = runtime_.GetGlobal(std::string(abi::QualifiedName(candidate)));
      if (!found) return tl::unexpected(found.error());
      if (!found->empty()) {
        slot = std::move(*found);
        called_[index] = candidate;
        return &slot;
      }
    }
    return Fail(
        ErrorCode::kNotFound,
        fmt::format("the runtime registers no global function \"{}\"{} "
                    "(TVMFFIFunctionGetGlobal found none)",
                    abi::QualifiedName(name.name),
                    name.fallback == F::kCount ? ""
                                               : fmt::format(" nor its older name \"{}\"",
                                                             abi::QualifiedName(name.fallback))));
  }

  Expected<FfiResult> CallGlobal(Global which, std::vector<ffi_abi::Any> arguments) {
    auto function = Function(which);
    if (!function) return tl::unexpected(function.error());
    return runtime_.Call(called_[static_cast<size_t>(which)], **function, std::move(arguments));
  }

  Expected<void> CallOnStream(Global which, int device_id, RouteStream stream) {
    auto called = CallGlobal(which, {FfiDevice(Device(device_id)), FfiInt(StreamAsInt(stream))});
    if (!called) return tl::unexpected(called.error());
    return {};
  }

  FfiRuntime runtime_;
  int device_type_;
  std::array<FfiObject, static_cast<size_t>(Global::kCount)> globals_;
  std::array<F, static_cast<size_t>(Global::kCount)> called_{};
  // Every live allocation's Tensor, by its data pointer: FreeDataSpace
  // releases it, and the runtime frees the data in the Tensor's deleter.
  std::multimap<void*, FfiObject> tensors_;
  std::array<void*, 2> scratch_{};
};

Expected<AttrValue> FfiRuntimeRoute::GetAttr(int device_id, DeviceAttrKind kind) {
  auto answered = CallGlobal(Global::kGetDeviceAttr, {FfiInt(device_type_), FfiInt(device_id),
                                                      FfiInt(static_cast<int64_t>(kind))});
  if (!answered) return tl::unexpected(answered.error());
  const ffi_abi::Any& value = answered->value;
  switch (value.type_index) {
    case ffi_abi::kNone:
      return AttrValue{};  // the backend left the result unset
    case ffi_abi::kInt:
    case ffi_abi::kBool:
      return AttrValue{value.v_int64};
    case ffi_abi::kFloat:
      return AttrValue{static_cast<int64_t>(value.v_float64)};
    case ffi_abi::kSmallStr:
      return AttrValue{std::string(value.v_bytes, std::min<size_t>(value.small_str_len, 8))};
    case ffi_abi::kStr: {
      const ffi_abi::ByteArray* text = ffi_abi::ByteArrayOf(answered->object.get());
      return AttrValue{text->data == nullptr ? std::string() : std::string(text->data, text->size)};
    }
    default:
      return Fail(ErrorCode::kPluginError,
                  fmt::format("{}({}) returned type index {}, which is neither an integer, a "
                              "string nor None",
                              ffi_abi::kGetDeviceAttr, DeviceAttrName(kind), value.type_index));
  }
}

Expected<void*> FfiRuntimeRoute::AllocDataSpace(int device_id, size_t bytes, size_t alignment) {
  // TVM asks max(64, bits / 8 * lanes) of the backend: uint8 with one lane
  // per byte of alignment above 64 makes it ask exactly `alignment`.
  const size_t lanes = alignment > ffi_abi::kAllocAlignment ? alignment : 1;
  if (lanes > std::numeric_limits<uint16_t>::max()) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("an alignment of {} cannot be asked through a tensor's dtype (at "
                            "most 65535 lanes)",
                            alignment));
  }
  // TVM computes a tensor's size as elements x bits x lanes in a size_t:
  // past 2^61 bytes that wraps, and TVM would allocate the wrapped size.
  if (bytes > std::numeric_limits<size_t>::max() / 8 - lanes) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("{} bytes cannot be asked through tvm-ffi: TVM's tensor size rule "
                            "(bits x elements in a size_t) wraps past 2^61 bytes",
                            bytes));
  }
  const auto elements = static_cast<int64_t>((bytes + lanes - 1) / lanes);
  auto shape = CallGlobal(Global::kMakeShape, {FfiInt(elements)});
  if (!shape) return tl::unexpected(shape.error());
  if (shape->value.type_index != ffi_abi::kShape) {
    return Fail(ErrorCode::kPluginError,
                fmt::format("{}({}) returned type index {}, not a Shape ({})", ffi_abi::kMakeShape,
                            elements, shape->value.type_index, int{ffi_abi::kShape}));
  }
  const DLDataType dtype{kDLUInt, 8, static_cast<uint16_t>(lanes)};
  auto tensor = CallGlobal(Global::kTensorAlloc, {FfiObjectView(shape->object), FfiDataType(dtype),
                                                  FfiDevice(Device(device_id)), FfiNone()});
  if (!tensor) return tl::unexpected(tensor.error());
  if (tensor->value.type_index != ffi_abi::kTensor) {
    return Fail(ErrorCode::kPluginError,
                fmt::format("{} returned type index {}, not a Tensor ({})",
                            abi::QualifiedName(called_[static_cast<size_t>(Global::kTensorAlloc)]),
                            tensor->value.type_index, int{ffi_abi::kTensor}));
  }
  const DLTensor* allocated = ffi_abi::TensorOf(tensor->object.get());
  void* data = allocated->data;
  // A null data pointer (size 0) is handed back as is, its Tensor released.
  if (data == nullptr) return data;
  tensors_.emplace(data, std::move(tensor->object));
  return data;
}

Expected<void> FfiRuntimeRoute::FreeDataSpace(int /*device_id*/, void* pointer) {
  auto found = tensors_.find(pointer);
  if (found == tensors_.end()) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("FreeDataSpace({}): not a pointer AllocDataSpace returned on this "
                            "route (or freed already)",
                            pointer));
  }
  ffi_abi::ObjectHandle tensor = found->second.Release();
  tensors_.erase(found);
  return runtime_.DecRef(tensor);
}

}  // namespace

std::vector<std::string> MissingFfiRuntimeEntryPoints(const loader::PluginLibrary& library) {
  return FfiRuntime::MissingEntryPoints(library);
}

Expected<std::unique_ptr<DeviceApiRoute>> MakeFfiRuntimeRoute(const loader::PluginLibrary& library,
                                                              int device_type,
                                                              host::Journal* journal) {
  auto runtime = FfiRuntime::Bind(library, journal);
  if (!runtime) return tl::unexpected(runtime.error());
  return std::unique_ptr<DeviceApiRoute>(
      std::make_unique<FfiRuntimeRoute>(std::move(*runtime), device_type));
}

}  // namespace sectl::tvm
