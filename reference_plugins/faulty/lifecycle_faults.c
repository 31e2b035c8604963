/* Faults in giving back what create_* made (checks/lifecycle_checks.cc):
 * destroy functions that return without freeing. Each leaks one small heap
 * object per create/destroy cycle, far too little for the process's
 * resident memory to show over a few cycles. The base is the minimal
 * plugin, whose streams and events are calloc'd structs. */
#include <stddef.h>

#include "fault_hooks.h"

void PlantRegistrationFault(SE_PlatformRegistrationParams* params, TF_Status* status) {
  (void)params;
  (void)status;
}

#if defined(FAULT_STREAM_DESTROY_LEAKS) || defined(FAULT_STREAM_AND_EVENT_DESTROY_LEAK)
/* Forgets the stream: its struct stays allocated. */
static void DestroyStreamWithoutFreeing(const SP_Device* device, SP_Stream stream) {
  (void)device;
  (void)stream;
}
#endif

#if defined(FAULT_EVENT_DESTROY_LEAKS) || defined(FAULT_STREAM_AND_EVENT_DESTROY_LEAK)
/* Forgets the event: its struct stays allocated. */
static void DestroyEventWithoutFreeing(const SP_Device* device, SP_Event event) {
  (void)device;
  (void)event;
}
#endif

void PlantStreamExecutorFault(SP_StreamExecutor* se) {
#if defined(FAULT_STREAM_DESTROY_LEAKS)
  se->destroy_stream = DestroyStreamWithoutFreeing;
#elif defined(FAULT_EVENT_DESTROY_LEAKS)
  se->destroy_event = DestroyEventWithoutFreeing;
#elif defined(FAULT_STREAM_AND_EVENT_DESTROY_LEAK)
  /* Both at once, as the field corpus's LEAKING_DESTROYS: each leak must
   * still be judged, and blamed, on its own. */
  se->destroy_stream = DestroyStreamWithoutFreeing;
  se->destroy_event = DestroyEventWithoutFreeing;
#else
  (void)se;
#endif
}
