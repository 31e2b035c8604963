// A timer of the embedded host runtime: measures a stream's execution
// between start_timer and stop_timer.
#pragma once

#include <cstdint>
#include <memory>

#include "base/error.h"
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

namespace sectl::host {

class Device;
class Stream;

class Timer {
 public:
  static Expected<std::unique_ptr<Timer>> Create(const Device& device);
  ~Timer();  // destroy_timer, only for a non-null handle
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  SP_Timer handle() const { return handle_; }
  Expected<void> Start(const Stream& stream);
  Expected<void> Stop(const Stream& stream);
  // SP_TimerFns.nanoseconds: valid once the stream has passed the stop.
  Expected<uint64_t> Nanoseconds() const;

 private:
  struct Passkey {};

 public:
  Timer(Passkey, const Device& device, SP_Timer handle) : device_(device), handle_(handle) {}

 private:
  const Device& device_;
  SP_Timer handle_;
};

}  // namespace sectl::host
