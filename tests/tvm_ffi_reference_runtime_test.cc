// sectl's reference tvm-ffi runtime (reference_plugins/tvm_runtime,
// sectl_tvm_ffi_runtime) called straight through tvm-ffi's C ABI, as sectl's
// route mirrors it (lib/tvm/ffi_runtime_abi.h), where the route's own tests
// do not look: it exports tvm-ffi's entry points and none of TVM's v0.20 C
// API; references are counted for real (owned results, a release too many
// aborts); errors come back as Error objects with a kind and a message;
// strings come back inline or as Str objects by their length; tensors carry
// TVM's alignment and own their data; and two faulty variants fail as
// their faults say.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "sectl_process.h"
#include "tvm/ffi_runtime_abi.h"

namespace sectl::testing {
namespace {

namespace abi = tvm::ffi_abi;

constexpr DLDevice kCpu{kDLCPU, 0};
constexpr DLDevice kExtDev{kDLExtDev, 0};
constexpr int kDeviceName = 5;
constexpr int kWarpSize = 2;
constexpr int kComputeVersion = 4;
constexpr int kAvailableGlobalMemory = 15;

std::string FaultyRuntime(const std::string& fault) {
  return std::string(SECTL_FAULTY_PLUGIN_DIR) + "/faulty_tvm_ffi_runtime_" + fault + ".so";
}

abi::Any None() { return abi::Any{abi::kNone, 0, {.v_int64 = 0}}; }
abi::Any Int(int64_t value) { return abi::Any{abi::kInt, 0, {.v_int64 = value}}; }
abi::Any Device(DLDevice device) {
  abi::Any any = None();
  any.type_index = abi::kDevice;
  any.v_device = device;
  return any;
}
abi::Any DataType(DLDataType dtype) {
  abi::Any any = None();
  any.type_index = abi::kDataType;
  any.v_dtype = dtype;
  return any;
}
abi::Any TensorPointer(DLTensor* tensor) {
  abi::Any any = None();
  any.type_index = abi::kDLTensorPtr;
  any.v_ptr = tensor;
  return any;
}
abi::Any Object(void* handle, int32_t type_index) {
  abi::Any any = None();
  any.type_index = type_index;
  any.v_obj = static_cast<abi::ObjectHeader*>(handle);
  return any;
}

// A loaded runtime and its entry points, bound as sectl's route binds them.
class FfiRuntime {
 public:
  explicit FfiRuntime(const std::string& path)
      // RTLD_NODELETE: never unloaded, as sectl and TensorFlow never unload
      // a library; the runtime keeps its global functions while loaded, and
      // an unloaded one would leave them unreachable (a leak to LeakSanitizer).
      : handle_(dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)) {
    if (handle_ == nullptr) return;
    get_global = Bind<abi::FunctionGetGlobal>("TVMFFIFunctionGetGlobal");
    call = Bind<abi::FunctionCall>("TVMFFIFunctionCall");
    move_error = Bind<abi::ErrorMoveFromRaised>("TVMFFIErrorMoveFromRaised");
    inc_ref = Bind<abi::ObjectIncRef>("TVMFFIObjectIncRef");
    dec_ref = Bind<abi::ObjectDecRef>("TVMFFIObjectDecRef");
    set_stream = Bind<abi::EnvSetStream>("TVMFFIEnvSetStream");
    get_stream = Bind<abi::EnvGetStream>("TVMFFIEnvGetStream");
    alloc_workspace = Bind<abi::BackendAllocWorkspace>("TVMBackendAllocWorkspace");
    free_workspace = Bind<abi::BackendFreeWorkspace>("TVMBackendFreeWorkspace");
    outstanding_references = Bind<int64_t (*)()>("SectlTvmFfiOutstandingReferences");
  }
  ~FfiRuntime() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  FfiRuntime(const FfiRuntime&) = delete;
  FfiRuntime& operator=(const FfiRuntime&) = delete;
  FfiRuntime(FfiRuntime&&) = delete;
  FfiRuntime& operator=(FfiRuntime&&) = delete;

  bool loaded() const { return handle_ != nullptr; }
  void* Symbol(const char* name) const { return dlsym(handle_, name); }

