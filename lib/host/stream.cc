#include "host/stream.h"

#include <fmt/format.h>

#include "host/device.h"
#include "host/dispatcher.h"
#include "host/event.h"

namespace sectl::host {
namespace {

using abi::PluginFunction;

// What the plugin calls back: runs the body, counts the call, and never
// lets an exception into plugin code.
void HostCallbackTrampoline(void* argument, TF_Status* status) noexcept {
  auto* record = static_cast<HostCallbackRecord*>(argument);
  record->calls.fetch_add(1, std::memory_order_acq_rel);
  try {
    if (record->body) record->body(status);
  } catch (...) {
    TF_SetStatus(status, TF_INTERNAL, "sectl's host callback threw an exception");
  }
}

}  // namespace

Expected<std::unique_ptr<Stream>> Stream::Create(const Device& device) {
  SP_Stream handle = nullptr;
  auto created = device.dispatcher().CallWithStatus<&SP_StreamExecutor::create_stream>(
      device.fns({}), device.plugin_device(), &handle);
  if (!created) return tl::unexpected(created.error());
  return std::make_unique<Stream>(Passkey{}, device, handle);
}

Stream::~Stream() {
  switch (device_.stream_teardown_wait()) {
    case Device::StreamTeardownWait::kTensorFlows:
      (void)BlockHostUntilDone();
      break;
    case Device::StreamTeardownWait::kSynchronizeAllActivity:
      (void)device_.SynchronizeAllActivity();
      break;
    case Device::StreamTeardownWait::kNone:
      break;
  }
  if (handle_ != nullptr) {
    (void)device_.dispatcher().Call<&SP_StreamExecutor::destroy_stream>(
        device_.fns({}), device_.plugin_device(), handle_);
  }
}

Expected<void> Stream::MemcpyHtoD(SP_DeviceMemoryBase destination, const void* source,
                                  uint64_t size) {
  return device_.dispatcher().CallWithStatus<&SP_StreamExecutor::memcpy_htod>(
      device_.fns({}), device_.plugin_device(), handle_, &destination, source, size);
}

Expected<void> Stream::MemcpyDtoH(void* destination, SP_DeviceMemoryBase source, uint64_t size) {
  return device_.dispatcher().CallWithStatus<&SP_StreamExecutor::memcpy_dtoh>(
      device_.fns({}), device_.plugin_device(), handle_, destination,
      static_cast<const SP_DeviceMemoryBase*>(&source), size);
}

Expected<void> Stream::MemcpyDtoD(SP_DeviceMemoryBase destination, SP_DeviceMemoryBase source,
                                  uint64_t size) {
  return device_.dispatcher().CallWithStatus<&SP_StreamExecutor::memcpy_dtod>(
      device_.fns({}), device_.plugin_device(), handle_, &destination,
      static_cast<const SP_DeviceMemoryBase*>(&source), size);
}

Expected<void> Stream::MemZero(SP_DeviceMemoryBase location, uint64_t size) {
  return device_.dispatcher().CallWithStatus<&SP_StreamExecutor::mem_zero>(
      device_.fns({}), device_.plugin_device(), handle_, &location, size);
}

Expected<void> Stream::Memset8(SP_DeviceMemoryBase location, uint8_t pattern, uint64_t size) {
  return device_.dispatcher().CallWithStatus<&SP_StreamExecutor::memset>(
      device_.fns({}), device_.plugin_device(), handle_, &location, pattern, size);
}

Expected<void> Stream::Memset32(SP_DeviceMemoryBase location, uint32_t pattern, uint64_t size) {
  return device_.dispatcher().CallWithStatus<&SP_StreamExecutor::memset32>(
      device_.fns({}), device_.plugin_device(), handle_, &location, pattern, size);
}

Expected<void> Stream::RecordEvent(const Event& event) {
  return device_.dispatcher().CallWithStatus<&SP_StreamExecutor::record_event>(
      device_.fns({}), device_.plugin_device(), handle_, event.handle());
}

Expected<void> Stream::WaitForEvent(const Event& event) {
  return device_.dispatcher().CallWithStatus<&SP_StreamExecutor::wait_for_event>(
      device_.fns({}), device_.plugin_device(), handle_, event.handle());
}

Expected<void> Stream::WaitFor(const Stream& other) {
  return device_.dispatcher().CallWithStatus<&SP_StreamExecutor::create_stream_dependency>(
      device_.fns({}), device_.plugin_device(), handle_, other.handle_);
}

Expected<std::shared_ptr<const HostCallbackRecord>> Stream::EnqueueHostCallback(
    std::function<void(TF_Status*)> body) {
  auto record = std::make_shared<HostCallbackRecord>();
  record->body = std::move(body);
  callbacks_.push_back(record);
  auto enqueued = device_.dispatcher().Call<&SP_StreamExecutor::host_callback>(
      device_.fns({}), device_.plugin_device(), handle_, &HostCallbackTrampoline,
      static_cast<void*>(record.get()));
  if (!enqueued) return tl::unexpected(enqueued.error());
  if (*enqueued == 0) {
    return PluginFailure(PluginFunction::kHostCallback,
                         "host_callback returned false: the callback was not enqueued");
  }
  return std::shared_ptr<const HostCallbackRecord>(record);
}

Expected<void> Stream::BlockHostUntilDone() {
  if (device_.fns({}).block_host_until_done != nullptr) {
    return device_.dispatcher().CallWithStatus<&SP_StreamExecutor::block_host_until_done>(
        device_.fns({}), device_.plugin_device(), handle_);
  }
  auto event = device_.CreateEvent();
  if (!event) return tl::unexpected(event.error());
  if (auto recorded = RecordEvent(**event); !recorded) return recorded;
  return (*event)->BlockHost();
}

Expected<void> Stream::Status() const {
  return device_.dispatcher().CallWithStatus<&SP_StreamExecutor::get_stream_status>(
      device_.fns({}), device_.plugin_device(), handle_);
}

}  // namespace sectl::host
