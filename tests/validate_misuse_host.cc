// sectl_validate_misuse_host LAYER_SO SCENARIO: a stand-in for TensorFlow
// that loads libsectl_validate.so as TensorFlow would load a plugin, and
// then breaks the StreamExecutor C API's rules in exactly one way (or, for
// "well-behaved", in none), so that tests/validate_layer_test.cc can check
// that the layer names the host, not the plugin, as the culprit.
//
// It depends on the ABI headers and the host's TF_Status functions only:
// it plays TensorFlow, so it must not borrow sectl's own host runtime, whose
// bugs would then hide the layer's. Registration and teardown follow
// TensorFlow's order (docs: se-c-api-facts.md §3.4-3.7).
//
// Exit status: 0 when the scenario ran; 1 when "well-behaved" saw wrong
// data or a callback that never ran; 2 for bad usage; 3 when a step that is
// not the scenario's misuse failed (the plugin refused a correct call).
#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "tensorflow/c/experimental/stream_executor/stream_executor.h"
#include "tensorflow/c/tf_status.h"

namespace {

constexpr int kExitWrongResult = 1;
constexpr int kExitUsage = 2;
constexpr int kExitHostStepFailed = 3;

[[noreturn]] void HostStepFailed(const std::string& step, const std::string& reason) {
  std::fprintf(stderr, "misuse host: %s failed: %s\n", step.c_str(), reason.c_str());
  std::exit(kExitHostStepFailed);
}

struct StatusDeleter {
  void operator()(TF_Status* status) const { TF_DeleteStatus(status); }
};
using StatusPointer = std::unique_ptr<TF_Status, StatusDeleter>;

// One device memory range as TensorFlow describes it to the plugin: after
// allocate, opaque and size; for a tensor inside a BFC region, an interior
// pointer with payload 0.
SP_DeviceMemoryBase DeviceRange(void* opaque, uint64_t size) {
  SP_DeviceMemoryBase memory{};
  memory.struct_size = SP_DEVICE_MEMORY_BASE_STRUCT_SIZE;
  memory.opaque = opaque;
  memory.size = size;
  return memory;
}

// TensorFlow's side of one registered plugin: the structs it owns and
// pre-fills, the devices it created, and its one reused TF_Status.
class Host {
 public:
  explicit Host(const std::string& layer_path) {
    // RTLD_LOCAL, as TensorFlow's LoadDynamicLibrary does.
    library_ = ::dlopen(layer_path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library_ == nullptr) HostStepFailed("dlopen", ::dlerror());
    Register();
    CreateTables();
    CreateDevices();
  }

  ~Host() = default;
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;
  Host(Host&&) = delete;
  Host& operator=(Host&&) = delete;

  // TensorFlow's teardown order: devices, then the tables, the platform,
  // and last the platform's function table.
  void TearDown() {
    for (int ordinal = device_count_ - 1; ordinal >= 0; --ordinal) {
      if (!destroyed_.at(ordinal)) platform_fns_.destroy_device(&platform_, &devices_.at(ordinal));
    }
    platform_fns_.destroy_device_fns(&platform_, &device_fns_);
    platform_fns_.destroy_stream_executor(&platform_, &stream_executor_);
    platform_fns_.destroy_timer_fns(&platform_, &timer_fns_);
    params_.destroy_platform(&platform_);
    params_.destroy_platform_fns(&platform_fns_);
  }

  // Destroys device `ordinal` now; TearDown leaves it alone.
  void DestroyDevice(int ordinal) {
    platform_fns_.destroy_device(&platform_, &devices_.at(ordinal));
    destroyed_.at(ordinal) = true;
  }

  const SP_StreamExecutor& se() const { return stream_executor_; }
  const SP_TimerFns& timer_fns() const { return timer_fns_; }
  const SP_Device* device(int ordinal) const { return &devices_.at(ordinal); }
  int device_count() const { return device_count_; }
  TF_Status* status() const { return status_.get(); }

  // The status of the last call, which must be OK for a correct call.
  void ExpectOk(const std::string& step) const {
    if (TF_GetCode(status()) != TF_OK) HostStepFailed(step, TF_Message(status()));
  }

