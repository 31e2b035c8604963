#include "host/event.h"

#include "host/device.h"
#include "host/dispatcher.h"

namespace sectl::host {

using abi::PluginFunction;

Expected<std::unique_ptr<Event>> Event::Create(const Device& device) {
  SP_Event handle = nullptr;
  auto created = device.dispatcher().InvokeWithStatus(
      PluginFunction::kCreateEvent, device.fns().create_event, device.plugin_device(), &handle);
  if (!created) return tl::unexpected(created.error());
  return std::make_unique<Event>(Passkey{}, device, handle);
}

Event::~Event() {
  if (handle_ == nullptr) return;
  (void)device_.dispatcher().Invoke(PluginFunction::kDestroyEvent, device_.fns().destroy_event,
                                    device_.plugin_device(), handle_);
}

Expected<SE_EventStatus> Event::Status() const {
  return device_.dispatcher().Invoke(PluginFunction::kGetEventStatus,
                                     device_.fns().get_event_status, device_.plugin_device(),
                                     handle_);
}

Expected<void> Event::BlockHost() const {
  return device_.dispatcher().InvokeWithStatus(PluginFunction::kBlockHostForEvent,
                                               device_.fns().block_host_for_event,
                                               device_.plugin_device(), handle_);
}

}  // namespace sectl::host
