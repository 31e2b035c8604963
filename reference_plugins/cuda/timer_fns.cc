// SP_TimerFns: reading a timer. Older TensorFlow requires it; newer
// TensorFlow no longer asks for it but still calls destroy_timer_fns.

#include <cuda_runtime_api.h>

#include <cmath>

#include "../common/host_struct.h"
#include "handles.h"
#include "plugin_fns.h"

namespace sectl_plugin::cuda {
namespace {

// The device time between the timer's start and stop records. Waits for the
// stop record to be reached (the host reads a timer after waiting for its
// stream anyway); 0 if the timer never ran both records.
uint64_t Nanoseconds(SP_Timer timer) noexcept {
  if (timer == nullptr || cudaEventSynchronize(timer->stop.get()) != cudaSuccess) return 0;
  float milliseconds = 0;
  if (cudaEventElapsedTime(&milliseconds, timer->start.get(), timer->stop.get()) != cudaSuccess ||
      milliseconds <= 0) {
    return 0;
  }
  return static_cast<uint64_t>(std::llround(static_cast<double>(milliseconds) * 1e6));
}

}  // namespace

void FillTimerFns(SP_TimerFns* timer_fns) {
  HostStruct<SP_TimerFns> fns(timer_fns, SP_TIMER_FNS_STRUCT_SIZE);
  fns.Set(&SP_TimerFns::nanoseconds, Nanoseconds);
  fns.WriteBackSize();
}

}  // namespace sectl_plugin::cuda