  // The global's function handle (owned), or null.
  void* Global(const std::string& name) const {
    const abi::ByteArray bytes{name.data(), name.size()};
    void* function = nullptr;
    EXPECT_EQ(get_global(&bytes, &function), 0);
    return function;
  }

  // Looks the global up, calls it, and releases the function handle.
  int CallGlobal(const std::string& name, std::vector<abi::Any> arguments, abi::Any* result) const {
    void* function = Global(name);
    if (function == nullptr) {
      ADD_FAILURE() << name << " is not a global of the runtime";
      return -1;
    }
    *result = None();
    const int status =
        call(function, arguments.data(), static_cast<int32_t>(arguments.size()), result);
    dec_ref(function);
    return status;
  }

  // The raised error's kind and message (the Error released), or "none".
  std::string TakeError() const {
    void* error = nullptr;
    move_error(&error);
    if (error == nullptr) return "none";
    EXPECT_EQ(static_cast<abi::ObjectHeader*>(error)->type_index, abi::kError);
    const abi::ErrorCell* cell = abi::ErrorCellOf(error);
    std::string text = std::string(cell->kind.data, cell->kind.size) + ": " +
                       std::string(cell->message.data, cell->message.size);
    dec_ref(error);
    return text;
  }

  abi::FunctionGetGlobal get_global = nullptr;
  abi::FunctionCall call = nullptr;
  abi::ErrorMoveFromRaised move_error = nullptr;
  abi::ObjectIncRef inc_ref = nullptr;
  abi::ObjectDecRef dec_ref = nullptr;
  abi::EnvSetStream set_stream = nullptr;
  abi::EnvGetStream get_stream = nullptr;
  abi::BackendAllocWorkspace alloc_workspace = nullptr;
  abi::BackendFreeWorkspace free_workspace = nullptr;
  int64_t (*outstanding_references)() = nullptr;

 private:
  template <typename Function>
  Function Bind(const char* name) {
    auto* symbol = reinterpret_cast<Function>(dlsym(handle_, name));
    EXPECT_NE(symbol, nullptr) << name;
    return symbol;
  }

  void* handle_;
};

class TvmFfiReferenceRuntime : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(runtime_.loaded()) << dlerror();
    ASSERT_EQ(runtime_.outstanding_references(), 0);
  }
  // Every test gives back every reference it was handed.
  void TearDown() override { EXPECT_EQ(runtime_.outstanding_references(), 0); }

  // A Tensor object (owned) of `elements` elements of `dtype` on `device`.
  void* Allocate(DLDevice device, int64_t elements, DLDataType dtype) {
    abi::Any shape = None();
    EXPECT_EQ(runtime_.CallGlobal("ffi.Shape", {Int(elements)}, &shape), 0);
    EXPECT_EQ(shape.type_index, abi::kShape);
    abi::Any tensor = None();
    const int status = runtime_.CallGlobal(
        "runtime.TVMTensorAllocWithScope",
        {Object(shape.v_obj, abi::kShape), DataType(dtype), Device(device), None()}, &tensor);
    runtime_.dec_ref(shape.v_obj);
    EXPECT_EQ(status, 0) << runtime_.TakeError();
    EXPECT_EQ(tensor.type_index, abi::kTensor);
    return tensor.v_obj;
  }

  int64_t AvailableMemory(DLDevice device) {
    abi::Any available = None();
    EXPECT_EQ(runtime_.CallGlobal(
                  "runtime.GetDeviceAttr",
                  {Int(device.device_type), Int(device.device_id), Int(kAvailableGlobalMemory)},
                  &available),
              0);
    return available.v_int64;
  }

  FfiRuntime runtime_{ReferencePlugin("sectl_tvm_ffi_runtime")};
};

TEST_F(TvmFfiReferenceRuntime, ExportsTvmFfiAndNoneOfTheV020CApi) {
  for (const char* name : {"TVMDeviceAllocDataSpace", "TVMStreamCreate", "TVMFuncGetGlobal",
                           "TVMGetLastError", "TVMFuncCall"}) {
    EXPECT_EQ(runtime_.Symbol(name), nullptr) << name << " would send sectl down the v0.20 route";
  }
}

