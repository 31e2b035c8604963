// Tests for the TensorFlow C API that sectl exports to plugins (lib/tf_c_api):
// registrations are recorded, not executed; everything sectl cannot provide
// fails through its status and is counted; the data helpers work; and every
// symbol the dynamic list exports is defined.

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tensorflow/c/c_api_for_plugins.h"
#include "tensorflow/c/env.h"
#include "tensorflow/c/experimental/grappler/grappler.h"
#include "tensorflow/c/kernels.h"
#include "tensorflow/c/kernels_experimental.h"
#include "tensorflow/c/logging.h"
#include "tensorflow/c/ops.h"
#include "tensorflow/c/tf_buffer.h"
#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"
#include "tf_c_api/recorded_registrations.h"

// tf_c_api_c_callers.c: calls with enum values only C can pass.
extern "C" size_t DataTypeSizeOfNumber(int number);
extern "C" void LogAtLevelNumber(int number, const char* text);

namespace sectl::tf_c_api {
namespace {

struct StatusDeleter {
  void operator()(TF_Status* status) const { TF_DeleteStatus(status); }
};
using StatusPtr = std::unique_ptr<TF_Status, StatusDeleter>;

StatusPtr NewStatus() { return StatusPtr(TF_NewStatus()); }

// Kernel functions for the builders; never called, since sectl runs no kernels.
void* CreateKernel(TF_OpKernelConstruction*) { return nullptr; }
void ComputeKernel(void*, TF_OpKernelContext*) {}
void ComputeKernelAsync(void*, TF_OpKernelContext*, TF_AsyncOpKernelDoneCallback*) {}
void DeleteKernel(void*) {}
void InferShape(TF_ShapeInferenceContext*, TF_Status*) {}

class TfCApiTest : public ::testing::Test {
 protected:
  void SetUp() override { ClearRecordings(); }
  void TearDown() override { ClearRecordings(); }
};

TEST_F(TfCApiTest, TwoRegisteredKernelsAreRecordedExactly) {
  StatusPtr status = NewStatus();

  TF_KernelBuilder* matmul =
      TF_NewKernelBuilder("MatMul", "MY_DEVICE", CreateKernel, ComputeKernel, DeleteKernel);
  ASSERT_NE(matmul, nullptr);
  TF_KernelBuilder_TypeConstraint(matmul, "T", TF_FLOAT, status.get());
  EXPECT_EQ(TF_GetCode(status.get()), TF_OK) << TF_Message(status.get());
  TF_KernelBuilder_TypeConstraint(matmul, "U", TF_HALF, status.get());
  TF_KernelBuilder_HostMemory(matmul, "shape");
  TF_KernelBuilder_Priority(matmul, 7);
  TF_KernelBuilder_Label(matmul, "fast");
  TF_RegisterKernelBuilder("MatMulOp", matmul, status.get());
  EXPECT_EQ(TF_GetCode(status.get()), TF_OK) << TF_Message(status.get());

  TF_KernelBuilder* relu =
      TF_NewAsyncKernelBuilder("Relu", "MY_DEVICE", nullptr, ComputeKernelAsync, nullptr);
  ASSERT_NE(relu, nullptr);
  TF_KernelBuilder_TypeConstraint(relu, "T", TF_BFLOAT16, status.get());
  TF_RegisterKernelBuilder("ReluOp", relu, status.get());
  EXPECT_EQ(TF_GetCode(status.get()), TF_OK) << TF_Message(status.get());

  const std::vector<KernelRegistration> kernels = RecordedKernels();
  ASSERT_EQ(kernels.size(), 2u);

  const KernelRegistration& first = kernels[0];
  EXPECT_EQ(first.op, "MatMul");
  EXPECT_EQ(first.device_type, "MY_DEVICE");
  EXPECT_EQ(first.kernel_name, "MatMulOp");
  EXPECT_EQ(first.label, "fast");
  EXPECT_EQ(first.priority, 7);
  EXPECT_TRUE(first.priority_set);
  const std::vector<std::pair<std::string, int>> expected_constraints = {{"T", TF_FLOAT},
                                                                         {"U", TF_HALF}};
  EXPECT_EQ(first.type_constraints, expected_constraints);
  EXPECT_EQ(first.host_memory_arguments, std::vector<std::string>{"shape"});
  EXPECT_TRUE(first.has_create);
  EXPECT_TRUE(first.has_compute);
  EXPECT_TRUE(first.has_delete);
  EXPECT_FALSE(first.async);
  EXPECT_FALSE(first.has_serialized_kernel_def);
  EXPECT_EQ(first.registration_error, "");
  EXPECT_FALSE(first.truncated);

  const KernelRegistration& second = kernels[1];
  EXPECT_EQ(second.op, "Relu");
  EXPECT_EQ(second.kernel_name, "ReluOp");
  EXPECT_EQ(second.label, "");
  EXPECT_EQ(second.priority, 0);
  EXPECT_FALSE(second.priority_set);
  EXPECT_EQ(second.type_constraints,
            (std::vector<std::pair<std::string, int>>{{"T", TF_BFLOAT16}}));
  EXPECT_TRUE(second.host_memory_arguments.empty());
  EXPECT_FALSE(second.has_create);
  EXPECT_TRUE(second.has_compute);
  EXPECT_FALSE(second.has_delete);
  EXPECT_TRUE(second.async);
  EXPECT_EQ(second.registration_error, "");

  EXPECT_TRUE(RecordedMisuses().empty());
  EXPECT_TRUE(UnprovidedCalls().empty());
}

TEST_F(TfCApiTest, NullOpNameIsRecordedAsAnErrorWithoutCrashing) {
  StatusPtr status = NewStatus();
  TF_KernelBuilder* builder =
      TF_NewKernelBuilder(nullptr, "MY_DEVICE", nullptr, ComputeKernel, nullptr);
  ASSERT_NE(builder, nullptr);
  TF_KernelBuilder_TypeConstraint(builder, "T", TF_FLOAT, status.get());
  TF_RegisterKernelBuilder("NoOpKernel", builder, status.get());

  // TensorFlow would crash building a std::string from the NULL name.
  EXPECT_EQ(TF_GetCode(status.get()), TF_INVALID_ARGUMENT);
  EXPECT_NE(std::string(TF_Message(status.get())).find("op_name is NULL"), std::string::npos)
      << TF_Message(status.get());
  const std::vector<KernelRegistration> kernels = RecordedKernels();
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].op, "");
  EXPECT_EQ(kernels[0].kernel_name, "NoOpKernel");
  EXPECT_NE(kernels[0].registration_error.find("TF_NewKernelBuilder: op_name is NULL"),
            std::string::npos)
      << kernels[0].registration_error;
}

