// The replay's own objects for the trace's identities: the host runtime's
// stream, event or allocation, and what the replay must remember about
// each until the plugin shows the work done (replay/replayer.cc).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "host/event.h"
#include "host/memory.h"
#include "host/stream.h"
#include "replay/shadow_memory.h"
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

namespace sectl::replay {

// What a host callback's body saw: how often it ran and the code the
// plugin passed it. Written from the plugin's threads.
struct CallbackRun {
  std::atomic<int> runs{0};
  std::atomic<int> code{-1};
};

// Work enqueued on a stream whose outcome is known only once the stream is
// known to have passed it: a device-to-host copy to verify, a host buffer
// to keep alive, a host callback that must have run.
struct PendingWork {
  uint64_t ticket = 0;  // the stream's count of enqueued work
  size_t record_index = 0;
  std::vector<uint8_t> host_bytes;  // the copy's source or destination
  bool verify = false;              // a device-to-host copy to compare
  uint32_t allocation = 0;
  uint64_t offset = 0;
  std::vector<Segment> expected;  // the shadow when the copy was enqueued
  uint32_t callback = 0;          // host_callback's identity, 0 for copies
  std::shared_ptr<CallbackRun> callback_run;
};

struct ReplayStream {
  std::unique_ptr<host::Stream> stream;
  int device = 0;
  uint64_t tickets = 0;
  std::deque<PendingWork> pending;
};

struct ReplayEvent {
  std::unique_ptr<host::Event> event;
  int device = 0;
  // Where it was last recorded: which stream, after which of its work.
  uint32_t stream = 0;
  uint64_t ticket = 0;
  bool seen_complete = false;
};

struct ReplayAllocation {
  host::DeviceMemory device_memory;
  host::HostMemory unified;  // unified_memory_allocate's, used as device memory
  uint64_t size = 0;
  int device = 0;

  SP_DeviceMemoryBase Range(uint64_t offset, uint64_t size_in_range) const {
    if (unified.data() == nullptr) {
      if (offset == 0 && size_in_range == device_memory.size()) return device_memory.base();
      return device_memory.Slice(offset, size_in_range);
    }
    SP_DeviceMemoryBase range{};
    range.struct_size = SP_DEVICE_MEMORY_BASE_STRUCT_SIZE;
    range.opaque = static_cast<char*>(unified.data()) + offset;
    range.size = size_in_range;
    return range;
  }
};

}  // namespace sectl::replay
