// An event of the embedded host runtime (TensorFlow's CEvent).
#pragma once

#include <memory>

#include "base/error.h"
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

namespace sectl::host {

class Device;

class Event {
 public:
  static Expected<std::unique_ptr<Event>> Create(const Device& device);
  // destroy_event, only for a non-null handle (as TensorFlow).
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  SP_Event handle() const { return handle_; }
  Expected<SE_EventStatus> Status() const;  // get_event_status
  Expected<void> BlockHost() const;         // block_host_for_event

 private:
  struct Passkey {};

 public:
  Event(Passkey, const Device& device, SP_Event handle) : device_(device), handle_(handle) {}

 private:
  const Device& device_;
  SP_Event handle_;
};

}  // namespace sectl::host
