/* Faults in a plugin's graph-optimizer module (TF_InitGraph), judged by the
 * graph.* checks (checks/graph_checks.cc): the base plugin is correct, and
 * its graph module registers an optimizer for the base's device type, with
 * one fault. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "fault_hooks.h"
#include "tensorflow/c/experimental/grappler/grappler.h"
#include "tensorflow/c/tf_buffer.h"

/* The type the minimal base registers. */
#define BASE_DEVICE_TYPE "SECTL_MINIMAL"

void PlantRegistrationFault(SE_PlatformRegistrationParams* params, TF_Status* status) {
  (void)params;
  (void)status;
}

void PlantStreamExecutorFault(SP_StreamExecutor* stream_executor) { (void)stream_executor; }

static void* Create(void) { return NULL; }

/* TF_Buffer's deallocator: TF_DeleteBuffer calls it with the length. */
static void FreeGraph(void* data, size_t length) {
  (void)length;
  free(data);
}

/* Hands the graph back unchanged, as an optimizer with nothing to do. */
static void Optimize(void* optimizer, const TF_Buffer* graph, const TF_GrapplerItem* item,
                     TF_Buffer* optimized, TF_Status* status) {
  (void)optimizer;
  (void)item;
  void* copy = malloc(graph->length > 0 ? graph->length : 1);
  if (copy == NULL) {
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  if (graph->length > 0) memcpy(copy, graph->data, graph->length);
  optimized->data = copy;
  optimized->length = graph->length;
  optimized->data_deallocator = FreeGraph;
  TF_SetStatus(status, TF_OK, "");
}

static void Destroy(void* optimizer) { (void)optimizer; }

void TF_InitGraph(TP_OptimizerRegistrationParams* params, TF_Status* status);

__attribute__((visibility("default"))) void TF_InitGraph(TP_OptimizerRegistrationParams* params,
                                                         TF_Status* status) {
  params->device_type = BASE_DEVICE_TYPE;
  params->optimizer->create_func = Create;
  params->optimizer->optimize_func = Optimize;
  params->optimizer->destroy_func = Destroy;
  params->optimizer_configs->remapping = TF_TriState_Off;
  TF_SetStatus(status, TF_OK, "");
#if defined(FAULT_GRAPH_WITHOUT_OPTIMIZE_FUNC)
  params->optimizer->optimize_func = NULL;
#elif defined(FAULT_GRAPH_CONFIGS_SIZE_ZERO)
  /* Written as if the plugin owned the struct, from a zeroed local. */
  params->optimizer_configs->struct_size = 0;
#elif defined(FAULT_GRAPH_INIT_FAILS)
  TF_SetStatus(status, TF_INTERNAL, "graph module: no optimizer for this device");
#elif defined(FAULT_GRAPH_FOR_ANOTHER_DEVICE)
  params->device_type = "MY_DEVICE";
#elif defined(FAULT_GRAPH_CONFIGS_PRE_2_10)
  /* Built against the header before TensorFlow 2.10, and saying so. */
  params->optimizer_configs->struct_size = 88;
#endif
}