TEST_F(TvmFfiReferenceRuntime, GlobalsAreOwnedFunctionReferences) {
  void* first = runtime_.Global("runtime.Device_StreamCreate");
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(static_cast<abi::ObjectHeader*>(first)->type_index, abi::kFunction);
  void* second = runtime_.Global("runtime.Device_StreamCreate");
  EXPECT_EQ(first, second);
  EXPECT_EQ(runtime_.outstanding_references(), 2);
  runtime_.dec_ref(first);
  runtime_.dec_ref(second);
  EXPECT_EQ(runtime_.Global("runtime.NoSuchFunction"), nullptr);
}

TEST_F(TvmFfiReferenceRuntime, AttributesComeBackAsIntsStringsOrNone) {
  abi::Any name = None();
  ASSERT_EQ(
      runtime_.CallGlobal("runtime.GetDeviceAttr", {Int(kDLCPU), Int(0), Int(kDeviceName)}, &name),
      0);
  // 19 bytes: too long to travel inline, so a Str object the caller releases.
  ASSERT_EQ(name.type_index, abi::kStr);
  const abi::ByteArray* text = abi::ByteArrayOf(name.v_obj);
  EXPECT_EQ(std::string(text->data, text->size), "sectl reference cpu");
  EXPECT_EQ(runtime_.outstanding_references(), 1);
  runtime_.dec_ref(name.v_obj);

  abi::Any version = None();
  ASSERT_EQ(runtime_.CallGlobal("runtime.GetDeviceAttr",
                                {Int(kDLExtDev), Int(0), Int(kComputeVersion)}, &version),
            0);
  ASSERT_EQ(version.type_index, abi::kSmallStr);
  EXPECT_EQ(std::string(version.v_bytes, version.small_str_len), "1.0");

  abi::Any warp = None();
  ASSERT_EQ(
      runtime_.CallGlobal("runtime.GetDeviceAttr", {Int(kDLCPU), Int(0), Int(kWarpSize)}, &warp),
      0);
  EXPECT_EQ(warp.type_index, abi::kNone);

  abi::Any exist = None();  // kExist on a device type the runtime lacks: 0, not an error
  ASSERT_EQ(runtime_.CallGlobal("runtime.GetDeviceAttr", {Int(kDLCUDA), Int(0), Int(0)}, &exist),
            0);
  EXPECT_EQ(exist.type_index, abi::kInt);
  EXPECT_EQ(exist.v_int64, 0);
}

TEST_F(TvmFfiReferenceRuntime, FailuresRaiseErrorObjectsWithKindAndMessage) {
  abi::Any result = None();
  EXPECT_EQ(
      runtime_.CallGlobal("runtime.GetDeviceAttr", {Int(kDLCUDA), Int(0), Int(kWarpSize)}, &result),
      -1);
  EXPECT_EQ(runtime_.TakeError(), "InternalError: Device API 2 is not enabled.");
  EXPECT_EQ(runtime_.TakeError(), "none") << "moving the error out clears it";

  EXPECT_EQ(runtime_.CallGlobal("runtime.Device_StreamSync", {Int(1), Int(0)}, &result), -1);
  EXPECT_NE(runtime_.TakeError().find("TypeError: Mismatched type on argument #0 when calling: "
                                      "`runtime.Device_StreamSync(0: Device, 1: int) -> void`. "
                                      "Expected `Device` but got `int`"),
            std::string::npos);

  EXPECT_EQ(runtime_.CallGlobal("runtime.Device_StreamSync", {Device(kCpu)}, &result), -1);
  EXPECT_NE(runtime_.TakeError().find("TypeError: Mismatched number of arguments"),
            std::string::npos);

  EXPECT_EQ(runtime_.CallGlobal("ffi.Shape", {Int(4), Device(kCpu)}, &result), -1);
  EXPECT_EQ(runtime_.TakeError(), "ValueError: Expect shape to take list of int arguments");

  // An unanswered error is replaced, not leaked, by the next one.
  EXPECT_EQ(runtime_.CallGlobal("ffi.Shape", {Device(kCpu)}, &result), -1);
  EXPECT_EQ(runtime_.CallGlobal("runtime.Device_StreamSync", {Device(kCpu)}, &result), -1);
  EXPECT_NE(runtime_.TakeError().find("TypeError"), std::string::npos);
}