TEST_F(TfCApiTest, NullNamesElsewhereAreErrorsToo) {
  StatusPtr status = NewStatus();
  TF_KernelBuilder* builder = TF_NewKernelBuilder("Op", nullptr, nullptr, ComputeKernel, nullptr);
  TF_KernelBuilder_TypeConstraint(builder, nullptr, TF_FLOAT, status.get());
  EXPECT_EQ(TF_GetCode(status.get()), TF_INVALID_ARGUMENT);
  TF_KernelBuilder_HostMemory(builder, nullptr);
  TF_KernelBuilder_Label(builder, nullptr);
  TF_RegisterKernelBuilder(nullptr, builder, status.get());
  EXPECT_EQ(TF_GetCode(status.get()), TF_INVALID_ARGUMENT);

  const std::vector<KernelRegistration> kernels = RecordedKernels();
  ASSERT_EQ(kernels.size(), 1u);
  const std::string& error = kernels[0].registration_error;
  for (const char* problem : {"device_name is NULL", "attr_name is NULL", "arg_name is NULL",
                              "label is NULL", "the kernel name is NULL"}) {
    EXPECT_NE(error.find(problem), std::string::npos) << problem << " in: " << error;
  }
}

TEST_F(TfCApiTest, NullOrUnknownBuildersAreMisusesNotDereferenced) {
  StatusPtr status = NewStatus();
  TF_RegisterKernelBuilder("Kernel", nullptr, status.get());
  EXPECT_EQ(TF_GetCode(status.get()), TF_INVALID_ARGUMENT);

  // An address sectl never handed out: it must be looked up, not followed.
  int not_a_builder = 0;
  auto* invented = reinterpret_cast<TF_KernelBuilder*>(&not_a_builder);
  TF_KernelBuilder_TypeConstraint(invented, "T", TF_FLOAT, status.get());
  EXPECT_EQ(TF_GetCode(status.get()), TF_INVALID_ARGUMENT);
  TF_KernelBuilder_Priority(invented, 1);
  TF_DeleteKernelBuilder(invented);
  TF_DeleteKernelBuilder(nullptr);  // accepted, as in TensorFlow
  EXPECT_EQ(not_a_builder, 0);

  EXPECT_TRUE(RecordedKernels().empty());
  const std::vector<ApiMisuse> misuses = RecordedMisuses();
  ASSERT_EQ(misuses.size(), 4u);
  EXPECT_EQ(misuses[0].function, "TF_RegisterKernelBuilder");
  EXPECT_EQ(misuses[0].problem, "the builder is NULL");
  EXPECT_EQ(misuses[1].function, "TF_KernelBuilder_TypeConstraint");
  EXPECT_EQ(misuses[3].function, "TF_DeleteKernelBuilder");
}