  SP_Stream NewStream(int ordinal) {
    SP_Stream stream = nullptr;
    stream_executor_.create_stream(device(ordinal), &stream, status());
    ExpectOk("create_stream");
    return stream;
  }

  SP_Event NewEvent(int ordinal) {
    SP_Event event = nullptr;
    stream_executor_.create_event(device(ordinal), &event, status());
    ExpectOk("create_event");
    return event;
  }

  SP_DeviceMemoryBase Allocate(int ordinal, uint64_t size) {
    SP_DeviceMemoryBase memory = DeviceRange(nullptr, 0);
    stream_executor_.allocate(device(ordinal), size, /*memory_space=*/0, &memory);
    if (memory.opaque == nullptr) HostStepFailed("allocate", std::to_string(size) + " bytes");
    return memory;
  }

  // As TensorFlow's DeviceMemAllocator::Free: the pointer only, size and
  // payload 0.
  void Deallocate(int ordinal, void* opaque) {
    SP_DeviceMemoryBase memory = DeviceRange(opaque, 0);
    stream_executor_.deallocate(device(ordinal), &memory);
  }

 private:
  using InitPlugin = void (*)(SE_PlatformRegistrationParams*, TF_Status*);

  void Register() {
    auto* init = reinterpret_cast<InitPlugin>(::dlsym(library_, "SE_InitPlugin"));
    if (init == nullptr) HostStepFailed("dlsym(SE_InitPlugin)", "not exported");
    platform_.struct_size = SP_PLATFORM_STRUCT_SIZE;
    platform_fns_.struct_size = SP_PLATFORM_FNS_STRUCT_SIZE;
    params_.struct_size = SE_PLATFORM_REGISTRATION_PARAMS_STRUCT_SIZE;
    params_.major_version = SE_MAJOR;
    params_.minor_version = SE_MINOR;
    params_.patch_version = SE_PATCH;
    params_.platform = &platform_;
    params_.platform_fns = &platform_fns_;
    init(&params_, status());
    ExpectOk("SE_InitPlugin");
  }

  void CreateTables() {
    device_fns_.struct_size = SP_DEVICE_FNS_STRUCT_SIZE;
    SE_CreateDeviceFnsParams device_fns_params{};
    device_fns_params.struct_size = SE_CREATE_DEVICE_FNS_PARAMS_STRUCT_SIZE;
    device_fns_params.device_fns = &device_fns_;
    platform_fns_.create_device_fns(&platform_, &device_fns_params, status());
    ExpectOk("create_device_fns");

    stream_executor_.struct_size = SP_STREAMEXECUTOR_STRUCT_SIZE;
    SE_CreateStreamExecutorParams executor_params{};
    executor_params.struct_size = SE_CREATE_STREAM_EXECUTOR_PARAMS_STRUCT_SIZE;
    executor_params.stream_executor = &stream_executor_;
    platform_fns_.create_stream_executor(&platform_, &executor_params, status());
    ExpectOk("create_stream_executor");

    timer_fns_.struct_size = SP_TIMER_FNS_STRUCT_SIZE;
    platform_fns_.create_timer_fns(&platform_, &timer_fns_, status());
    ExpectOk("create_timer_fns");
  }

  // Device 0, then the count (TensorFlow asks after the first device), then
  // device 1 where there is one: the scenarios use at most two.
  void CreateDevices() {
    CreateDevice(0);
    int count = 0;
    platform_fns_.get_device_count(&platform_, &count, status());
    ExpectOk("get_device_count");
    device_count_ = 1;
    if (count >= 2) {
      CreateDevice(1);
      device_count_ = 2;
    }
  }

  void CreateDevice(int ordinal) {
    SP_Device& device = devices_.at(ordinal);
    device.struct_size = SP_DEVICE_STRUCT_SIZE;
    SE_CreateDeviceParams params{};
    params.struct_size = SE_CREATE_DEVICE_PARAMS_STRUCT_SIZE;
    params.ordinal = ordinal;
    params.device = &device;
    platform_fns_.create_device(&platform_, &params, status());
    ExpectOk("create_device(" + std::to_string(ordinal) + ")");
  }