// What a frontend does to raise its own error (tvm-ffi's c_api.h): create
// it, raise it (the runtime keeps its own reference), release the creator's.
TEST_F(TvmFfiReferenceRuntime, AnErrorRaisedByTheCallerComesBackOnce) {
  using ErrorCreate =
      int (*)(const abi::ByteArray*, const abi::ByteArray*, const abi::ByteArray*, void**);
  auto* create = reinterpret_cast<ErrorCreate>(runtime_.Symbol("TVMFFIErrorCreate"));
  auto* set_raised = reinterpret_cast<void (*)(void*)>(runtime_.Symbol("TVMFFIErrorSetRaised"));
  ASSERT_NE(create, nullptr);
  ASSERT_NE(set_raised, nullptr);
  const std::string kind = "ValueError";
  const std::string message = "raised by the caller";
  const std::string backtrace = "frame 0";
  const abi::ByteArray kind_bytes{kind.data(), kind.size()};
  const abi::ByteArray message_bytes{message.data(), message.size()};
  const abi::ByteArray backtrace_bytes{backtrace.data(), backtrace.size()};
  void* error = nullptr;
  ASSERT_EQ(create(&kind_bytes, &message_bytes, &backtrace_bytes, &error), 0);
  const abi::ErrorCell* cell = abi::ErrorCellOf(error);
  EXPECT_EQ(std::string(cell->backtrace.data, cell->backtrace.size), "frame 0");
  set_raised(error);
  runtime_.dec_ref(error);
  EXPECT_EQ(runtime_.TakeError(), "ValueError: raised by the caller");
  EXPECT_EQ(runtime_.TakeError(), "none");
}

TEST_F(TvmFfiReferenceRuntime, TensorsHaveTvmsAlignmentAndOwnTheirData) {
  const int64_t before = AvailableMemory(kExtDev);
  // GetDataAlignment: max(64, bits / 8 * lanes).
  void* wide = Allocate(kExtDev, 3, DLDataType{kDLUInt, 8, 256});
  void* narrow = Allocate(kExtDev, 5, DLDataType{kDLFloat, 32, 1});
  const DLTensor* wide_tensor = abi::TensorOf(wide);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(wide_tensor->data) % 256, 0u);
  EXPECT_EQ(wide_tensor->ndim, 1);
  EXPECT_EQ(wide_tensor->shape[0], 3);
  EXPECT_EQ(wide_tensor->byte_offset, 0u);
  EXPECT_EQ(wide_tensor->device.device_type, kDLExtDev);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(abi::TensorOf(narrow)->data) % 64, 0u);
  EXPECT_EQ(before - AvailableMemory(kExtDev), 3 * 256 + 5 * 4);

  // A second reference keeps the tensor (and its data) alive.
  runtime_.inc_ref(wide);
  runtime_.dec_ref(wide);
  EXPECT_EQ(before - AvailableMemory(kExtDev), 3 * 256 + 5 * 4);
  runtime_.dec_ref(wide);
  runtime_.dec_ref(narrow);
  EXPECT_EQ(AvailableMemory(kExtDev), before) << "the last release frees the data";
}

