// A stream of the embedded host runtime (TensorFlow's CStream): ordered
// asynchronous copies, fills, events, dependencies and host callbacks.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "base/error.h"
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

namespace sectl::host {

class Device;
class Event;

// What happened to one host callback: how often the plugin called it.
struct HostCallbackRecord {
  std::function<void(TF_Status*)> body;
  std::atomic<int> calls{0};
};

class Stream {
 public:
  static Expected<std::unique_ptr<Stream>> Create(const Device& device);

  // As TensorFlow's ~CStream: wait for the stream's work, then
  // destroy_stream, but only for a non-null handle.
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  SP_Stream handle() const { return handle_; }

  Expected<void> MemcpyHtoD(SP_DeviceMemoryBase destination, const void* source, uint64_t size);
  Expected<void> MemcpyDtoH(void* destination, SP_DeviceMemoryBase source, uint64_t size);
  Expected<void> MemcpyDtoD(SP_DeviceMemoryBase destination, SP_DeviceMemoryBase source,
                            uint64_t size);
  Expected<void> MemZero(SP_DeviceMemoryBase location, uint64_t size);
  Expected<void> Memset8(SP_DeviceMemoryBase location, uint8_t pattern, uint64_t size);
  // `size` in bytes, a multiple of 4, as TensorFlow passes it.
  Expected<void> Memset32(SP_DeviceMemoryBase location, uint32_t pattern, uint64_t size);

  Expected<void> RecordEvent(const Event& event);
  Expected<void> WaitForEvent(const Event& event);
  // create_stream_dependency: this stream waits for `other`'s work so far.
  Expected<void> WaitFor(const Stream& other);

  // Enqueues `body` to run after the stream's earlier work. The record
  // stays valid for the stream's lifetime, however often the plugin calls it.
  Expected<std::shared_ptr<const HostCallbackRecord>> EnqueueHostCallback(
      std::function<void(TF_Status*)> body);

  // block_host_until_done, or TensorFlow's fallback when the plugin lacks it:
  // create_event, record_event, block_host_for_event, destroy_event.
  Expected<void> BlockHostUntilDone();

  // get_stream_status: the stream's error, if it has one.
  Expected<void> Status() const;

 private:
  struct Passkey {};

 public:
  Stream(Passkey, const Device& device, SP_Stream handle) : device_(device), handle_(handle) {}

 private:
  const Device& device_;
  SP_Stream handle_;
  std::vector<std::shared_ptr<HostCallbackRecord>> callbacks_;
};

}  // namespace sectl::host
