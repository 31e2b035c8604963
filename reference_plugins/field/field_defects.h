// The field defect corpus: field_cxx_whole_struct with one function (or the
// few that go wrong together in one real plugin) replaced by a defect seen
// in (or modelled on) real plugins. Built once per
// FIELD_DEFECT_<NAME>; tests/field_corpus_test.cc asserts which check that
// tests the broken function catches it, and that the rest pass or are
// blocked by it.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

#include "field_device.h"

namespace field_defect {

#if defined(FIELD_DEFECT_NOOP_ALLOCATE)
// Returns as if it allocated, and sets nothing (TF test_util's allocate).
inline void Allocate(const SP_Device*, uint64_t, int64_t, SP_DeviceMemoryBase*) {}
#define FIELD_ALLOCATE field_defect::Allocate

#elif defined(FIELD_DEFECT_CALLBACK_FALSE)
// Returns TF_OK (0, so false: "not enqueued") and never runs the callback,
// as the community sample and DirectML do.
inline TF_Bool HostCallback(const SP_Device*, SP_Stream, SE_StatusCallbackFn, void*) {
  return TF_OK;
}
#define FIELD_HOST_CALLBACK field_defect::HostCallback

#elif defined(FIELD_DEFECT_CALLBACK_NEVER_RUNS)
// Returns true ("enqueued") and never runs the callback, as TensorFlow's own
// test plugin (stream_executor_test_util.cc) does; TensorFlow's waits for
// copy completions and EventMgr then hang.
inline TF_Bool HostCallback(const SP_Device*, SP_Stream, SE_StatusCallbackFn, void*) { return 1; }
#define FIELD_HOST_CALLBACK field_defect::HostCallback

#elif defined(FIELD_DEFECT_EVENT_UNKNOWN_NO_BUSY_WORK)
// Three defects real plugins have, together: get_event_status answers
// UNKNOWN whatever the event went through (TensorFlow's test plugin; its
// EventMgr aborts on it), host_callback returns TF_OK (false) and never runs
// the callback (the community sample, DirectML), and allocate sets nothing
// (the test plugin). Nothing can keep a stream busy, so only an event
// recorded on an idle stream shows the UNKNOWN.
inline SE_EventStatus GetEventStatus(const SP_Device*, SP_Event) { return SE_EVENT_UNKNOWN; }
inline TF_Bool HostCallback(const SP_Device*, SP_Stream, SE_StatusCallbackFn, void*) {
  return TF_OK;
}
inline void Allocate(const SP_Device*, uint64_t, int64_t, SP_DeviceMemoryBase*) {}
#define FIELD_GET_EVENT_STATUS field_defect::GetEventStatus
#define FIELD_HOST_CALLBACK field_defect::HostCallback
#define FIELD_ALLOCATE field_defect::Allocate

#elif defined(FIELD_DEFECT_TIMER_UNSET)
// The community sample: create_timer never sets the handle, start/stop do
// nothing, and nanoseconds dereferences the handle it never got.
inline void CreateTimer(const SP_Device*, SP_Timer*, TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
}
inline void StartOrStopTimer(const SP_Device*, SP_Stream, SP_Timer, TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
}
#define FIELD_CREATE_TIMER field_defect::CreateTimer
#define FIELD_START_TIMER field_defect::StartOrStopTimer
#define FIELD_STOP_TIMER field_defect::StartOrStopTimer

#elif defined(FIELD_DEFECT_THROW_CREATE_DEVICE)
// A C++ exception out of an extern "C" callback: std::terminate inside
// TensorFlow.
#define FIELD_REFUSE_ORDINAL(status) throw std::out_of_range("no device with this ordinal")

#elif defined(FIELD_DEFECT_EXIT_SYNC_HTOD)
// Ends the process from inside a copy, as a fatal-error path in a vendor
// runtime does.
inline void SyncMemcpyHtoD(const SP_Device*, SP_DeviceMemoryBase*, const void*, uint64_t,
                           TF_Status*) {
  std::exit(3);
}
#define FIELD_SYNC_MEMCPY_HTOD field_defect::SyncMemcpyHtoD

#elif defined(FIELD_DEFECT_ZERO_DEALLOCATE_CRASH)
// A 0-byte allocation gets a real, empty block; deallocate poisons the freed
// bytes up to the last one, and `size - 1` wraps for a 0-byte block.
inline void Allocate(const SP_Device*, uint64_t size, int64_t, SP_DeviceMemoryBase* mem) {
  void* block = nullptr;
  if (size > (uint64_t{1} << 40) ||
      posix_memalign(&block, kFieldAlignment, size + kFieldAlignment) != 0) {
    mem->opaque = nullptr;
    mem->size = 0;
    return;
  }
  std::memcpy(block, &size, sizeof(size));
  FieldCountAllocation(size);
  mem->opaque = static_cast<char*>(block) + kFieldAlignment;
  mem->size = size;
  mem->payload = 0;
}
inline void Deallocate(const SP_Device*, SP_DeviceMemoryBase* memory) {
  if (memory->opaque == nullptr) return;
  const uint64_t size = FieldBlockSize(memory->opaque);
  std::memset(memory->opaque, 0xdd, size - 1);
  FieldCountFree(size);
  std::free(static_cast<char*>(memory->opaque) - kFieldAlignment);
}
#define FIELD_ALLOCATE field_defect::Allocate
#define FIELD_DEALLOCATE field_defect::Deallocate

#elif defined(FIELD_DEFECT_OVERRUN_SMALL_BLOCKS)
// Blocks are exactly the size asked for (their sizes kept aside, since
// TensorFlow deallocates with size 0), and each is tagged with a 4-byte
// marker at its start whatever its size: a 1-byte block gets 3 bytes written
// past its end.
constexpr uint32_t kBlockTag = 0xfeedf00d;
inline std::mutex block_sizes_mutex;
inline std::unordered_map<void*, uint64_t> block_sizes;
inline void Allocate(const SP_Device*, uint64_t size, int64_t, SP_DeviceMemoryBase* mem) {
  void* block = nullptr;
  mem->opaque = nullptr;
  mem->size = 0;
  mem->payload = 0;
  if (size == 0 || size > (uint64_t{1} << 40) ||
      posix_memalign(&block, kFieldAlignment, size) != 0) {
    return;
  }
  std::memcpy(block, &kBlockTag, sizeof(kBlockTag));
  {
    std::lock_guard lock(block_sizes_mutex);
    block_sizes[block] = size;
  }
  FieldCountAllocation(size);
  mem->opaque = block;
  mem->size = size;
}
inline void Deallocate(const SP_Device*, SP_DeviceMemoryBase* memory) {
  if (memory->opaque == nullptr) return;
  uint64_t size = 0;
  {
    std::lock_guard lock(block_sizes_mutex);
    size = block_sizes[memory->opaque];
    block_sizes.erase(memory->opaque);
  }
  FieldCountFree(size);
  std::free(memory->opaque);
}
#define FIELD_ALLOCATE field_defect::Allocate
#define FIELD_DEALLOCATE field_defect::Deallocate

#elif defined(FIELD_DEFECT_LEAKING_DESTROYS)
// Forgets to free what create_stream and create_event made.
inline void DestroyStream(const SP_Device*, SP_Stream) {}
inline void DestroyEvent(const SP_Device*, SP_Event) {}
#define FIELD_DESTROY_STREAM field_defect::DestroyStream
#define FIELD_DESTROY_EVENT field_defect::DestroyEvent

#else
#error "FIELD_DEFECT needs one FIELD_DEFECT_<NAME>"
#endif

}  // namespace field_defect