TEST_F(TvmFfiReferenceRuntime, CopiesHonourByteOffsetsOnBothSides) {
  constexpr int64_t kBytes = 64;
  void* first = Allocate(kExtDev, kBytes, DLDataType{kDLUInt, 8, 1});
  void* second = Allocate(kExtDev, kBytes, DLDataType{kDLUInt, 8, 1});
  std::vector<uint8_t> host(kBytes);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<uint8_t>(i + 1);

  int64_t shape[] = {16};
  auto side = [&](void* data, DLDevice device, uint64_t offset) {
    return DLTensor{data, device, 1, DLDataType{kDLUInt, 8, 1}, shape, nullptr, offset};
  };
  // host[8..24) -> first[4..20) -> second[32..48) -> back[0..16)
  DLTensor from_host = side(host.data(), kCpu, 8);
  DLTensor first_part = side(abi::TensorOf(first)->data, kExtDev, 4);
  DLTensor second_part = side(abi::TensorOf(second)->data, kExtDev, 32);
  std::vector<uint8_t> back(16, 0);
  DLTensor to_host = side(back.data(), kCpu, 0);
  abi::Any result = None();
  for (auto [from, to] : {std::pair{&from_host, &first_part}, std::pair{&first_part, &second_part},
                          std::pair{&second_part, &to_host}}) {
    ASSERT_EQ(runtime_.CallGlobal("runtime.TVMTensorCopyFromTo",
                                  {TensorPointer(from), TensorPointer(to)}, &result),
              0)
        << runtime_.TakeError();
  }
  ASSERT_EQ(runtime_.CallGlobal("runtime.Device_StreamSync", {Device(kExtDev), Int(0)}, &result),
            0);
  EXPECT_EQ(std::vector<uint8_t>(host.begin() + 8, host.begin() + 24), back);

  DLTensor too_long = side(abi::TensorOf(first)->data, kExtDev, 60);  // 60 + 16 > 64
  EXPECT_EQ(runtime_.CallGlobal("runtime.TVMTensorCopyFromTo",
                                {TensorPointer(&from_host), TensorPointer(&too_long)}, &result),
            -1);
  EXPECT_NE(runtime_.TakeError().find("target range lies outside its allocation"),
            std::string::npos);
  runtime_.dec_ref(first);
  runtime_.dec_ref(second);
}

TEST_F(TvmFfiReferenceRuntime, StreamsAreCreatedSetAndFreedAsInts) {
  abi::Any stream = None();
  ASSERT_EQ(runtime_.CallGlobal("runtime.Device_StreamCreate", {Device(kExtDev)}, &stream), 0);
  ASSERT_EQ(stream.type_index, abi::kInt);
  EXPECT_NE(stream.v_int64, 0);
  abi::Any result = None();
  ASSERT_EQ(runtime_.CallGlobal("runtime.Device_SetStream", {Device(kExtDev), stream}, &result), 0);
  EXPECT_EQ(reinterpret_cast<intptr_t>(runtime_.get_stream(kDLExtDev, 0)), stream.v_int64);
  ASSERT_EQ(runtime_.CallGlobal("runtime.Device_StreamSync", {Device(kExtDev), stream}, &result),
            0);
  ASSERT_EQ(runtime_.CallGlobal("runtime.Device_StreamFree", {Device(kExtDev), stream}, &result),
            0);
  EXPECT_EQ(runtime_.get_stream(kDLExtDev, 0), nullptr) << "a freed stream is current no more";
  EXPECT_EQ(runtime_.CallGlobal("runtime.Device_StreamFree", {Device(kExtDev), stream}, &result),
            -1);
  EXPECT_EQ(runtime_.TakeError(), "InternalError: StreamFree: not a live stream");

  // tvm-ffi's stream context records any handle, and answers the one before.
  int marker = 0;
  void* original = &marker;
  EXPECT_EQ(runtime_.set_stream(kDLCPU, 1, &marker, &original), 0);
  EXPECT_EQ(original, nullptr);
  EXPECT_EQ(runtime_.get_stream(kDLCPU, 1), &marker);
  EXPECT_EQ(runtime_.set_stream(kDLCPU, 1, nullptr, nullptr), 0);
}

TEST_F(TvmFfiReferenceRuntime, WorkspaceFailuresRaiseErrors) {
  void* block = runtime_.alloc_workspace(kDLCPU, 0, 100, kDLFloat, 32);
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(runtime_.free_workspace(kDLCPU, 0, block), 0);
  EXPECT_EQ(runtime_.free_workspace(kDLCPU, 0, block), -1);
  EXPECT_NE(runtime_.TakeError().find("InternalError: FreeWorkspace"), std::string::npos);
  EXPECT_EQ(runtime_.alloc_workspace(kDLCPU, 0, uint64_t{1} << 62, kDLFloat, 32), nullptr);
  EXPECT_NE(runtime_.TakeError().find("out of memory"), std::string::npos);
}