  void* library_ = nullptr;  // never closed: the layer writes its report at exit
  StatusPointer status_{TF_NewStatus()};
  SE_PlatformRegistrationParams params_{};
  SP_Platform platform_{};
  SP_PlatformFns platform_fns_{};
  SP_DeviceFns device_fns_{};
  SP_StreamExecutor stream_executor_{};
  SP_TimerFns timer_fns_{};
  std::array<SP_Device, 2> devices_{};
  std::array<bool, 2> destroyed_{};
  int device_count_ = 0;
};

// ---- Host misuses: each breaks one rule, and only one ----------------------
//
// The plugin still receives every misused call (the layer reports, it does
// not repair), so each scenario picks a call the bundled cpu plugin
// survives where one exists: create_stream_dependency of a stream on itself
// never touches the stream, and the cpu plugin's device memory is host
// memory that it copies into without looking.

constexpr uint64_t kSmall = 256;

// Whether the layer kept the last call from the plugin, as it does with a
// call it has proven invalid (issue 28): the status says so. Passed on,
// the plugin would act on a destroyed handle, or write where no allocation
// is (this host's own stack, below).
bool WasWithheld(Host& host, const char* what) {
  const bool withheld =
      TF_GetCode(host.status()) == TF_INVALID_ARGUMENT &&
      std::strstr(TF_Message(host.status()), "not passed on to the plugin") != nullptr;
  if (!withheld) std::fprintf(stderr, "misuse host: %s was passed on to the plugin\n", what);
  return withheld;
}

bool UseStreamAfterDestroy(Host& host) {
  SP_Stream stream = host.NewStream(0);
  host.se().destroy_stream(host.device(0), stream);
  host.se().create_stream_dependency(host.device(0), stream, stream, host.status());
  return WasWithheld(host, "create_stream_dependency on a destroyed stream");
}

// The layer reports the second destroy and keeps it from the plugin, for
// which it would be a double free.
bool DoubleDestroyEvent(Host& host) {
  SP_Event event = host.NewEvent(0);
  host.se().destroy_event(host.device(0), event);
  host.se().destroy_event(host.device(0), event);
  return true;
}

// Not a misuse: an event recorded, waited for and polled, as TensorFlow's
// EventMgr polls. For plugins whose event status is the defect under test:
// the answer is taken as a plain integer, never read as an SE_EventStatus.
bool PollEvent(Host& host) {
  SP_Stream stream = host.NewStream(0);
  SP_Event event = host.NewEvent(0);
  host.se().record_event(host.device(0), stream, event, host.status());
  host.ExpectOk("record_event");
  host.se().block_host_for_event(host.device(0), event, host.status());
  host.ExpectOk("block_host_for_event");
  const auto answer = static_cast<int>(host.se().get_event_status(host.device(0), event));
  std::printf("get_event_status: %d\n", answer);
  host.se().destroy_event(host.device(0), event);
  host.se().destroy_stream(host.device(0), stream);
  return true;
}

bool UnknownStream(Host& host) {
  // A pointer no create_stream returned (the address of a local).
  int not_a_stream = 0;
  auto* made_up = reinterpret_cast<SP_Stream>(&not_a_stream);
  host.se().create_stream_dependency(host.device(0), made_up, made_up, host.status());
  return WasWithheld(host, "create_stream_dependency on an unknown stream");
}

bool StreamOnOtherDevice(Host& host) {
  if (host.device_count() < 2) HostStepFailed("stream-on-other-device", "needs two devices");
  SP_Stream stream = host.NewStream(0);
  host.se().block_host_until_done(host.device(1), stream, host.status());
  host.se().destroy_stream(host.device(0), stream);
  return true;
}

bool DestroyStreamWithPendingWork(Host& host) {
  SP_Stream stream = host.NewStream(0);
  SP_DeviceMemoryBase memory = host.Allocate(0, kSmall);
  std::array<uint8_t, kSmall> source{};
  host.se().memcpy_htod(host.device(0), stream, &memory, source.data(), source.size(),
                        host.status());
  host.ExpectOk("memcpy_htod");
  // No block_host_until_done: the cpu plugin still runs the copy while it
  // destroys the stream, so `source` stays valid long enough.
  host.se().destroy_stream(host.device(0), stream);
  host.Deallocate(0, memory.opaque);
  return true;
}

// Correct use of two streams that a plugin may hand out as one shared
// handle (NEC's VEDA does): the first holder destroys its stream while the
// second still has work on it, which the second then synchronises.
bool TwoHoldersOfOneStream(Host& host) {
  SP_Stream first = host.NewStream(0);
  SP_Stream second = host.NewStream(0);
  SP_DeviceMemoryBase memory = host.Allocate(0, kSmall);
  std::array<uint8_t, kSmall> source{};
  host.se().memcpy_htod(host.device(0), second, &memory, source.data(), source.size(),
                        host.status());
  host.ExpectOk("memcpy_htod");
  host.se().destroy_stream(host.device(0), first);
  host.se().block_host_until_done(host.device(0), second, host.status());
  host.ExpectOk("block_host_until_done");
  host.se().destroy_stream(host.device(0), second);
  host.Deallocate(0, memory.opaque);
  return true;
}

// 100 bytes asked for, 128 copied: past the end for the host, yet inside
// the cpu plugin's allocation (it rounds sizes up to 64 bytes).
bool CopyPastAllocationEnd(Host& host) {
  constexpr uint64_t kAsked = 100;
  constexpr uint64_t kCopied = 128;
  SP_DeviceMemoryBase memory = host.Allocate(0, kAsked);
  std::array<uint8_t, kCopied> source{};
  host.se().sync_memcpy_htod(host.device(0), &memory, source.data(), kCopied, host.status());
  host.Deallocate(0, memory.opaque);
  return true;
}

bool CopyToUnallocated(Host& host) {
  // Host memory the plugin never allocated, as if it were device memory.
  std::array<uint8_t, kSmall> not_device_memory{};
  std::array<uint8_t, kSmall> source{};
  source.fill(0x5a);
  SP_DeviceMemoryBase destination = DeviceRange(not_device_memory.data(), kSmall);
  host.se().sync_memcpy_htod(host.device(0), &destination, source.data(), kSmall, host.status());
  const bool untouched = std::all_of(not_device_memory.begin(), not_device_memory.end(),
                                     [](uint8_t byte) { return byte == 0; });
  if (!untouched) std::fprintf(stderr, "misuse host: the plugin wrote to the host's stack\n");
  return WasWithheld(host, "sync_memcpy_htod to unallocated memory") && untouched;
}

// The same on a stream: the withheld copy is no work on the stream, so
// destroying the stream at once is no misuse (only the copy is).
bool EnqueueToUnallocated(Host& host) {
  SP_Stream stream = host.NewStream(0);
  std::array<uint8_t, kSmall> not_device_memory{};
  std::array<uint8_t, kSmall> source{};
  SP_DeviceMemoryBase destination = DeviceRange(not_device_memory.data(), kSmall);
  host.se().memcpy_htod(host.device(0), stream, &destination, source.data(), kSmall, host.status());
  const bool withheld = WasWithheld(host, "memcpy_htod to unallocated memory");
  host.se().destroy_stream(host.device(0), stream);
  return withheld;
}

// TensorFlow 2.10's regression (tensorflow/tensorflow#57095): memcpy_htod
// handed a device allocation as its host source.
bool HtodFromDeviceMemory(Host& host) {
  SP_DeviceMemoryBase source = host.Allocate(0, kSmall);
  SP_DeviceMemoryBase destination = host.Allocate(0, kSmall);
  host.se().sync_memcpy_htod(host.device(0), &destination, source.opaque, kSmall, host.status());
  host.Deallocate(0, destination.opaque);
  host.Deallocate(0, source.opaque);
  return true;
}

bool DeviceArgInHostMemory(Host& host) {
  void* pinned = host.se().host_memory_allocate(host.device(0), kSmall);
  if (pinned == nullptr) HostStepFailed("host_memory_allocate", "null");
  std::array<uint8_t, kSmall> source{};
  SP_DeviceMemoryBase destination = DeviceRange(pinned, kSmall);
  host.se().sync_memcpy_htod(host.device(0), &destination, source.data(), kSmall, host.status());
  host.se().host_memory_deallocate(host.device(0), pinned);
  return true;
}

bool DeallocateUnknown(Host& host) {
  int never_allocated = 0;
  host.Deallocate(0, &never_allocated);
  return true;
}

bool DeallocateTwice(Host& host) {
  SP_DeviceMemoryBase memory = host.Allocate(0, kSmall);
  host.Deallocate(0, memory.opaque);
  host.Deallocate(0, memory.opaque);
  return true;
}

bool LeakAtTeardown(Host& host) {
  host.Allocate(0, kSmall);  // never deallocated: destroy_device finds it
  return true;
}

// ---- allocate-zero: allocations of 0 bytes, no misuse ----------------------

// No TensorFlow asks for 0 bytes, but other hosts do, and a plugin may
// answer null or a block. This host frees the first answer whatever it is,
// null included (deallocate must accept null), and the others only when
// they are blocks, as TensorFlow frees memory.
bool AllocateZero(Host& host) {
  const SP_StreamExecutor& se = host.se();
  const SP_Device* device = host.device(0);
  SP_DeviceMemoryBase first = DeviceRange(nullptr, 0);
  se.allocate(device, 0, /*memory_space=*/0, &first);
  host.Deallocate(0, first.opaque);
  SP_DeviceMemoryBase second = DeviceRange(nullptr, 0);
  se.allocate(device, 0, /*memory_space=*/0, &second);
  if (second.opaque != nullptr) host.Deallocate(0, second.opaque);
  void* pinned = se.host_memory_allocate(device, 0);
  if (pinned != nullptr) se.host_memory_deallocate(device, pinned);
  return true;
}

// ---- well-behaved: what TensorFlow does, with no misuse ---------------------

std::atomic<int> callbacks_run{0};

void CountingCallback(void* /*argument*/, TF_Status* status) {
  callbacks_run.fetch_add(1);
  TF_SetStatus(status, TF_OK, "");
}

// Polls `event` until it completes, as TensorFlow's EventMgr does.
bool PollUntilComplete(Host& host, SP_Event event) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < give_up) {
    const SE_EventStatus status = host.se().get_event_status(host.device(0), event);
    if (status == SE_EVENT_COMPLETE) return true;
    if (status == SE_EVENT_ERROR) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

bool Report(bool ok, const char* what) {
  if (!ok) std::fprintf(stderr, "misuse host: well-behaved: %s\n", what);
  return ok;
}

// One big region sub-allocated BFC-style (interior pointers, payload 0),
// three streams (input, compute, output) ordered by an event, a stream
// dependency and a host callback, fills, a timer around the compute work,
// synchronous copies, and everything destroyed before teardown.
bool WellBehaved(Host& host) {
  constexpr uint64_t kRegion = uint64_t{1} << 20;
  constexpr uint64_t kBlock = 4096;
  const SP_StreamExecutor& se = host.se();
  const SP_Device* device = host.device(0);
  TF_Status* status = host.status();

  SP_DeviceMemoryBase region = host.Allocate(0, kRegion);
  auto* base = static_cast<uint8_t*>(region.opaque);
  // The tensors: interior pieces of the region, as BFC hands them out.
  SP_DeviceMemoryBase input = DeviceRange(base, kBlock);
  SP_DeviceMemoryBase copied = DeviceRange(base + 2 * kBlock, kBlock);
  SP_DeviceMemoryBase filled = DeviceRange(base + 4 * kBlock, kBlock);
  SP_DeviceMemoryBase zeroed = DeviceRange(base + 6 * kBlock, kBlock);
  SP_DeviceMemoryBase sync_in = DeviceRange(base + 8 * kBlock, kBlock);
  SP_DeviceMemoryBase sync_out = DeviceRange(base + kRegion - kBlock, kBlock);

  // Pinned staging memory for the input, as TensorFlow's GPU host allocator.
  auto* staging = static_cast<uint8_t*>(se.host_memory_allocate(device, kBlock));
  if (staging == nullptr) HostStepFailed("host_memory_allocate", "null");
  for (uint64_t i = 0; i < kBlock; ++i) staging[i] = static_cast<uint8_t>(i * 7 + 3);

  SP_Stream input_stream = host.NewStream(0);
  SP_Stream compute_stream = host.NewStream(0);
  SP_Stream output_stream = host.NewStream(0);
  SP_Event input_ready = host.NewEvent(0);
  SP_Event output_done = host.NewEvent(0);
  SP_Timer timer = nullptr;
  se.create_timer(device, &timer, status);
  host.ExpectOk("create_timer");

  se.memcpy_htod(device, input_stream, &input, staging, kBlock, status);
  host.ExpectOk("memcpy_htod");
  se.record_event(device, input_stream, input_ready, status);
  host.ExpectOk("record_event");
  se.wait_for_event(device, compute_stream, input_ready, status);
  host.ExpectOk("wait_for_event");

  se.start_timer(device, compute_stream, timer, status);
  host.ExpectOk("start_timer");
  se.memcpy_dtod(device, compute_stream, &copied, &input, kBlock, status);
  host.ExpectOk("memcpy_dtod");
  se.memset32(device, compute_stream, &filled, 0xdeadbeefU, kBlock, status);
  host.ExpectOk("memset32");
  se.memset32(device, compute_stream, &zeroed, 0x5a5a5a5aU, kBlock, status);
  host.ExpectOk("memset32");
  se.mem_zero(device, compute_stream, &zeroed, kBlock / 2, status);
  host.ExpectOk("mem_zero");
  se.stop_timer(device, compute_stream, timer, status);
  host.ExpectOk("stop_timer");

  se.create_stream_dependency(device, output_stream, compute_stream, status);
  host.ExpectOk("create_stream_dependency");
  std::vector<uint8_t> copied_back(kBlock);
  std::vector<uint32_t> filled_back(kBlock / 4);
  std::vector<uint8_t> zeroed_back(kBlock);
  se.memcpy_dtoh(device, output_stream, copied_back.data(), &copied, kBlock, status);
  host.ExpectOk("memcpy_dtoh");
  se.memcpy_dtoh(device, output_stream, filled_back.data(), &filled, kBlock, status);
  host.ExpectOk("memcpy_dtoh");
  se.memcpy_dtoh(device, output_stream, zeroed_back.data(), &zeroed, kBlock, status);
  host.ExpectOk("memcpy_dtoh");
  if (!se.host_callback(device, output_stream, CountingCallback, nullptr)) {
    HostStepFailed("host_callback", "not enqueued");
  }
  se.record_event(device, output_stream, output_done, status);
  host.ExpectOk("record_event");
  bool ok = Report(PollUntilComplete(host, output_done), "output event never completed");
  for (SP_Stream stream : {input_stream, compute_stream, output_stream}) {
    se.block_host_until_done(device, stream, status);
    host.ExpectOk("block_host_until_done");
  }
  ok &= Report(callbacks_run.load() == 1, "the host callback did not run exactly once");
  ok &= Report(std::memcmp(copied_back.data(), staging, kBlock) == 0, "htod + dtod + dtoh");
  for (uint32_t word : filled_back) ok &= Report(word == 0xdeadbeefU, "memset32");
  for (uint64_t i = 0; i < kBlock; ++i) {
    ok &= Report(zeroed_back[i] == (i < kBlock / 2 ? 0 : 0x5a), "memset32 + mem_zero");
  }
  se.get_stream_status(device, compute_stream, status);
  host.ExpectOk("get_stream_status");
  (void)host.timer_fns().nanoseconds(timer);

  // Synchronous copies, as TensorFlow's constant folding and tests use.
  se.sync_memcpy_htod(device, &sync_in, staging, kBlock, status);
  host.ExpectOk("sync_memcpy_htod");
  se.sync_memcpy_dtod(device, &sync_out, &sync_in, kBlock, status);
  host.ExpectOk("sync_memcpy_dtod");
  std::vector<uint8_t> sync_back(kBlock);
  se.sync_memcpy_dtoh(device, sync_back.data(), &sync_out, kBlock, status);
  host.ExpectOk("sync_memcpy_dtoh");
  ok &= Report(std::memcmp(sync_back.data(), staging, kBlock) == 0, "synchronous round trip");
  se.synchronize_all_activity(device, status);
  host.ExpectOk("synchronize_all_activity");

  SP_AllocatorStats stats{};
  stats.struct_size = SP_ALLOCATORSTATS_STRUCT_SIZE;
  if (se.get_allocator_stats != nullptr) (void)se.get_allocator_stats(device, &stats);
  int64_t free_bytes = 0;
  int64_t total_bytes = 0;
  (void)se.device_memory_usage(device, &free_bytes, &total_bytes);

  se.destroy_timer(device, timer);
  se.destroy_event(device, output_done);
  se.destroy_event(device, input_ready);
  for (SP_Stream stream : {output_stream, compute_stream, input_stream}) {
    se.destroy_stream(device, stream);
  }
  se.host_memory_deallocate(device, staging);
  host.Deallocate(0, region.opaque);
  return ok;
}

// ---- enqueue-while-synchronising: two threads, one stream, no misuse -------

// One thread enqueues host callbacks while another synchronises the same
// stream, as a framework's compute and copy threads do. Nothing orders a
// host_callback against a block_host_until_done that begins before it has
// returned, so a correct plugin owes that synchronisation nothing; the
// layer must not say otherwise. Every callback still runs by the final
// synchronisation.
constexpr int kConcurrentCallbacks = 2000;

std::atomic<int> concurrent_callbacks_run{0};

void ConcurrentCallback(void* /*argument*/, TF_Status* status) {
  concurrent_callbacks_run.fetch_add(1);
  TF_SetStatus(status, TF_OK, "");
}

bool EnqueueWhileSynchronising(Host& host) {
  SP_Stream stream = host.NewStream(0);
  const SP_Device* device = host.device(0);
  std::atomic<bool> enqueuing{true};
  std::atomic<int> enqueued{0};
  std::thread enqueuer([&] {
    for (int i = 0; i < kConcurrentCallbacks; ++i) {
      if (host.se().host_callback(device, stream, ConcurrentCallback, nullptr)) {
        enqueued.fetch_add(1);
      }
    }
    enqueuing = false;
  });
  // A status of its own: TF_Status is not shared between threads.
  TF_Status* status = TF_NewStatus();
  while (enqueuing.load()) {
    host.se().block_host_until_done(device, stream, status);
  }
  enqueuer.join();
  host.se().block_host_until_done(device, stream, status);
  const bool synchronised = TF_GetCode(status) == TF_OK;
  TF_DeleteStatus(status);
  host.se().destroy_stream(device, stream);
  return Report(synchronised, "block_host_until_done failed") &&
         Report(enqueued.load() == kConcurrentCallbacks, "a host callback was not enqueued") &&
         Report(concurrent_callbacks_run.load() == kConcurrentCallbacks,
                "a host callback did not run by the final synchronisation");
}

// A null TF_Status where the plugin reports its result: the layer gives the
// plugin one of its own, so the stream is created, tracked, used and
// destroyed like any other (no handle.unknown after it).
bool NullStatus(Host& host) {
  SP_Stream stream = nullptr;
  host.se().create_stream(host.device(0), &stream, nullptr);
  if (stream == nullptr) HostStepFailed("create_stream", "no stream with a null status");
  host.se().create_stream_dependency(host.device(0), stream, stream, host.status());
  host.ExpectOk("create_stream_dependency");
  host.se().block_host_until_done(host.device(0), stream, host.status());
  host.ExpectOk("block_host_until_done");
  host.se().destroy_stream(host.device(0), stream);
  return true;
}

// Device 0's memory deallocated on device 1: not passed on; then freed
// where it belongs, so nothing leaks.
bool DeallocateOnOtherDevice(Host& host) {
  if (host.device_count() < 2) HostStepFailed("deallocate-on-other-device", "needs two devices");
  SP_DeviceMemoryBase memory = host.Allocate(0, kSmall);
  host.Deallocate(1, memory.opaque);
  host.Deallocate(0, memory.opaque);
  return true;
}

// An allocation on device 0 after the host destroyed it: not passed on.
bool UseDeviceAfterDestroy(Host& host) {
  host.DestroyDevice(0);
  SP_DeviceMemoryBase memory{};
  memory.struct_size = SP_DEVICE_MEMORY_BASE_STRUCT_SIZE;
  host.se().allocate(host.device(0), kSmall, /*memory_space=*/0, &memory);
  return memory.opaque == nullptr;
}

// A stream never destroyed before its device.
bool StreamOutlivesDevice(Host& host) {
  (void)host.NewStream(0);
  return true;
}

// With a plugin that nests a small allocation inside a large one
// (faulty_nested_allocation): a copy inside the large one, past the small
// one, is the host's correct use of the large one, not a range in no
// allocation.
bool CopyInsideOverlappedAllocation(Host& host) {
  constexpr uint64_t kLarge = 4096;
  SP_DeviceMemoryBase large = host.Allocate(0, kLarge);
  SP_DeviceMemoryBase small = host.Allocate(0, kSmall);
  std::array<unsigned char, kSmall> bytes{};
  bytes.fill(0x5a);
  SP_DeviceMemoryBase inside = DeviceRange(static_cast<char*>(large.opaque) + 1024, kSmall);
  host.se().sync_memcpy_htod(host.device(0), &inside, bytes.data(), kSmall, host.status());
  host.ExpectOk("sync_memcpy_htod inside the large allocation");
  host.Deallocate(0, small.opaque);
  host.Deallocate(0, large.opaque);
  return true;
}

// ---- crash-in-many-threads and terminated: how a process ends --------------

// Sixteen threads fault at the same moment, after a correct sequence of
// calls: the layer's report must still be written, naming the signal.
bool CrashInManyThreads(Host& host) {
  (void)WellBehaved(host);
  constexpr int kThreads = 16;
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) {
      }
      volatile int* nowhere = nullptr;
      *nowhere = 1;  // NOLINT(clang-analyzer-core.NullDereference): the point
    });
  }
  for (std::thread& thread : threads) thread.join();
  return true;
}

