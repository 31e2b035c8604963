// SP_TimerFns: reading a timer. Older TensorFlow requires it; newer
// TensorFlow no longer asks for it but still calls destroy_timer_fns.

#include "../common/host_struct.h"
#include "handles.h"
#include "plugin_fns.h"

namespace sectl_plugin::cpu {
namespace {

uint64_t Nanoseconds(SP_Timer timer) noexcept {
  return timer != nullptr ? timer->state->ElapsedNanoseconds() : 0;
}

}  // namespace

void FillTimerFns(SP_TimerFns* timer_fns) {
  HostStruct<SP_TimerFns> fns(timer_fns, SP_TIMER_FNS_STRUCT_SIZE);
  fns.Set(&SP_TimerFns::nanoseconds, Nanoseconds);
  fns.WriteBackSize();
}

}  // namespace sectl_plugin::cpu