TEST_F(TvmFfiReferenceRuntime, AnImpossibleAllocationRaisesWithAMessage) {
  abi::Any shape = None();
  ASSERT_EQ(runtime_.CallGlobal("ffi.Shape", {Int(int64_t{1} << 60)}, &shape), 0);
  abi::Any tensor = None();
  EXPECT_EQ(runtime_.CallGlobal("runtime.TVMTensorAllocWithScope",
                                {Object(shape.v_obj, abi::kShape),
                                 DataType(DLDataType{kDLUInt, 8, 1}), Device(kCpu), None()},
                                &tensor),
            -1);
  EXPECT_NE(runtime_.TakeError().find("InternalError: AllocDataSpace: out of memory"),
            std::string::npos);
  runtime_.dec_ref(shape.v_obj);
}

using TvmFfiReferenceRuntimeDeathTest = TvmFfiReferenceRuntime;

TEST_F(TvmFfiReferenceRuntimeDeathTest, AReleaseTooManyAborts) {
  abi::Any shape = None();
  ASSERT_EQ(runtime_.CallGlobal("ffi.Shape", {Int(2)}, &shape), 0);
  runtime_.dec_ref(shape.v_obj);
  EXPECT_DEATH(runtime_.dec_ref(shape.v_obj), "TVMFFIObjectDecRef.*not a live object");
}

// The faulty variants of the tvm-ffi front end fail as their faults say
// (tests/tvm_ffi_runtime_test.cc shows that sectl's checks catch them).
class TvmFfiFaultyRuntime : public ::testing::Test {
 protected:
  // runtime.TVMTensorAllocWithScope of 2^60 bytes (2^62 would overflow
  // TVM's GetDataSize, which counts bits in a size_t): its status and result.
  static int AllocateTheImpossible(const FfiRuntime& runtime, abi::Any* tensor) {
    abi::Any shape = None();
    EXPECT_EQ(runtime.CallGlobal("ffi.Shape", {Int(int64_t{1} << 60)}, &shape), 0);
    const int status =
        runtime.CallGlobal("runtime.TVMTensorAllocWithScope",
                           {Object(shape.v_obj, abi::kShape), DataType(DLDataType{kDLUInt, 8, 1}),
                            Device(kCpu), None()},
                           tensor);
    runtime.dec_ref(shape.v_obj);
    return status;
  }
};

TEST_F(TvmFfiFaultyRuntime, ErrorWithoutMessageRaisesAnEmptyMessage) {
  FfiRuntime runtime(FaultyRuntime("error_without_message"));
  ASSERT_TRUE(runtime.loaded()) << dlerror();
  abi::Any tensor = None();
  EXPECT_EQ(AllocateTheImpossible(runtime, &tensor), -1);
  EXPECT_EQ(runtime.TakeError(), "InternalError: ");
  EXPECT_EQ(runtime.outstanding_references(), 0);
}

TEST_F(TvmFfiFaultyRuntime, SilentAllocationFailureHandsBackATensorWithoutData) {
  FfiRuntime runtime(FaultyRuntime("silent_allocation_failure"));
  ASSERT_TRUE(runtime.loaded()) << dlerror();
  abi::Any tensor = None();
  ASSERT_EQ(AllocateTheImpossible(runtime, &tensor), 0);
  ASSERT_EQ(tensor.type_index, abi::kTensor);
  EXPECT_EQ(abi::TensorOf(tensor.v_obj)->data, nullptr);
  EXPECT_EQ(runtime.TakeError(), "none");
  runtime.dec_ref(tensor.v_obj);
  EXPECT_EQ(runtime.outstanding_references(), 0);
}

// Each runtime has its own objects and globals: one's handle is not the
// other's (as two copies of TVM in one process would not share theirs).
TEST_F(TvmFfiFaultyRuntime, TwoRuntimesInOneProcessKeepTheirOwnGlobals) {
  FfiRuntime correct(ReferencePlugin("sectl_tvm_ffi_runtime"));
  FfiRuntime faulty(FaultyRuntime("error_without_message"));
  ASSERT_TRUE(correct.loaded() && faulty.loaded()) << dlerror();
  void* mine = correct.Global("ffi.Shape");
  void* theirs = faulty.Global("ffi.Shape");
  EXPECT_NE(mine, theirs);
  EXPECT_EQ(correct.outstanding_references(), 1);
  EXPECT_EQ(faulty.outstanding_references(), 1);
  correct.dec_ref(mine);
  faulty.dec_ref(theirs);
}

}  // namespace
}  // namespace sectl::testing
