// Stand-ins for the graph optimizer API's host functions (grappler.h).
// sectl does not run Grappler, so it never calls a plugin's optimize_func and
// never makes the TF_GrapplerItem these functions read; they exist so that a
// plugin referencing them loads with RTLD_NOW. Each records the call
// (UnprovidedCalls), sets TF_UNIMPLEMENTED naming itself through its status,
// clears single-value out-parameters, and returns NULL or nothing.
//
// This file also holds the layout checks of grappler.h and
// pluggable_profiler.h, against the LP64 sizes and offsets the facts state
// (docs/tf-module-c-api-facts.md §7.2, §8.1): a plugin built against
// TensorFlow's headers fills these structs, and sectl reads them.

#include <cstddef>

#include "tensorflow/c/experimental/grappler/grappler.h"
#include "tensorflow/c/experimental/pluggable_profiler/pluggable_profiler.h"
#include "tf_c_api/recorded_registrations.h"

#if defined(__LP64__)
static_assert(sizeof(TF_TriState) == 4);

static_assert(TP_OPTIMIZER_CONFIGS_STRUCT_SIZE == 92);
static_assert(sizeof(TP_OptimizerConfigs) == 96);
static_assert(offsetof(TP_OptimizerConfigs, disable_model_pruning) == 16);
static_assert(offsetof(TP_OptimizerConfigs, shape_optimization) == 44);
static_assert(offsetof(TP_OptimizerConfigs, auto_mixed_precision) == 48);
static_assert(offsetof(TP_OptimizerConfigs, auto_mixed_precision_onednn_bfloat16) == 52);
static_assert(offsetof(TP_OptimizerConfigs, auto_mixed_precision_mkl) == 56);
static_assert(offsetof(TP_OptimizerConfigs, pin_to_host_optimization) == 60);
static_assert(offsetof(TP_OptimizerConfigs, layout_optimizer) == 64);
static_assert(offsetof(TP_OptimizerConfigs, remapping) == 68);
static_assert(offsetof(TP_OptimizerConfigs, loop_optimization) == 72);
static_assert(offsetof(TP_OptimizerConfigs, dependency_optimization) == 76);
static_assert(offsetof(TP_OptimizerConfigs, auto_parallel) == 80);
static_assert(offsetof(TP_OptimizerConfigs, memory_optimization) == 84);
static_assert(offsetof(TP_OptimizerConfigs, scoped_allocator_optimization) == 88);

static_assert(TP_OPTIMIZER_STRUCT_SIZE == 40);
static_assert(sizeof(TP_Optimizer) == 40);
static_assert(offsetof(TP_Optimizer, create_func) == 16);
static_assert(offsetof(TP_Optimizer, optimize_func) == 24);
static_assert(offsetof(TP_Optimizer, destroy_func) == 32);

static_assert(TP_OPTIMIZER_REGISTRATION_PARAMS_STRUCT_SIZE == 56);
static_assert(sizeof(TP_OptimizerRegistrationParams) == 56);
static_assert(offsetof(TP_OptimizerRegistrationParams, major_version) == 16);
static_assert(offsetof(TP_OptimizerRegistrationParams, minor_version) == 20);
static_assert(offsetof(TP_OptimizerRegistrationParams, patch_version) == 24);
static_assert(offsetof(TP_OptimizerRegistrationParams, device_type) == 32);
static_assert(offsetof(TP_OptimizerRegistrationParams, optimizer_configs) == 40);
static_assert(offsetof(TP_OptimizerRegistrationParams, optimizer) == 48);

static_assert(TP_PROFILER_STRUCT_SIZE == 24);
static_assert(sizeof(TP_Profiler) == 24);
static_assert(offsetof(TP_Profiler, device_type) == 16);

static_assert(TP_PROFILER_FNS_STRUCT_SIZE == 40);
static_assert(sizeof(TP_ProfilerFns) == 40);
static_assert(offsetof(TP_ProfilerFns, start) == 16);
static_assert(offsetof(TP_ProfilerFns, stop) == 24);
static_assert(offsetof(TP_ProfilerFns, collect_data_xspace) == 32);

