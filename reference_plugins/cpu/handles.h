// The opaque handle types of stream_executor.h, as this plugin defines them.
//
// The header only declares `struct SP_Stream_st` and friends; each plugin
// completes them. Handles are created with std::make_unique and handed to
// the host with release(); the matching destroy_* call takes ownership back.

#ifndef SECTL_REFERENCE_PLUGINS_CPU_HANDLES_H_
#define SECTL_REFERENCE_PLUGINS_CPU_HANDLES_H_

#include <memory>

#include "device_state.h"
#include "event_state.h"
#include "stream_worker.h"
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"
#include "timer_state.h"

struct SP_Stream_st {
  explicit SP_Stream_st(sectl_plugin::cpu::DeviceState& owner) : device(owner) {
    device.AddStream(&worker);
  }
  // Unregister first, so synchronize_all_activity stops seeing the stream;
  // then `worker` is destroyed, which runs what is left in its queue.
  ~SP_Stream_st() { device.RemoveStream(&worker); }

  SP_Stream_st(const SP_Stream_st&) = delete;
  SP_Stream_st& operator=(const SP_Stream_st&) = delete;

  sectl_plugin::cpu::DeviceState& device;
  sectl_plugin::cpu::StreamWorker worker;
};

// Event and timer state is shared with the operations queued on them.
struct SP_Event_st {
  std::shared_ptr<sectl_plugin::cpu::EventState> state =
      std::make_shared<sectl_plugin::cpu::EventState>();
};

struct SP_Timer_st {
  std::shared_ptr<sectl_plugin::cpu::TimerState> state =
      std::make_shared<sectl_plugin::cpu::TimerState>();
};

#endif  // SECTL_REFERENCE_PLUGINS_CPU_HANDLES_H_
