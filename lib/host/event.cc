#include "host/event.h"

#include "host/device.h"
#include "host/dispatcher.h"

namespace sectl::host {

Expected<std::unique_ptr<Event>> Event::Create(const Device& device) {
  SP_Event handle = nullptr;
  auto created = device.dispatcher().CallWithStatus<&SP_StreamExecutor::create_event>(
      device.fns({}), device.plugin_device(), &handle);
  if (!created) return tl::unexpected(created.error());
  return std::make_unique<Event>(Passkey{}, device, handle);
}

Event::~Event() {
  if (handle_ == nullptr) return;
  (void)device_.dispatcher().Call<&SP_StreamExecutor::destroy_event>(
      device_.fns({}), device_.plugin_device(), handle_);
}

Expected<SE_EventStatus> Event::Status() const {
  return device_.dispatcher().Call<&SP_StreamExecutor::get_event_status>(
      device_.fns({}), device_.plugin_device(), handle_);
}

Expected<void> Event::BlockHost() const {
  return device_.dispatcher().CallWithStatus<&SP_StreamExecutor::block_host_for_event>(
      device_.fns({}), device_.plugin_device(), handle_);
}

}  // namespace sectl::host
