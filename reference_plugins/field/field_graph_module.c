/* A plugin's graph-optimizer module, as real plugins write one (the
 * community sample's, under the entry point name TensorFlow's loader looks
 * up): TF_InitGraph names the platform's device type, sets the optimizer's
 * functions and turns off the Grappler passes the device does not want. The
 * optimizer hands the graph back unchanged. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/c/experimental/grappler/grappler.h"
#include "tensorflow/c/tf_buffer.h"

/* The device type field_cxx_whole_struct.cc registers. */
#define FIELD_DEVICE_TYPE "WHOLE_STRUCT"

typedef struct FieldOptimizer {
  int runs;
} FieldOptimizer;

/* TF_Buffer's deallocator: TF_DeleteBuffer calls it with the length. */
static void FreeGraph(void* data, size_t length) {
  (void)length;
  free(data);
}

static void* CreateOptimizer(void) { return calloc(1, sizeof(FieldOptimizer)); }

static void OptimizeGraph(void* optimizer, const TF_Buffer* graph, const TF_GrapplerItem* item,
                          TF_Buffer* optimized, TF_Status* status) {
  (void)item;
  if (optimizer != NULL) ((FieldOptimizer*)optimizer)->runs += 1;
  void* copy = malloc(graph->length > 0 ? graph->length : 1);
  if (copy == NULL) {
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "field optimizer: out of memory");
    return;
  }
  if (graph->length > 0) memcpy(copy, graph->data, graph->length);
  optimized->data = copy;
  optimized->length = graph->length;
  optimized->data_deallocator = FreeGraph;
  TF_SetStatus(status, TF_OK, "");
}

static void DestroyOptimizer(void* optimizer) { free(optimizer); }

void TF_InitGraph(TP_OptimizerRegistrationParams* params, TF_Status* status);

__attribute__((visibility("default"))) void TF_InitGraph(TP_OptimizerRegistrationParams* params,
                                                         TF_Status* status) {
  params->device_type = FIELD_DEVICE_TYPE;
  params->optimizer->create_func = CreateOptimizer;
  params->optimizer->optimize_func = OptimizeGraph;
  params->optimizer->destroy_func = DestroyOptimizer;
  params->optimizer_configs->remapping = TF_TriState_Off;
  params->optimizer_configs->auto_mixed_precision = TF_TriState_Off;
  TF_SetStatus(status, TF_OK, "");
}