TEST_F(TfCApiTest, RegisteringTakesOwnershipOfTheBuilder) {
  StatusPtr status = NewStatus();
  TF_KernelBuilder* builder = TF_NewKernelBuilder("Op", "DEV", nullptr, ComputeKernel, nullptr);
  TF_RegisterKernelBuilder("Kernel", builder, status.get());
  ASSERT_EQ(TF_GetCode(status.get()), TF_OK);

  // In TensorFlow this is a double free; sectl reports it and keeps the builder.
  TF_DeleteKernelBuilder(builder);
  // Changing or registering it again is a misuse too, and changes nothing.
  TF_KernelBuilder_Label(builder, "late");
  TF_RegisterKernelBuilder("Again", builder, status.get());
  EXPECT_EQ(TF_GetCode(status.get()), TF_INVALID_ARGUMENT);

  const std::vector<KernelRegistration> kernels = RecordedKernels();
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].label, "");
  const std::vector<ApiMisuse> misuses = RecordedMisuses();
  ASSERT_EQ(misuses.size(), 3u);
  EXPECT_EQ(misuses[0].function, "TF_DeleteKernelBuilder");
  EXPECT_NE(misuses[0].problem.find("double free"), std::string::npos) << misuses[0].problem;

  // A builder never registered is the plugin's to delete, silently.
  TF_KernelBuilder* unused = TF_NewKernelBuilder("Op", "DEV", nullptr, ComputeKernel, nullptr);
  TF_DeleteKernelBuilder(unused);
  EXPECT_EQ(RecordedMisuses().size(), 3u);
}

TEST_F(TfCApiTest, ASecondLabelIsAnError) {
  StatusPtr status = NewStatus();
  TF_KernelBuilder* builder = TF_NewKernelBuilder("Op", "DEV", nullptr, ComputeKernel, nullptr);
  TF_KernelBuilder_Label(builder, "first");
  TF_KernelBuilder_Label(builder, "second");
  TF_RegisterKernelBuilder("Kernel", builder, status.get());
  EXPECT_EQ(TF_GetCode(status.get()), TF_INVALID_ARGUMENT);
  const std::vector<KernelRegistration> kernels = RecordedKernels();
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].label, "first");
  EXPECT_NE(kernels[0].registration_error.find("second time"), std::string::npos);
}

TEST_F(TfCApiTest, SerializedKernelDefIsKeptUnparsed) {
  StatusPtr status = NewStatus();
  TF_KernelBuilder* builder = TF_NewKernelBuilder("Op", "DEV", nullptr, ComputeKernel, nullptr);
  TF_RegisterKernelBuilderWithKernelDef("\x0a\x02Op", "Kernel", builder, status.get());
  EXPECT_EQ(TF_GetCode(status.get()), TF_OK);
  const std::vector<KernelRegistration> kernels = RecordedKernels();
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_TRUE(kernels[0].has_serialized_kernel_def);
  EXPECT_EQ(kernels[0].serialized_kernel_def, "\x0a\x02Op");
}

