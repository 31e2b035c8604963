/* TensorFlow's graph optimizer C API (Grappler plugins).
 *
 * The plugin defines TF_InitGraph, which fills TP_OptimizerRegistrationParams:
 * its device type, an optimizer (TP_Optimizer) and which of TensorFlow's own
 * passes to keep (TP_OptimizerConfigs). TensorFlow then calls optimize_func on
 * every graph placed on that device, with the graph as a serialized GraphDef;
 * the plugin writes the optimized GraphDef into the output buffer. The other
 * functions here are the host's: they read the TF_GrapplerItem and infer
 * shapes while optimize_func runs.
 *
 * TP_* structs are filled by the plugin, TF_* objects by the host; `ext` is
 * the plugin's to use. The version (GO_*) has stayed 0.0.1 through two layout
 * changes: optimize_func gained its TF_GrapplerItem parameter (2021), and
 * auto_mixed_precision_onednn_bfloat16 was inserted into the middle of
 * TP_OptimizerConfigs (TF 2.10), moving every later member by 4 bytes. */
#ifndef TENSORFLOW_C_EXPERIMENTAL_GRAPPLER_GRAPPLER_H_
#define TENSORFLOW_C_EXPERIMENTAL_GRAPPLER_GRAPPLER_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/tf_buffer.h"
#include "tensorflow/c/tf_status.h"

#define GO_MAJOR 0
#define GO_MINOR 0
#define GO_PATCH 1