static_assert(TF_PROFILER_REGISTRATION_PARAMS_STRUCT_SIZE == 64);
static_assert(sizeof(TF_ProfilerRegistrationParams) == 64);
static_assert(offsetof(TF_ProfilerRegistrationParams, major_version) == 16);
static_assert(offsetof(TF_ProfilerRegistrationParams, patch_version) == 24);
static_assert(offsetof(TF_ProfilerRegistrationParams, profiler) == 32);
static_assert(offsetof(TF_ProfilerRegistrationParams, profiler_fns) == 40);
static_assert(offsetof(TF_ProfilerRegistrationParams, destroy_profiler) == 48);
static_assert(offsetof(TF_ProfilerRegistrationParams, destroy_profiler_fns) == 56);
#endif

namespace {

using sectl::tf_c_api::ClearOutParameter;
using sectl::tf_c_api::NoteUnprovided;

}  // namespace

extern "C" {

void TF_GetNodesToPreserveListSize(const TF_GrapplerItem* /*item*/, int* num_values,
                                   size_t* storage_size, TF_Status* status) {
  ClearOutParameter(num_values);
  ClearOutParameter(storage_size);
  NoteUnprovided(__func__, status);
}

void TF_GetNodesToPreserveList(const TF_GrapplerItem* /*item*/, char** /*values*/,
                               size_t* /*lengths*/, int /*num_values*/, void* /*storage*/,
                               size_t /*storage_size*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
}

void TF_GetFetchNodesListSize(const TF_GrapplerItem* /*item*/, int* num_values,
                              size_t* storage_size, TF_Status* status) {
  ClearOutParameter(num_values);
  ClearOutParameter(storage_size);
  NoteUnprovided(__func__, status);
}

void TF_GetFetchNodesList(const TF_GrapplerItem* /*item*/, char** /*values*/, size_t* /*lengths*/,
                          int /*num_values*/, void* /*storage*/, size_t /*storage_size*/,
                          TF_Status* status) {
  NoteUnprovided(__func__, status);
}

TF_GraphProperties* TF_NewGraphProperties(const TF_GrapplerItem* /*item*/) {
  NoteUnprovided(__func__, nullptr);
  return nullptr;
}

void TF_DeleteGraphProperties(TF_GraphProperties* /*graph_properties*/) {
  NoteUnprovided(__func__, nullptr);
}

void TF_InferStatically(TF_GraphProperties* /*graph_properties*/, TF_Bool /*assume_valid_feeds*/,
                        TF_Bool /*aggressive_shape_inference*/,
                        TF_Bool /*include_input_tensor_values*/,
                        TF_Bool /*include_output_tensor_values*/, TF_Status* s) {
  NoteUnprovided(__func__, s);
}

void TF_GetInputPropertiesListSize(TF_GraphProperties* /*graph_properties*/, const char* /*name*/,
                                   int* num_values, TF_Status* status) {
  ClearOutParameter(num_values);
  NoteUnprovided(__func__, status);
}

void TF_GetOutputPropertiesListSize(TF_GraphProperties* /*graph_properties*/, const char* /*name*/,
                                    int* num_values, TF_Status* status) {
  ClearOutParameter(num_values);
  NoteUnprovided(__func__, status);
}

void TF_GetInputPropertiesList(TF_GraphProperties* /*graph_properties*/, const char* /*name*/,
                               TF_Buffer** /*properties*/, int /*num_values*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
}

void TF_GetOutputPropertiesList(TF_GraphProperties* /*graph_properties*/, const char* /*name*/,
                                TF_Buffer** /*properties*/, int /*num_values*/, TF_Status* status) {
  NoteUnprovided(__func__, status);
}

TF_FunctionLibraryDefinition* TF_NewFunctionLibraryDefinition(const TF_Buffer* /*graph_buf*/,
                                                              TF_Status* status) {
  NoteUnprovided(__func__, status);
  return nullptr;
}

void TF_DeleteFunctionLibraryDefinition(TF_FunctionLibraryDefinition* /*fn_lib*/) {
  NoteUnprovided(__func__, nullptr);
}

void TF_LookUpOpDef(TF_FunctionLibraryDefinition* /*fn_lib*/, const char* /*name*/,
                    TF_Buffer* /*buf*/, TF_Status* s) {
  NoteUnprovided(__func__, s);
}

}  // extern "C"
