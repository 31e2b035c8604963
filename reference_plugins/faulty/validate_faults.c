/* Faults for the validation layer's online checks (validate.cmake). */
#include <stdint.h>

#include "fault_hooks.h"

void PlantRegistrationFault(SE_PlatformRegistrationParams* params, TF_Status* status) {
  (void)params;
  (void)status;
}

#if defined(FAULT_EVENT_STATUS_OUT_OF_RANGE)
/* A status the enum does not have: a plugin that returns its own runtime's
 * event state (here 7) where SE_EventStatus was meant. */
static SE_EventStatus (*base_get_event_status)(const SP_Device*, SP_Event);

static SE_EventStatus OwnEventState(const SP_Device* device, SP_Event event) {
  const SE_EventStatus status = base_get_event_status(device, event);
  return status == SE_EVENT_COMPLETE ? (SE_EventStatus)7 : status;
}
#endif

#if defined(FAULT_CREATE_EVENT_ERROR_WITH_HANDLE)
/* create_event makes the event, then reports an error for it anyway (a
 * warning from the runtime taken for a failure), leaving the handle set. */
static void (*base_create_event)(const SP_Device*, SP_Event*, TF_Status*);

static void CreateEventReportingError(const SP_Device* device, SP_Event* event, TF_Status* status) {
  base_create_event(device, event, status);
  if (TF_GetCode(status) == TF_OK) TF_SetStatus(status, TF_INTERNAL, "faulty: spurious error");
}
#endif

void PlantStreamExecutorFault(SP_StreamExecutor* stream_executor) {
#if defined(FAULT_EVENT_STATUS_OUT_OF_RANGE)
  base_get_event_status = stream_executor->get_event_status;
  stream_executor->get_event_status = OwnEventState;
#endif
#if defined(FAULT_CREATE_EVENT_ERROR_WITH_HANDLE)
  base_create_event = stream_executor->create_event;
  stream_executor->create_event = CreateEventReportingError;
#endif
  (void)stream_executor;
}