TEST_F(TfCApiTest, LongStringsAreCutAndMarked) {
  StatusPtr status = NewStatus();
  const std::string long_name(kMaxRecordedStringBytes + 100, 'a');
  TF_KernelBuilder* builder =
      TF_NewKernelBuilder(long_name.c_str(), "DEV", nullptr, ComputeKernel, nullptr);
  TF_RegisterKernelBuilder("Kernel", builder, status.get());
  const std::vector<KernelRegistration> kernels = RecordedKernels();
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].op.size(), kMaxRecordedStringBytes);
  EXPECT_TRUE(kernels[0].truncated);
}

TEST_F(TfCApiTest, StandInFailsNamingItselfAndIsCounted) {
  StatusPtr status = NewStatus();
  int not_a_tensor = 0;
  auto* tensor = reinterpret_cast<TF_Tensor*>(&not_a_tensor);
  TF_GetInput(nullptr, 0, &tensor, status.get());

  EXPECT_EQ(TF_GetCode(status.get()), TF_UNIMPLEMENTED);
  EXPECT_EQ(std::string(TF_Message(status.get())).rfind("sectl does not provide TF_GetInput: ", 0),
            0u)
      << TF_Message(status.get());
  EXPECT_EQ(tensor, nullptr);  // cleared, for a plugin that ignores the status

  EXPECT_EQ(TF_AllocateOutput(nullptr, 0, TF_FLOAT, nullptr, 0, 0, status.get()), nullptr);
  EXPECT_NE(std::string(TF_Message(status.get())).find("TF_AllocateOutput"), std::string::npos);
  TF_GetInput(nullptr, 1, nullptr, nullptr);  // NULL everything: still no crash
  EXPECT_EQ(TF_NumInputs(nullptr), 0);

  const std::vector<UnprovidedCall> calls = UnprovidedCalls();
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0].function, "TF_GetInput");
  EXPECT_EQ(calls[0].calls, 2u);
  EXPECT_EQ(calls[1].function, "TF_AllocateOutput");
  EXPECT_EQ(calls[1].calls, 1u);
  EXPECT_EQ(calls[2].function, "TF_NumInputs");
}

TEST_F(TfCApiTest, FailureFunctionsLeaveThePluginsStatusAlone) {
  // Their status is the plugin's error, an input.
  StatusPtr status = NewStatus();
  TF_SetStatus(status.get(), TF_INVALID_ARGUMENT, "bad shape");
  TF_OpKernelContext_Failure(nullptr, status.get());
  TF_OpKernelConstruction_Failure(nullptr, status.get());
  EXPECT_EQ(TF_GetCode(status.get()), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(status.get()), "bad shape");
}

TEST_F(TfCApiTest, OtherStandInsTolerateNullArguments) {
  StatusPtr status = NewStatus();
  TF_InputRange(nullptr, nullptr, nullptr);
  TF_InputRange_Args args{.struct_size = TF_InputRange_Args_STRUCT_SIZE,
                          .priv = nullptr,
                          .start = 5,
                          .stop = 9,
                          .status = status.get()};
  TF_InputRange(nullptr, "x", &args);
  EXPECT_EQ(TF_GetCode(status.get()), TF_UNIMPLEMENTED);
  EXPECT_EQ(args.start, 0);
  EXPECT_EQ(TF_GetDeviceName(nullptr).len, 0u);
  EXPECT_NE(TF_GetDeviceName(nullptr).data, nullptr);
  TF_RendezvousThunk thunk = TF_GetRendezvous(nullptr);
  EXPECT_EQ(thunk.rendezvous, nullptr);
  TF_AssignVariable(nullptr, 0, 1, true, nullptr, status.get());
  int num_values = 5;
  size_t storage_size = 5;
  TF_GetNodesToPreserveListSize(nullptr, &num_values, &storage_size, status.get());
  EXPECT_EQ(num_values, 0);
  EXPECT_EQ(storage_size, 0u);
  TF_DeleteGraphProperties(nullptr);
  TF_DeleteTensor(nullptr);
  EXPECT_EQ(TF_LoadSharedLibrary("libdirectml.so", status.get()), nullptr);
  EXPECT_EQ(TF_GetCode(status.get()), TF_UNIMPLEMENTED);

  // Callers parse these without a check; an empty buffer parses as an empty list.
  TF_Buffer* ops = TF_GetAllOpList();
  ASSERT_NE(ops, nullptr);
  EXPECT_EQ(ops->length, 0u);
  TF_DeleteBuffer(ops);
}

