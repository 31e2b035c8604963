/* The graph module as the community sample plugin names it: its entry point
 * is TF_InitGraphPlugin, while every released TensorFlow's loader looks up
 * TF_InitGraph, so the optimizer is never registered
 * (docs/tf-module-c-api-facts.md §1, item 6). sectl's probe says so. */
#include "tensorflow/c/experimental/grappler/grappler.h"

TF_CAPI_EXPORT void TF_InitGraphPlugin(TP_OptimizerRegistrationParams* params, TF_Status* status) {
  (void)params;
  (void)status;
}