// Ends itself with SIGTERM, as a CI runner's timeout would.
bool Terminated(Host& host) {
  (void)WellBehaved(host);
  ::raise(SIGTERM);
  return true;
}

struct Scenario {
  std::string_view name;
  bool (*run)(Host& host);
};

constexpr std::array kScenarios{
    Scenario{"use-stream-after-destroy", UseStreamAfterDestroy},
    Scenario{"double-destroy-event", DoubleDestroyEvent},
    Scenario{"unknown-stream", UnknownStream},
    Scenario{"stream-on-other-device", StreamOnOtherDevice},
    Scenario{"destroy-stream-with-pending-work", DestroyStreamWithPendingWork},
    Scenario{"copy-past-allocation-end", CopyPastAllocationEnd},
    Scenario{"copy-to-unallocated", CopyToUnallocated},
    Scenario{"enqueue-to-unallocated", EnqueueToUnallocated},
    Scenario{"htod-from-device-memory", HtodFromDeviceMemory},
    Scenario{"device-arg-in-host-memory", DeviceArgInHostMemory},
    Scenario{"deallocate-unknown", DeallocateUnknown},
    Scenario{"deallocate-twice", DeallocateTwice},
    Scenario{"leak-at-teardown", LeakAtTeardown},
    Scenario{"null-status", NullStatus},
    Scenario{"deallocate-on-other-device", DeallocateOnOtherDevice},
    Scenario{"use-device-after-destroy", UseDeviceAfterDestroy},
    Scenario{"stream-outlives-device", StreamOutlivesDevice},
    Scenario{"copy-inside-overlapped-allocation", CopyInsideOverlappedAllocation},
    Scenario{"well-behaved", WellBehaved},
    Scenario{"allocate-zero", AllocateZero},
    Scenario{"poll-event", PollEvent},
    Scenario{"two-holders-of-one-stream", TwoHoldersOfOneStream},
    Scenario{"enqueue-while-synchronising", EnqueueWhileSynchronising},
    Scenario{"crash-in-many-threads", CrashInManyThreads},
    Scenario{"terminated", Terminated},
};

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string_view> arguments(argv, argv + argc);
  if (arguments.size() != 3) {
    std::fprintf(stderr, "usage: sectl_validate_misuse_host LAYER_SO SCENARIO\n");
    return kExitUsage;
  }
  const Scenario* chosen = nullptr;
  for (const Scenario& scenario : kScenarios) {
    if (scenario.name == arguments[2]) chosen = &scenario;
  }
  if (chosen == nullptr) {
    std::fprintf(stderr, "misuse host: no scenario named %s\n", argv[2]);
    return kExitUsage;
  }
  Host host{std::string(arguments[1])};
  const bool ok = chosen->run(host);
  host.TearDown();
  return ok ? 0 : kExitWrongResult;
}
