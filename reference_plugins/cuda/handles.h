// The opaque handle types of stream_executor.h, as this plugin defines them:
// each owns one or two CUDA objects. Handles are created with
// std::make_unique and handed to the host with release(); the matching
// destroy_* call takes ownership back.

#ifndef SECTL_REFERENCE_PLUGINS_CUDA_HANDLES_H_
#define SECTL_REFERENCE_PLUGINS_CUDA_HANDLES_H_

#include <memory>

#include "cuda_resources.h"
#include "device_state.h"
#include "stream_errors.h"
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

struct SP_Stream_st {
  SP_Stream_st(const sectl_plugin::cuda::DeviceState& owner, sectl_plugin::cuda::CudaStream created)
      : device(owner), stream(std::move(created)) {}

  const sectl_plugin::cuda::DeviceState& device;
  const sectl_plugin::cuda::CudaStream stream;
  const std::shared_ptr<sectl_plugin::cuda::StreamErrors> callback_errors =
      std::make_shared<sectl_plugin::cuda::StreamErrors>();
};

struct SP_Event_st {
  explicit SP_Event_st(sectl_plugin::cuda::CudaEvent created) : event(std::move(created)) {}

  const sectl_plugin::cuda::CudaEvent event;
};

// A timer is a pair of timing events recorded on the stream it times, so it
// measures the device's time between them, not the host's.
struct SP_Timer_st {
  SP_Timer_st(sectl_plugin::cuda::CudaEvent start_event, sectl_plugin::cuda::CudaEvent stop_event)
      : start(std::move(start_event)), stop(std::move(stop_event)) {}

  const sectl_plugin::cuda::CudaEvent start;
  const sectl_plugin::cuda::CudaEvent stop;
};

#endif  // SECTL_REFERENCE_PLUGINS_CUDA_HANDLES_H_
