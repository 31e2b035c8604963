// A device of the embedded host runtime: what TensorFlow's CStreamExecutor
// holds for one ordinal. Allocation, memory accounting, device description,
// and the factory for streams, events and timers.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "base/error.h"
#include "host/findings.h"
#include "host/memory.h"
#include "host/table_access.h"
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

namespace sectl::host {

class Platform;
class Dispatcher;
class Stream;
class Event;
class Timer;

struct MemoryUsage {
  int64_t free_bytes = 0;
  int64_t total_bytes = 0;
};

class Device {
 public:
  // create_device as TensorFlow calls it (see Platform::CreateDevice).
  static Expected<std::unique_ptr<Device>> Create(Platform& platform, int ordinal);

  // destroy_device. Every Stream, Event, Timer and allocation of this
  // device must be gone first.
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  int requested_ordinal() const { return requested_ordinal_; }
  int32_t reported_ordinal() const { return device_.ordinal; }
  void* device_handle() const { return device_.device_handle; }
  // Empty when the plugin did not report it.
  const std::string& hardware_name() const { return hardware_name_; }
  const std::string& vendor() const { return vendor_; }
  const std::string& pci_bus_id() const { return pci_bus_id_; }
  const FindingList& findings() const { return findings_; }

  // SP_DeviceFns; nullopt when the plugin does not provide the function.
  std::optional<int32_t> NumaNode() const;
  std::optional<int64_t> MemoryBandwidth() const;
  std::optional<double> Gflops() const;

  // device_memory_usage. An error when it returns false (TensorFlow then
  // fails to create the device).
  Expected<MemoryUsage> QueryMemoryUsage() const;
  // get_allocator_stats; nullopt when it returns false (stats unavailable).
  Expected<std::optional<SP_AllocatorStats>> QueryAllocatorStats() const;

  Expected<DeviceMemory> Allocate(uint64_t size, int64_t memory_space = 0) const;
  Expected<HostMemory> AllocateHost(HostMemoryKind kind, uint64_t size) const;

  Expected<std::unique_ptr<Stream>> CreateStream() const;
  Expected<std::unique_ptr<Event>> CreateEvent() const;
  Expected<std::unique_ptr<Timer>> CreateTimer() const;

  Expected<void> SynchronizeAllActivity() const;
  Expected<void> SyncMemcpyHtoD(SP_DeviceMemoryBase destination, const void* source,
                                uint64_t size) const;
  Expected<void> SyncMemcpyDtoH(void* destination, SP_DeviceMemoryBase source, uint64_t size) const;
  Expected<void> SyncMemcpyDtoD(SP_DeviceMemoryBase destination, SP_DeviceMemoryBase source,
                                uint64_t size) const;

  // How a Stream of this device waits for its work before destroy_stream:
  // as TensorFlow does (block_host_until_done, or its event fallback), or,
  // for a conformance check that must avoid that wait (it crashed or hung),
  // with synchronize_all_activity, or not at all.
  enum class StreamTeardownWait { kTensorFlows, kSynchronizeAllActivity, kNone };
  void set_stream_teardown_wait(StreamTeardownWait wait) { stream_teardown_wait_ = wait; }
  StreamTeardownWait stream_teardown_wait() const { return stream_teardown_wait_; }

  // For the runtime's other objects.
  const Platform& platform() const { return platform_; }
  const Dispatcher& dispatcher() const;
  const SP_StreamExecutor& fns(TableAccess key) const;  // see host/table_access.h
  const SP_Device* plugin_device() const { return &device_; }
  void Deallocate(void* opaque) const;
  void DeallocateHost(HostMemoryKind kind, void* data) const;

 private:
  struct Passkey {};

 public:
  Device(Passkey, Platform& platform, int ordinal, const SP_Device& device);

 private:
  Platform& platform_;
  int requested_ordinal_;
  // The host's copy: a different address from the one create_device saw,
  // as in TensorFlow.
  SP_Device device_;
  std::string hardware_name_;
  std::string vendor_;
  std::string pci_bus_id_;
  FindingList findings_;
  StreamTeardownWait stream_teardown_wait_ = StreamTeardownWait::kTensorFlows;
};

}  // namespace sectl::host
