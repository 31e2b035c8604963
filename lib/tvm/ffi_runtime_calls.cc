#include "tvm/ffi_runtime_calls.h"

#include <cstring>

namespace sectl::tvm {
namespace {

FfiEntryPoints BindAll(const loader::PluginLibrary& library, std::vector<std::string>& missing) {
  FfiEntryPoints entry;
  library.BindFunction("TVMFFIFunctionGetGlobal", entry.get_global, missing);
  library.BindFunction("TVMFFIFunctionCall", entry.call, missing);
  library.BindFunction("TVMFFIErrorMoveFromRaised", entry.move_error, missing);
  library.BindFunction("TVMFFIObjectDecRef", entry.dec_ref, missing);
  library.BindFunction("TVMBackendAllocWorkspace", entry.alloc_workspace, missing);
  library.BindFunction("TVMBackendFreeWorkspace", entry.free_workspace, missing);
  return entry;
}

std::string Text(const ffi_abi::ByteArray& bytes) {
  if (bytes.data == nullptr) return {};
  return {bytes.data, bytes.size};
}

// An object whose header does not carry the type index its cell said is
// read with a layout other than the runtime's: stop before reading more.
Error LayoutMismatch(const std::string& name, int32_t expected, int32_t found) {
  return Error(ErrorCode::kAbiMismatch,
               fmt::format("{}: an object of type index {} carries {} in its header: the "
                           "runtime's tvm-ffi object layout is not the 24-byte TVMFFIObject "
                           "sectl mirrors (docs/tvm-runtime-abi.md)",
                           name, expected, found));
}

ffi_abi::Any EmptyCell() {
  ffi_abi::Any cell{};
  cell.type_index = ffi_abi::kNone;
  cell.v_int64 = 0;
  return cell;
}

}  // namespace

ffi_abi::Any FfiInt(int64_t value) {
  ffi_abi::Any cell = EmptyCell();
  cell.type_index = ffi_abi::kInt;
  cell.v_int64 = value;
  return cell;
}

ffi_abi::Any FfiDevice(DLDevice device) {
  ffi_abi::Any cell = EmptyCell();
  cell.type_index = ffi_abi::kDevice;
  cell.v_device = device;
  return cell;
}

ffi_abi::Any FfiDataType(DLDataType dtype) {
  ffi_abi::Any cell = EmptyCell();
  cell.type_index = ffi_abi::kDataType;
  cell.v_dtype = dtype;
  return cell;
}

ffi_abi::Any FfiTensorPointer(DLTensor* tensor) {
  ffi_abi::Any cell = EmptyCell();
  cell.type_index = ffi_abi::kDLTensorPtr;
  cell.v_ptr = tensor;
  return cell;
}

ffi_abi::Any FfiObjectView(const FfiObject& object) {
  ffi_abi::Any cell = EmptyCell();
  if (object.empty()) return cell;
  cell.type_index = object.header_type_index();
  cell.v_obj = static_cast<ffi_abi::ObjectHeader*>(object.get());
  return cell;
}

ffi_abi::Any FfiNone() { return EmptyCell(); }

std::vector<std::string> FfiRuntime::MissingEntryPoints(const loader::PluginLibrary& library) {
  std::vector<std::string> missing;
  (void)BindAll(library, missing);
  return missing;
}

Expected<FfiRuntime> FfiRuntime::Bind(const loader::PluginLibrary& library,
                                      host::Journal* journal) {
  std::vector<std::string> missing;
  FfiEntryPoints entry = BindAll(library, missing);
  if (!missing.empty()) {
    return Fail(ErrorCode::kNotFound,
                fmt::format("{}: does not export {}, which sectl's tvm-ffi route calls (TVM "
                            "v0.21 and later: libtvm_runtime.so and its libtvm_ffi.so)",
                            library.path(), missing.front()));
  }
  return FfiRuntime(entry, journal);
}

Expected<FfiObject> FfiRuntime::GetGlobal(const std::string& name) {
  const ffi_abi::ByteArray bytes{name.data(), name.size()};
  ffi_abi::ObjectHandle out = nullptr;
  const std::string call = fmt::format("TVMFFIFunctionGetGlobal(\"{}\")", name);
  auto found = DispatchAs(abi::PluginFunction::kTvmFfiFunctionGetGlobal, call, entry_.get_global,
                          &bytes, &out);
  if (!found) return tl::unexpected(found.error());
  FfiObject function = Own(out);  // owned: src/ffi/function.cc copies it out
  if (!function.empty() && function.header_type_index() != ffi_abi::kFunction) {
    return tl::unexpected(LayoutMismatch(call, ffi_abi::kFunction, function.header_type_index()));
  }
  return function;
}

Expected<FfiResult> FfiRuntime::Call(abi::PluginFunction global, const FfiObject& function,
                                     std::vector<ffi_abi::Any> arguments) {
  const std::string name(abi::QualifiedName(global));
  FfiResult result;
  result.value = EmptyCell();  // TVMFFIFunctionCall's precondition
  // Journalled as the global it calls.
  auto called = Dispatch(global, entry_.call, function.get(), arguments.data(),
                         static_cast<int32_t>(arguments.size()), &result.value);
  if (!called) return tl::unexpected(called.error());
  if (result.value.type_index >= ffi_abi::kFirstObject) {
    result.object = Own(result.value.v_obj);
    if (result.object.empty()) {
      return Fail(ErrorCode::kAbiMismatch,
                  fmt::format("{} returned a null object of type index {} (tvm-ffi returns "
                              "None, index 0, for no object)",
                              name, result.value.type_index));
    }
    if (result.object.header_type_index() != result.value.type_index) {
      return tl::unexpected(
          LayoutMismatch(name, result.value.type_index, result.object.header_type_index()));
    }
  }
  return result;
}

Expected<void> FfiRuntime::DecRef(ffi_abi::ObjectHandle handle) {
  return Dispatch(abi::PluginFunction::kTvmFfiObjectDecRef, entry_.dec_ref, handle);
}

Error FfiRuntime::TakeRaisedError(const std::string& name, const std::string& what) {
  ffi_abi::ObjectHandle raised = nullptr;
  if (auto moved =
          Invoke(abi::PluginFunction::kTvmFfiErrorMoveFromRaised, entry_.move_error, &raised);
      !moved) {
    last_error_ = std::string();
    return Error(ErrorCode::kPluginError,
                 fmt::format("{} {}; then {}", name, what, moved.error().message()))
        .BlamedOn(abi::PluginFunction::kTvmFfiErrorMoveFromRaised);
  }
  const FfiObject error = Own(raised);
  if (error.empty()) {
    last_error_.reset();
    return Error(
        ErrorCode::kPluginError,
        fmt::format("{} {} and raised no error (TVMFFIErrorMoveFromRaised gave none)", name, what));
  }
  if (error.header_type_index() != ffi_abi::kError) {
    last_error_ = std::string();
    return LayoutMismatch(name + " (its raised error)", ffi_abi::kError, error.header_type_index());
  }
  const ffi_abi::ErrorCell* cell = ffi_abi::ErrorCellOf(error.get());
  const std::string kind = Text(cell->kind);
  const std::string message = Text(cell->message);
  if (message.empty()) {
    last_error_ = std::string();
    return Error(ErrorCode::kPluginError,
                 fmt::format("{} {} and raised {} with an empty message", name, what,
                             kind.empty() ? "an Error" : kind));
  }
  last_error_ = kind.empty() ? message : fmt::format("{}: {}", kind, message);
  return Error(ErrorCode::kPluginError,
               fmt::format("{} {}; raised {}", name, what, FirstLineOf(*last_error_)));
}

}  // namespace sectl::tvm