TEST_F(TfCApiTest, NewTensorReleasesTheDataItTookOver) {
  int released = 0;
  auto release = [](void*, size_t, void* count) { ++*static_cast<int*>(count); };
  float data[4] = {};
  const int64_t dims[] = {4};
  EXPECT_EQ(TF_NewTensor(TF_FLOAT, dims, 1, data, sizeof(data), release, &released), nullptr);
  EXPECT_EQ(released, 1);
}

TEST_F(TfCApiTest, OpDefinitionBuilderRecordsAnOp) {
  StatusPtr status = NewStatus();
  TF_OpDefinitionBuilder* builder = TF_NewOpDefinitionBuilder("MyFusedOp");
  ASSERT_NE(builder, nullptr);
  TF_OpDefinitionBuilderAddInput(builder, "x: T");
  TF_OpDefinitionBuilderAddInput(builder, "bias: T");
  TF_OpDefinitionBuilderAddOutput(builder, "y: T");
  TF_OpDefinitionBuilderAddAttr(builder, "T: {float, half}");
  TF_OpDefinitionBuilderSetIsStateful(builder, true);
  TF_OpDefinitionBuilderSetIsCommutative(builder, false);
  TF_OpDefinitionBuilderDeprecated(builder, 42, "use MyOtherOp");
  TF_OpDefinitionBuilderSetShapeInferenceFunction(builder, InferShape);
  TF_RegisterOpDefinition(builder, status.get());
  EXPECT_EQ(TF_GetCode(status.get()), TF_OK) << TF_Message(status.get());

  // Registered: the host owns it; deleting it is reported, not done.
  TF_DeleteOpDefinitionBuilder(builder);
  EXPECT_EQ(RecordedMisuses().size(), 1u);

  const std::vector<OpRegistration> ops = RecordedOps();
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].name, "MyFusedOp");
  EXPECT_EQ(ops[0].inputs, (std::vector<std::string>{"x: T", "bias: T"}));
  EXPECT_EQ(ops[0].outputs, std::vector<std::string>{"y: T"});
  EXPECT_EQ(ops[0].attrs, std::vector<std::string>{"T: {float, half}"});
  EXPECT_TRUE(ops[0].is_stateful);
  EXPECT_FALSE(ops[0].is_commutative);
  EXPECT_TRUE(ops[0].has_shape_inference_function);
  EXPECT_EQ(ops[0].deprecated_at_version, 42);
  EXPECT_EQ(ops[0].deprecation_explanation, "use MyOtherOp");
  EXPECT_EQ(ops[0].registration_error, "");

  // Shape functions are stand-ins.
  TF_ShapeInferenceContextSetUnknownShape(nullptr, status.get());
  EXPECT_EQ(TF_GetCode(status.get()), TF_UNIMPLEMENTED);
}

TEST_F(TfCApiTest, OpWithNullNameOrSpecIsAnError) {
  StatusPtr status = NewStatus();
  TF_OpDefinitionBuilder* builder = TF_NewOpDefinitionBuilder(nullptr);
  TF_OpDefinitionBuilderAddInput(builder, nullptr);
  TF_RegisterOpDefinition(builder, status.get());
  EXPECT_EQ(TF_GetCode(status.get()), TF_INVALID_ARGUMENT);
  const std::vector<OpRegistration> ops = RecordedOps();
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_NE(ops[0].registration_error.find("op_name is NULL"), std::string::npos);
  EXPECT_NE(ops[0].registration_error.find("the spec is NULL"), std::string::npos);

  TF_RegisterOpDefinition(nullptr, status.get());
  EXPECT_EQ(TF_GetCode(status.get()), TF_INVALID_ARGUMENT);
}

