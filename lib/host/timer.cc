#include "host/timer.h"

#include "host/device.h"
#include "host/dispatcher.h"
#include "host/platform.h"
#include "host/stream.h"

namespace sectl::host {

Expected<std::unique_ptr<Timer>> Timer::Create(const Device& device) {
  SP_Timer handle = nullptr;
  auto created = device.dispatcher().CallWithStatus<&SP_StreamExecutor::create_timer>(
      device.fns({}), device.plugin_device(), &handle);
  if (!created) return tl::unexpected(created.error());
  return std::make_unique<Timer>(Passkey{}, device, handle);
}

Timer::~Timer() {
  if (handle_ == nullptr) return;
  (void)device_.dispatcher().Call<&SP_StreamExecutor::destroy_timer>(
      device_.fns({}), device_.plugin_device(), handle_);
}

Expected<void> Timer::Start(const Stream& stream) {
  return device_.dispatcher().CallWithStatus<&SP_StreamExecutor::start_timer>(
      device_.fns({}), device_.plugin_device(), stream.handle(), handle_);
}

Expected<void> Timer::Stop(const Stream& stream) {
  return device_.dispatcher().CallWithStatus<&SP_StreamExecutor::stop_timer>(
      device_.fns({}), device_.plugin_device(), stream.handle(), handle_);
}

Expected<uint64_t> Timer::Nanoseconds() const {
  return device_.dispatcher().Call<&SP_TimerFns::nanoseconds>(device_.platform().timer_fns({}),
                                                              handle_);
}

}  // namespace sectl::host
