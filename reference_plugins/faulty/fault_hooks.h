/* A faulty plugin is a correct reference plugin (the "base": minimal or
 * cpu) with exactly one seeded fault. faulty_base.c wraps the base's entry
 * point and calls these two hooks, which each area's *_faults.c file
 * defines; the fault itself is chosen by a FAULT_<NAME> compile definition,
 * so every faulty plugin differs from its base in one way only. */
#ifndef SECTL_REFERENCE_PLUGINS_FAULTY_FAULT_HOOKS_H_
#define SECTL_REFERENCE_PLUGINS_FAULTY_FAULT_HOOKS_H_

#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The base plugin's SE_InitPlugin, renamed at compile time. */
void Base_SE_InitPlugin(SE_PlatformRegistrationParams* params, TF_Status* status);

/* Called after the base's SE_InitPlugin succeeded: may change anything it
 * filled (platform, platform_fns, the params themselves). */
void PlantRegistrationFault(SE_PlatformRegistrationParams* params, TF_Status* status);

/* Called after the base filled the SP_StreamExecutor: may replace members. */
void PlantStreamExecutorFault(SP_StreamExecutor* stream_executor);

#ifdef __cplusplus
}
#endif

#endif /* SECTL_REFERENCE_PLUGINS_FAULTY_FAULT_HOOKS_H_ */