TEST_F(TfCApiTest, ConcurrentRegistrationsAreAllRecorded) {
  // Plugins may register from several threads; every registration counts.
  constexpr int kThreads = 4;
  constexpr int kKernelsPerThread = 200;
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int thread = 0; thread < kThreads; ++thread) {
    threads.emplace_back([] {
      StatusPtr status = NewStatus();
      for (int kernel = 0; kernel < kKernelsPerThread; ++kernel) {
        TF_KernelBuilder* builder =
            TF_NewKernelBuilder("Op", "DEV", nullptr, ComputeKernel, nullptr);
        TF_KernelBuilder_TypeConstraint(builder, "T", TF_FLOAT, status.get());
        TF_RegisterKernelBuilder("Kernel", builder, status.get());
        TF_NumInputs(nullptr);
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  EXPECT_EQ(RecordedKernels().size(), static_cast<size_t>(kThreads * kKernelsPerThread));
  const std::vector<UnprovidedCall> calls = UnprovidedCalls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].calls, static_cast<uint64_t>(kThreads * kKernelsPerThread));
  EXPECT_TRUE(RecordedMisuses().empty());
}

TEST_F(TfCApiTest, DataTypeSizesAreTensorFlows) {
  EXPECT_EQ(TF_DataTypeSize(TF_FLOAT), 4u);
  EXPECT_EQ(TF_DataTypeSize(TF_DOUBLE), 8u);
  EXPECT_EQ(TF_DataTypeSize(TF_INT32), 4u);
  EXPECT_EQ(TF_DataTypeSize(TF_UINT8), 1u);
  EXPECT_EQ(TF_DataTypeSize(TF_INT64), 8u);
  EXPECT_EQ(TF_DataTypeSize(TF_BOOL), 1u);
  EXPECT_EQ(TF_DataTypeSize(TF_HALF), 2u);
  EXPECT_EQ(TF_DataTypeSize(TF_BFLOAT16), 2u);
  EXPECT_EQ(TF_DataTypeSize(TF_COMPLEX64), 8u);
  EXPECT_EQ(TF_DataTypeSize(TF_COMPLEX128), 16u);
  EXPECT_EQ(TF_DataTypeSize(TF_QINT32), 4u);
  EXPECT_EQ(TF_DataTypeSize(TF_FLOAT8_E4M3FN), 1u);
  EXPECT_EQ(TF_DataTypeSize(TF_STRING), 0u);
  EXPECT_EQ(TF_DataTypeSize(TF_RESOURCE), 0u);
  EXPECT_EQ(TF_DataTypeSize(TF_VARIANT), 0u);
  // A C plugin may pass any number (tf_c_api_c_callers.c).
  EXPECT_EQ(DataTypeSizeOfNumber(999), 0u);
  EXPECT_EQ(DataTypeSizeOfNumber(0), 0u);
}

TEST_F(TfCApiTest, BuffersCopyAndRelease) {
  const char proto[] = {'a', '\0', 'c'};
  TF_Buffer* buffer = TF_NewBufferFromString(proto, sizeof(proto));
  ASSERT_NE(buffer, nullptr);
  ASSERT_EQ(buffer->length, 3u);
  EXPECT_NE(buffer->data, static_cast<const void*>(proto));
  EXPECT_EQ(std::memcmp(buffer->data, proto, sizeof(proto)), 0);
  EXPECT_NE(buffer->data_deallocator, nullptr);
  const TF_Buffer copy = TF_GetBuffer(buffer);
  EXPECT_EQ(copy.data, buffer->data);
  EXPECT_EQ(copy.length, 3u);
  TF_DeleteBuffer(buffer);

  TF_Buffer* empty = TF_NewBuffer();
  ASSERT_NE(empty, nullptr);
  EXPECT_EQ(empty->data, nullptr);
  EXPECT_EQ(empty->length, 0u);
  EXPECT_EQ(empty->data_deallocator, nullptr);
  // The plugin fills a buffer the host made (optimize_func's output): the
  // host calls the plugin's deallocator.
  static int deallocations = 0;
  static char plugin_bytes[8];
  empty->data = plugin_bytes;
  empty->length = sizeof(plugin_bytes);
  empty->data_deallocator = [](void* data, size_t length) {
    EXPECT_EQ(data, plugin_bytes);
    EXPECT_EQ(length, sizeof(plugin_bytes));
    ++deallocations;
  };
  TF_DeleteBuffer(empty);
  EXPECT_EQ(deallocations, 1);

  TF_DeleteBuffer(nullptr);
  EXPECT_EQ(TF_GetBuffer(nullptr).data, nullptr);
  TF_Buffer* from_null = TF_NewBufferFromString(nullptr, 10);
  ASSERT_NE(from_null, nullptr);
  EXPECT_EQ(from_null->length, 0u);
  TF_DeleteBuffer(from_null);
}

TEST_F(TfCApiTest, LogMessagesAreKeptNotPrinted) {
  TF_Log(TF_WARNING, "loaded %d kernels for %s", 12, "MY_DEVICE");
  TF_VLog(2, "detail");
  TF_Log(TF_FATAL, "would abort in TensorFlow");
  LogAtLevelNumber(7, "ignored, as TensorFlow ignores it");
  TF_Log(TF_INFO, nullptr);

  const std::vector<LogMessage> messages = RecordedLogMessages();
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(messages[0].kind, LogMessage::Kind::kLog);
  EXPECT_EQ(messages[0].level, TF_WARNING);
  EXPECT_EQ(messages[0].text, "loaded 12 kernels for MY_DEVICE");
  EXPECT_EQ(messages[1].kind, LogMessage::Kind::kVLog);
  EXPECT_EQ(messages[1].level, 2);
  EXPECT_EQ(messages[2].level, TF_FATAL);
}

TEST_F(TfCApiTest, ImplementedHelpersNeedNoRuntime) {
  EXPECT_EQ(std::string(TF_Version()).rfind("2.", 0), 0u);
  EXPECT_EQ(TF_GetXlaAutoJitEnabled(), 0);
  EXPECT_EQ(TF_TensorDefaultAlignment() % 16, 0u);
  const uint64_t before = TF_NowMicros();
  EXPECT_GT(TF_NowNanos(), 0u);
  EXPECT_GE(TF_NowMicros(), before);
  EXPECT_GT(TF_NowSeconds(), 1'600'000'000u);
  TF_ThreadOptions options{.stack_size = 1, .guard_size = 2, .numa_node = 3};
  TF_DefaultThreadOptions(&options);
  EXPECT_EQ(options.stack_size, 0u);
  EXPECT_EQ(options.numa_node, -1);
  TF_DefaultThreadOptions(nullptr);
  EXPECT_TRUE(UnprovidedCalls().empty());
}

// The names in the dynamic list, in file order.
std::vector<std::string> ListedSymbols() {
  std::ifstream list(SECTL_TF_C_API_SYMBOL_LIST);
  EXPECT_TRUE(list.is_open()) << SECTL_TF_C_API_SYMBOL_LIST;
  std::vector<std::string> names;
  std::string line;
  while (std::getline(list, line)) {
    // An entry is "  NAME;"; comments and braces are not.
    const size_t begin = line.find_first_not_of(' ');
    if (begin == std::string::npos || line.back() != ';') {
      continue;
    }
    std::string name = line.substr(begin, line.size() - 1 - begin);
    const bool is_identifier = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
    });
    if (is_identifier) {
      names.push_back(std::move(name));
    }
  }
  return names;
}

TEST(TfCApiSymbolsTest, EveryListedSymbolIsDefinedAndExported) {
  const std::vector<std::string> names = ListedSymbols();
  // 61 kernels.h + 14 kernels_experimental.h + 33 ops.h + 14 tf_tensor.h +
  // 1 tf_datatype.h + 4 tf_buffer.h + 14 grappler.h + 3 logging.h + 23 env.h +
  // 6 c_api/c_api_experimental + 4 tf_shape.h.
  EXPECT_EQ(names.size(), 177u);
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()) << "a name twice";
  for (const std::string& name : names) {
    EXPECT_NE(dlsym(RTLD_DEFAULT, name.c_str()), nullptr) << name;
  }
}

}  // namespace
}  // namespace sectl::tf_c_api