#ifdef __cplusplus
extern "C" {
#endif

/* Default leaves TensorFlow's choice; Off switches a pass off, On on. */
typedef enum TF_TriState {
  TF_TriState_Default = 0,
  TF_TriState_Off,
  TF_TriState_On,
} TF_TriState;

typedef struct TF_GrapplerItem TF_GrapplerItem;

/* Which of TensorFlow's own Grappler passes run alongside the plugin's. 92
 * bytes up to scoped_allocator_optimization (88 before TF 2.10). */
typedef struct TP_OptimizerConfigs {
  size_t struct_size;
  void* ext;
  TF_TriState disable_model_pruning;
  TF_TriState implementation_selector;
  TF_TriState function_optimization;
  TF_TriState common_subgraph_elimination;
  TF_TriState arithmetic_optimization;
  TF_TriState debug_stripper;
  TF_TriState constant_folding;
  TF_TriState shape_optimization;
  TF_TriState auto_mixed_precision;
  TF_TriState auto_mixed_precision_onednn_bfloat16;
  TF_TriState auto_mixed_precision_mkl;
  TF_TriState pin_to_host_optimization;
  TF_TriState layout_optimizer;
  TF_TriState remapping;
  TF_TriState loop_optimization;
  TF_TriState dependency_optimization;
  TF_TriState auto_parallel;
  TF_TriState memory_optimization;
  TF_TriState scoped_allocator_optimization;
} TP_OptimizerConfigs;

#define TP_OPTIMIZER_CONFIGS_STRUCT_SIZE \
  TF_OFFSET_OF_END(TP_OptimizerConfigs, scoped_allocator_optimization)

/* The plugin's optimizer: create_func and destroy_func are optional,
 * optimize_func is required. */
typedef struct TP_Optimizer {
  size_t struct_size;
  void* ext;
  void* (*create_func)(void);
  void (*optimize_func)(void*, const TF_Buffer*, const TF_GrapplerItem*, TF_Buffer*, TF_Status*);
  void (*destroy_func)(void*);
} TP_Optimizer;

#define TP_OPTIMIZER_STRUCT_SIZE TF_OFFSET_OF_END(TP_Optimizer, destroy_func)

/* What TF_InitGraph receives. device_type must stay valid for the life of the
 * process: TensorFlow keeps the pointer. */
typedef struct TP_OptimizerRegistrationParams {
  size_t struct_size;
  void* ext;
  int32_t major_version;
  int32_t minor_version;
  int32_t patch_version;
  const char* device_type;
  TP_OptimizerConfigs* optimizer_configs;
  TP_Optimizer* optimizer;
} TP_OptimizerRegistrationParams;

#define TP_OPTIMIZER_REGISTRATION_PARAMS_STRUCT_SIZE \
  TF_OFFSET_OF_END(TP_OptimizerRegistrationParams, optimizer)

/* Defined by the plugin; the host calls it once after loading the plugin. Not
 * exported by the host. */
void TF_InitGraph(TP_OptimizerRegistrationParams* params, TF_Status* status);

/* The nodes the optimizer must keep and the nodes the graph fetches. The size
 * functions give the count and the total length of the names (no NULs); the
 * list functions copy the names, unterminated, into storage. */
TF_CAPI_EXPORT extern void TF_GetNodesToPreserveListSize(const TF_GrapplerItem* item,
                                                         int* num_values, size_t* storage_size,
                                                         TF_Status* status);

TF_CAPI_EXPORT extern void TF_GetNodesToPreserveList(const TF_GrapplerItem* item, char** values,
                                                     size_t* lengths, int num_values, void* storage,
                                                     size_t storage_size, TF_Status* status);

TF_CAPI_EXPORT extern void TF_GetFetchNodesListSize(const TF_GrapplerItem* item, int* num_values,
                                                    size_t* storage_size, TF_Status* status);

TF_CAPI_EXPORT extern void TF_GetFetchNodesList(const TF_GrapplerItem* item, char** values,
                                                size_t* lengths, int num_values, void* storage,
                                                size_t storage_size, TF_Status* status);

/* Static shape inference over an item's graph. */
typedef struct TF_GraphProperties TF_GraphProperties;

TF_CAPI_EXPORT extern TF_GraphProperties* TF_NewGraphProperties(const TF_GrapplerItem* item);

TF_CAPI_EXPORT extern void TF_DeleteGraphProperties(TF_GraphProperties* graph_properties);

TF_CAPI_EXPORT extern void TF_InferStatically(TF_GraphProperties* graph_properties,
                                              TF_Bool assume_valid_feeds,
                                              TF_Bool aggressive_shape_inference,
                                              TF_Bool include_input_tensor_values,
                                              TF_Bool include_output_tensor_values, TF_Status* s);

TF_CAPI_EXPORT extern void TF_GetInputPropertiesListSize(TF_GraphProperties* graph_properties,
                                                         const char* name, int* num_values,
                                                         TF_Status* status);

TF_CAPI_EXPORT extern void TF_GetOutputPropertiesListSize(TF_GraphProperties* graph_properties,
                                                          const char* name, int* num_values,
                                                          TF_Status* status);

/* Each properties[i] receives a serialized OpInfo.TensorProperties. */
TF_CAPI_EXPORT extern void TF_GetInputPropertiesList(TF_GraphProperties* graph_properties,
                                                     const char* name, TF_Buffer** properties,
                                                     int num_values, TF_Status* status);

TF_CAPI_EXPORT extern void TF_GetOutputPropertiesList(TF_GraphProperties* graph_properties,
                                                      const char* name, TF_Buffer** properties,
                                                      int num_values, TF_Status* status);

/* The function library of a serialized GraphDef, for looking up OpDefs. */
typedef struct TF_FunctionLibraryDefinition TF_FunctionLibraryDefinition;

TF_CAPI_EXPORT extern TF_FunctionLibraryDefinition* TF_NewFunctionLibraryDefinition(
    const TF_Buffer* graph_buf, TF_Status* status);

TF_CAPI_EXPORT extern void TF_DeleteFunctionLibraryDefinition(TF_FunctionLibraryDefinition* fn_lib);

/* Writes the serialized OpDef of op `name` into buf. */
TF_CAPI_EXPORT extern void TF_LookUpOpDef(TF_FunctionLibraryDefinition* fn_lib, const char* name,
                                          TF_Buffer* buf, TF_Status* s);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* TENSORFLOW_C_EXPERIMENTAL_GRAPPLER_GRAPPLER_H_ */
