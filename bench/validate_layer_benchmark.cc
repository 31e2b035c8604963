// What libsectl_validate.so adds to each call: one plugin registered twice
// in one process, once directly and once through the layer, and the same
// calls made through each one's table. After Google Benchmark's table, a
// second one gives each call's time through the layer beside the direct
// one: the difference and the ratio (medians when repeated).
//
//   build/bin/sectl_validate_layer_benchmark --benchmark_repetitions=5
//   SECTL_VALIDATE_TRACE=/tmp/bench.trace build/bin/sectl_validate_layer_benchmark
//   export SECTL_BENCH_PLUGIN=$PWD/build/lib/sectl/plugins/sectl_cuda.so
//   build/bin/sectl_validate_layer_benchmark
//
// SECTL_BENCH_PLUGIN names the plugin (default: the bundled cpu plugin,
// found as sectl finds it, beside this program's directory; so is the
// layer). SECTL_VALIDATE_REPORT, if set, is where the layer writes its
// report (default: a temporary file, removed at exit).
//
// Every function the layer wraps is measured (issue 28: the cost of each
// kind of call, not only the cheap ones). Creations are measured paired
// with their destruction (create_stream + destroy_stream is one
// iteration), as the layer's bookkeeping is paid at both. Functions the
// plugin leaves unset are skipped with a line saying so. Among them:
//  - get_event_status on a completed event, the cheapest call there is:
//    its difference is the layer's fixed cost (the sequence number, the
//    handle lookup, the call count);
//  - a 64-byte sync_memcpy_htod adds the memory checks: the device range
//    placed in its allocation, the host pointer kept out of device memory
//    (and, with a trace, the checksum and the record);
//  - three stream-ordered calls, which on a real asynchronous device only
//    enqueue work: record_event, an 8-byte memcpy_htod (from
//    host_memory_allocate memory where the plugin has it, as TensorFlow
//    stages its copies), and host_callback with a callback that does
//    nothing. Through the layer each also updates the stream's pending-work
//    record (and host_callback wraps the callback in the layer's
//    trampoline). Every kDrainEvery calls the stream is drained with
//    block_host_until_done, with the clock stopped, in both cases alike, so
//    that a GPU's queue never fills and the time is the enqueueing alone.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "host/device.h"
#include "host/event.h"
#include "host/memory.h"
#include "host/platform.h"
#include "host/stream.h"
#include "host/timer.h"
#include "loader/plugin_library.h"

namespace sectl::host {

// One registration of a plugin file: a device, a stream, a completed event,
// 4 KiB of device memory and two host buffers (ordinary and, where the
// plugin allocates it, pinned).
class ValidateLayerBenchmarkPlugin {
 public:
  explicit ValidateLayerBenchmarkPlugin(const std::string& path) {
    auto library = loader::PluginLibrary::Open(path, {});
    if (!library) Die(library.error().message());
    library_ = std::make_unique<loader::PluginLibrary>(std::move(*library));
    auto platform = Platform::Create(*library_, journal_);
    if (!platform) Die(platform.error().message());
    platform_ = std::move(*platform);
    auto device = platform_->CreateDevice(0);
    if (!device) Die(device.error().message());
    device_ = std::move(*device);
    auto stream = device_->CreateStream();
    auto event = device_->CreateEvent();
    auto memory = device_->Allocate(4096);
    if (!stream || !event || !memory) Die("cannot create a stream, an event and memory");
    stream_ = std::move(*stream);
    event_ = std::move(*event);
    memory_ = std::move(*memory);
    if (!stream_->RecordEvent(*event_) || !event_->BlockHost()) Die("cannot complete an event");
    if (auto other = device_->CreateStream()) other_stream_ = std::move(*other);
    if (platform_->Provides(abi::PluginFunction::kCreateTimer)) {
      if (auto timer = device_->CreateTimer()) timer_ = std::move(*timer);
    }
    if (auto source = device_->Allocate(4096)) source_memory_ = std::move(*source);
    host_buffer_.assign(4096, std::byte{0x5a});
    if (platform_->Provides(abi::PluginFunction::kHostMemoryAllocate)) {
      if (auto pinned = device_->AllocateHost(HostMemoryKind::kPinned, 4096)) {
        pinned_ = std::move(*pinned);
      }
    }
  }

  const SP_StreamExecutor& fns() const { return platform_->stream_executor({}); }
  const SP_PlatformFns& platform_fns() const { return platform_->platform_fns({}); }
  const SP_DeviceFns& device_fns() const { return platform_->device_fns({}); }
  const SP_TimerFns& timer_fns() const { return platform_->timer_fns({}); }
  const SP_Platform* platform() const { return platform_->plugin_platform(); }
  // A second stream (null when the plugin could not make one), a timer
  // (null where the plugin has none) and a second allocation.
  SP_Stream other_stream() const { return other_stream_ ? other_stream_->handle() : nullptr; }
  SP_Timer timer() const { return timer_ ? timer_->handle() : nullptr; }
  SP_DeviceMemoryBase source_memory() const { return source_memory_.base(); }
  void* host_destination() { return destination_buffer_.data(); }
  const SP_Device* device() const { return device_->plugin_device(); }
  SP_Stream stream() const { return stream_->handle(); }
  SP_Event event() const { return event_->handle(); }
  SP_DeviceMemoryBase memory() const { return memory_.base(); }
  const void* host_buffer() const { return host_buffer_.data(); }
  // Where a stream-ordered copy comes from: pinned memory if there is some.
  const void* copy_source() const {
    return pinned_.data() != nullptr ? pinned_.data() : host_buffer_.data();
  }

  // Waits for the stream's work; exits if the plugin cannot.
  void Drain() const {
    if (!stream_->BlockHostUntilDone()) Die("block_host_until_done failed");
  }

  [[noreturn]] static void Die(const std::string& why) {
    std::fprintf(stderr, "validate_layer_benchmark: %s\n", why.c_str());
    std::exit(2);
  }

 private:
  Journal journal_;
  std::unique_ptr<loader::PluginLibrary> library_;
  std::unique_ptr<Platform> platform_;
  std::unique_ptr<Device> device_;
  std::unique_ptr<Stream> stream_;
  std::unique_ptr<Event> event_;
  std::unique_ptr<Stream> other_stream_;
  std::unique_ptr<Timer> timer_;
  DeviceMemory memory_;
  DeviceMemory source_memory_;
  HostMemory pinned_;
  std::vector<std::byte> host_buffer_;
  std::vector<std::byte> destination_buffer_ = std::vector<std::byte>(4096);
};

}  // namespace sectl::host

namespace sectl {
namespace {

using host::ValidateLayerBenchmarkPlugin;

// Stream-ordered calls between two drains of the stream.
constexpr int64_t kDrainEvery = 256;

// `relative` (from the build or install tree's bin directory) as a path
// beside this program's own directory.
std::string BesideThisProgram(const std::string& relative) {
  std::error_code error;
  const auto program = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) ValidateLayerBenchmarkPlugin::Die("cannot locate this program: " + error.message());
  return (program.parent_path() / relative).lexically_normal().string();
}

// The plugin measured: SECTL_BENCH_PLUGIN, or the bundled cpu plugin.
const std::string& PluginPath() {
  static const std::string path = [] {
    const char* chosen = std::getenv("SECTL_BENCH_PLUGIN");
    if (chosen != nullptr && *chosen != '\0') return std::string(chosen);
    return BesideThisProgram(SECTL_PLUGIN_DIRECTORY_FROM_BINARY "/sectl_cpu.so");
  }();
  return path;
}

ValidateLayerBenchmarkPlugin& Direct() {
  static ValidateLayerBenchmarkPlugin plugin(PluginPath());
  return plugin;
}

// The layer, told to wrap the same plugin. Its report goes where
// SECTL_VALIDATE_REPORT says, or to a file of this process's in the
// temporary directory, removed at exit (the layer writes only regular
// files, so not /dev/null).
std::string ConfiguredLayer() {
  ::setenv("SECTL_VALIDATE_PLUGIN", PluginPath().c_str(), 1);
  if (std::getenv("SECTL_VALIDATE_REPORT") == nullptr) {
    static const std::string report =
        (std::filesystem::temp_directory_path() /
         ("sectl_validate_layer_benchmark-" + std::to_string(::getpid()) + ".json"))
            .string();
    ::setenv("SECTL_VALIDATE_REPORT", report.c_str(), 1);
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove(report, ignored);
    });
  }
  return BesideThisProgram(SECTL_LAYER_FROM_BINARY);
}

ValidateLayerBenchmarkPlugin& ThroughLayer() {
  static ValidateLayerBenchmarkPlugin plugin(ConfiguredLayer());
  return plugin;
}

// Whether the plugin filled in `function`; if not, the benchmark says so.
template <typename Function>
bool Provided(benchmark::State& state, Function* function, const char* name) {
  if (function != nullptr) return true;
  state.SkipWithError((std::string("the plugin has no ") + name).c_str());
  return false;
}

void GetEventStatus(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* get_event_status = plugin.fns().get_event_status;
  if (!Provided(state, get_event_status, "get_event_status")) return;
  benchmark::DoNotOptimize(get_event_status);
  for (auto _ : state) {
    benchmark::DoNotOptimize(get_event_status(plugin.device(), plugin.event()));
  }
}

void SyncMemcpyHtoD64(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* sync_memcpy_htod = plugin.fns().sync_memcpy_htod;
  if (!Provided(state, sync_memcpy_htod, "sync_memcpy_htod")) return;
  SP_DeviceMemoryBase destination = plugin.memory();
  TF_Status* status = TF_NewStatus();
  for (auto _ : state) {
    sync_memcpy_htod(plugin.device(), &destination, plugin.host_buffer(), 64, status);
    benchmark::ClobberMemory();
  }
  TF_DeleteStatus(status);
}

// Runs `enqueue` once per iteration, draining the stream with the clock
// stopped every kDrainEvery iterations and at the end.
template <typename Enqueue>
void StreamOrdered(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin, Enqueue enqueue) {
  plugin.Drain();
  int64_t since_drain = 0;
  for (auto _ : state) {
    enqueue();
    if (++since_drain == kDrainEvery) {
      state.PauseTiming();
      plugin.Drain();
      state.ResumeTiming();
      since_drain = 0;
    }
  }
  plugin.Drain();
}

void RecordEvent(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* record_event = plugin.fns().record_event;
  if (!Provided(state, record_event, "record_event")) return;
  TF_Status* status = TF_NewStatus();
  StreamOrdered(state, plugin,
                [&] { record_event(plugin.device(), plugin.stream(), plugin.event(), status); });
  if (TF_GetCode(status) != TF_OK) state.SkipWithError(TF_Message(status));
  TF_DeleteStatus(status);
}

void MemcpyHtoD8(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* memcpy_htod = plugin.fns().memcpy_htod;
  if (!Provided(state, memcpy_htod, "memcpy_htod")) return;
  SP_DeviceMemoryBase destination = plugin.memory();
  TF_Status* status = TF_NewStatus();
  StreamOrdered(state, plugin, [&] {
    memcpy_htod(plugin.device(), plugin.stream(), &destination, plugin.copy_source(), 8, status);
  });
  if (TF_GetCode(status) != TF_OK) state.SkipWithError(TF_Message(status));
  TF_DeleteStatus(status);
}

void DoNothing(void* /*argument*/, TF_Status* /*status*/) {}

void HostCallback(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* host_callback = plugin.fns().host_callback;
  if (!Provided(state, host_callback, "host_callback")) return;
  bool accepted = true;
  StreamOrdered(state, plugin, [&] {
    accepted = host_callback(plugin.device(), plugin.stream(), DoNothing, nullptr) && accepted;
  });
  if (!accepted) state.SkipWithError("host_callback returned false");
}

// ---- the rest of the table: every other function the layer wraps --------

// One call per iteration of a function with no stream-ordered work.
template <typename Call>
void Immediate(benchmark::State& state, const void* function, const char* name, Call call) {
  if (!Provided(state, function, name)) return;
  for (auto _ : state) call();
}

// A TF_Status for the length of one benchmark; its code after the loop
// makes the benchmark an error where the plugin refused the calls.
class BenchmarkStatus {
 public:
  BenchmarkStatus() = default;
  ~BenchmarkStatus() { TF_DeleteStatus(status_); }
  BenchmarkStatus(const BenchmarkStatus&) = delete;
  BenchmarkStatus& operator=(const BenchmarkStatus&) = delete;
  TF_Status* get() const { return status_; }
  void ReportTo(benchmark::State& state) const {
    if (TF_GetCode(status_) != TF_OK) state.SkipWithError(TF_Message(status_));
  }

 private:
  TF_Status* status_ = TF_NewStatus();
};

void GetDeviceCount(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  BenchmarkStatus status;
  int count = 0;
  Immediate(state, reinterpret_cast<const void*>(plugin.platform_fns().get_device_count),
            "get_device_count", [&] {
              plugin.platform_fns().get_device_count(plugin.platform(), &count, status.get());
              benchmark::DoNotOptimize(count);
            });
  status.ReportTo(state);
}

void GetNumaNode(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* function = plugin.device_fns().get_numa_node;
  Immediate(state, reinterpret_cast<const void*>(function), "get_numa_node",
            [&] { benchmark::DoNotOptimize(function(plugin.device())); });
}

void GetMemoryBandwidth(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* function = plugin.device_fns().get_memory_bandwidth;
  Immediate(state, reinterpret_cast<const void*>(function), "get_memory_bandwidth",
            [&] { benchmark::DoNotOptimize(function(plugin.device())); });
}

void GetGflops(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* function = plugin.device_fns().get_gflops;
  Immediate(state, reinterpret_cast<const void*>(function), "get_gflops",
            [&] { benchmark::DoNotOptimize(function(plugin.device())); });
}

void GetAllocatorStats(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* function = plugin.fns().get_allocator_stats;
  SP_AllocatorStats stats{SP_ALLOCATORSTATS_STRUCT_SIZE};
  Immediate(state, reinterpret_cast<const void*>(function), "get_allocator_stats",
            [&] { benchmark::DoNotOptimize(function(plugin.device(), &stats)); });
}

void DeviceMemoryUsage(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* function = plugin.fns().device_memory_usage;
  int64_t free = 0;
  int64_t total = 0;
  Immediate(state, reinterpret_cast<const void*>(function), "device_memory_usage",
            [&] { benchmark::DoNotOptimize(function(plugin.device(), &free, &total)); });
}

void AllocateAndDeallocate(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* allocate = plugin.fns().allocate;
  auto* deallocate = plugin.fns().deallocate;
  if (!Provided(state, deallocate, "deallocate")) return;
  Immediate(state, reinterpret_cast<const void*>(allocate), "allocate", [&] {
    SP_DeviceMemoryBase memory{SP_DEVICE_MEMORY_BASE_STRUCT_SIZE};
    allocate(plugin.device(), 256, 0, &memory);
    deallocate(plugin.device(), &memory);
  });
}

void HostMemoryAllocateAndDeallocate(benchmark::State& state,
                                     ValidateLayerBenchmarkPlugin& plugin) {
  auto* allocate = plugin.fns().host_memory_allocate;
  auto* deallocate = plugin.fns().host_memory_deallocate;
  if (!Provided(state, deallocate, "host_memory_deallocate")) return;
  Immediate(state, reinterpret_cast<const void*>(allocate), "host_memory_allocate",
            [&] { deallocate(plugin.device(), allocate(plugin.device(), 256)); });
}

void UnifiedMemoryAllocateAndDeallocate(benchmark::State& state,
                                        ValidateLayerBenchmarkPlugin& plugin) {
  auto* allocate = plugin.fns().unified_memory_allocate;
  auto* deallocate = plugin.fns().unified_memory_deallocate;
  if (!Provided(state, deallocate, "unified_memory_deallocate")) return;
  Immediate(state, reinterpret_cast<const void*>(allocate), "unified_memory_allocate",
            [&] { deallocate(plugin.device(), allocate(plugin.device(), 256)); });
}

void CreateAndDestroyStream(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* create = plugin.fns().create_stream;
  auto* destroy = plugin.fns().destroy_stream;
  if (!Provided(state, destroy, "destroy_stream")) return;
  BenchmarkStatus status;
  Immediate(state, reinterpret_cast<const void*>(create), "create_stream", [&] {
    SP_Stream stream = nullptr;
    create(plugin.device(), &stream, status.get());
    destroy(plugin.device(), stream);
  });
  status.ReportTo(state);
}

void CreateAndDestroyEvent(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* create = plugin.fns().create_event;
  auto* destroy = plugin.fns().destroy_event;
  if (!Provided(state, destroy, "destroy_event")) return;
  BenchmarkStatus status;
  Immediate(state, reinterpret_cast<const void*>(create), "create_event", [&] {
    SP_Event event = nullptr;
    create(plugin.device(), &event, status.get());
    destroy(plugin.device(), event);
  });
  status.ReportTo(state);
}

void CreateAndDestroyTimer(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* create = plugin.fns().create_timer;
  auto* destroy = plugin.fns().destroy_timer;
  if (!Provided(state, destroy, "destroy_timer")) return;
  BenchmarkStatus status;
  Immediate(state, reinterpret_cast<const void*>(create), "create_timer", [&] {
    SP_Timer timer = nullptr;
    create(plugin.device(), &timer, status.get());
    destroy(plugin.device(), timer);
  });
  status.ReportTo(state);
}

void GetStreamStatus(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* function = plugin.fns().get_stream_status;
  BenchmarkStatus status;
  Immediate(state, reinterpret_cast<const void*>(function), "get_stream_status",
            [&] { function(plugin.device(), plugin.stream(), status.get()); });
  status.ReportTo(state);
}

void BlockHostForEvent(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* function = plugin.fns().block_host_for_event;
  BenchmarkStatus status;
  Immediate(state, reinterpret_cast<const void*>(function), "block_host_for_event",
            [&] { function(plugin.device(), plugin.event(), status.get()); });
  status.ReportTo(state);
}

void BlockHostUntilDone(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* function = plugin.fns().block_host_until_done;
  BenchmarkStatus status;
  plugin.Drain();
  Immediate(state, reinterpret_cast<const void*>(function), "block_host_until_done",
            [&] { function(plugin.device(), plugin.stream(), status.get()); });
  status.ReportTo(state);
}

void SynchronizeAllActivity(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* function = plugin.fns().synchronize_all_activity;
  BenchmarkStatus status;
  plugin.Drain();
  Immediate(state, reinterpret_cast<const void*>(function), "synchronize_all_activity",
            [&] { function(plugin.device(), status.get()); });
  status.ReportTo(state);
}

void SyncMemcpyDtoH64(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* function = plugin.fns().sync_memcpy_dtoh;
  const SP_DeviceMemoryBase source = plugin.memory();
  BenchmarkStatus status;
  Immediate(state, reinterpret_cast<const void*>(function), "sync_memcpy_dtoh", [&] {
    function(plugin.device(), plugin.host_destination(), &source, 64, status.get());
    benchmark::ClobberMemory();
  });
  status.ReportTo(state);
}

void SyncMemcpyDtoD64(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* function = plugin.fns().sync_memcpy_dtod;
  SP_DeviceMemoryBase destination = plugin.memory();
  const SP_DeviceMemoryBase source = plugin.source_memory();
  BenchmarkStatus status;
  Immediate(state, reinterpret_cast<const void*>(function), "sync_memcpy_dtod",
            [&] { function(plugin.device(), &destination, &source, 64, status.get()); });
  status.ReportTo(state);
}

void Nanoseconds(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* function = plugin.timer_fns().nanoseconds;
  if (plugin.timer() == nullptr) {
    state.SkipWithError("the plugin has no timers");
    return;
  }
  Immediate(state, reinterpret_cast<const void*>(function), "nanoseconds",
            [&] { benchmark::DoNotOptimize(function(plugin.timer())); });
}

// Stream-ordered calls besides the three above.
template <typename Enqueue>
void StreamOrderedCall(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin,
                       const void* function, const char* name, Enqueue enqueue) {
  if (!Provided(state, function, name)) return;
  BenchmarkStatus status;
  StreamOrdered(state, plugin, [&] { enqueue(status.get()); });
  status.ReportTo(state);
}

void MemcpyDtoH8(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* function = plugin.fns().memcpy_dtoh;
  const SP_DeviceMemoryBase source = plugin.memory();
  StreamOrderedCall(state, plugin, reinterpret_cast<const void*>(function), "memcpy_dtoh",
                    [&](TF_Status* status) {
                      function(plugin.device(), plugin.stream(), plugin.host_destination(), &source,
                               8, status);
                    });
}

void MemcpyDtoD8(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* function = plugin.fns().memcpy_dtod;
  SP_DeviceMemoryBase destination = plugin.memory();
  const SP_DeviceMemoryBase source = plugin.source_memory();
  StreamOrderedCall(state, plugin, reinterpret_cast<const void*>(function), "memcpy_dtod",
                    [&](TF_Status* status) {
                      function(plugin.device(), plugin.stream(), &destination, &source, 8, status);
                    });
}

void MemZero8(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* function = plugin.fns().mem_zero;
  SP_DeviceMemoryBase location = plugin.memory();
  StreamOrderedCall(
      state, plugin, reinterpret_cast<const void*>(function), "mem_zero",
      [&](TF_Status* status) { function(plugin.device(), plugin.stream(), &location, 8, status); });
}

void Memset8(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* function = plugin.fns().memset;
  SP_DeviceMemoryBase location = plugin.memory();
  StreamOrderedCall(state, plugin, reinterpret_cast<const void*>(function), "memset",
                    [&](TF_Status* status) {
                      function(plugin.device(), plugin.stream(), &location, 0x5a, 8, status);
                    });
}

void Memset32x8(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* function = plugin.fns().memset32;
  SP_DeviceMemoryBase location = plugin.memory();
  StreamOrderedCall(state, plugin, reinterpret_cast<const void*>(function), "memset32",
                    [&](TF_Status* status) {
                      function(plugin.device(), plugin.stream(), &location, 0x5a5a5a5a, 8, status);
                    });
}

void WaitForEvent(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* function = plugin.fns().wait_for_event;
  StreamOrderedCall(state, plugin, reinterpret_cast<const void*>(function), "wait_for_event",
                    [&](TF_Status* status) {
                      function(plugin.device(), plugin.stream(), plugin.event(), status);
                    });
}

void CreateStreamDependency(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* function = plugin.fns().create_stream_dependency;
  if (plugin.other_stream() == nullptr) {
    state.SkipWithError("the plugin gave no second stream");
    return;
  }
  StreamOrderedCall(state, plugin, reinterpret_cast<const void*>(function),
                    "create_stream_dependency", [&](TF_Status* status) {
                      function(plugin.device(), plugin.stream(), plugin.other_stream(), status);
                    });
}

void StartAndStopTimer(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* start = plugin.fns().start_timer;
  auto* stop = plugin.fns().stop_timer;
  if (plugin.timer() == nullptr || !Provided(state, stop, "stop_timer")) {
    if (plugin.timer() == nullptr) state.SkipWithError("the plugin has no timers");
    return;
  }
  StreamOrderedCall(state, plugin, reinterpret_cast<const void*>(start), "start_timer",
                    [&](TF_Status* status) {
                      start(plugin.device(), plugin.stream(), plugin.timer(), status);
                      stop(plugin.device(), plugin.stream(), plugin.timer(), status);
                    });
}

// Each call, direct and through the layer, under the names the ratio table
// pairs them by.
#define SECTL_LAYER_BENCHMARK(call)                                                 \
  void call##Direct(benchmark::State& state) { call(state, Direct()); }             \
  void call##ThroughLayer(benchmark::State& state) { call(state, ThroughLayer()); } \
  BENCHMARK(call##Direct);                                                          \
  BENCHMARK(call##ThroughLayer)

SECTL_LAYER_BENCHMARK(GetEventStatus);
SECTL_LAYER_BENCHMARK(SyncMemcpyHtoD64);
SECTL_LAYER_BENCHMARK(RecordEvent);
SECTL_LAYER_BENCHMARK(MemcpyHtoD8);
SECTL_LAYER_BENCHMARK(HostCallback);
SECTL_LAYER_BENCHMARK(MemcpyDtoH8);
SECTL_LAYER_BENCHMARK(MemcpyDtoD8);
SECTL_LAYER_BENCHMARK(MemZero8);
SECTL_LAYER_BENCHMARK(Memset8);
SECTL_LAYER_BENCHMARK(Memset32x8);
SECTL_LAYER_BENCHMARK(WaitForEvent);
SECTL_LAYER_BENCHMARK(CreateStreamDependency);
SECTL_LAYER_BENCHMARK(StartAndStopTimer);
SECTL_LAYER_BENCHMARK(SyncMemcpyDtoH64);
SECTL_LAYER_BENCHMARK(SyncMemcpyDtoD64);
SECTL_LAYER_BENCHMARK(GetStreamStatus);
SECTL_LAYER_BENCHMARK(BlockHostForEvent);
SECTL_LAYER_BENCHMARK(BlockHostUntilDone);
SECTL_LAYER_BENCHMARK(SynchronizeAllActivity);
SECTL_LAYER_BENCHMARK(GetDeviceCount);
SECTL_LAYER_BENCHMARK(GetNumaNode);
SECTL_LAYER_BENCHMARK(GetMemoryBandwidth);
SECTL_LAYER_BENCHMARK(GetGflops);
SECTL_LAYER_BENCHMARK(GetAllocatorStats);
SECTL_LAYER_BENCHMARK(DeviceMemoryUsage);
SECTL_LAYER_BENCHMARK(Nanoseconds);
SECTL_LAYER_BENCHMARK(AllocateAndDeallocate);
SECTL_LAYER_BENCHMARK(HostMemoryAllocateAndDeallocate);
SECTL_LAYER_BENCHMARK(UnifiedMemoryAllocateAndDeallocate);
SECTL_LAYER_BENCHMARK(CreateAndDestroyStream);
SECTL_LAYER_BENCHMARK(CreateAndDestroyEvent);
SECTL_LAYER_BENCHMARK(CreateAndDestroyTimer);

constexpr std::string_view kDirectSuffix = "Direct";
constexpr std::string_view kLayerSuffix = "ThroughLayer";

// Google Benchmark's console table, then each call through the layer beside
// the direct call: real time per call, the median where repeated.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  using ConsoleReporter::ConsoleReporter;

  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred) continue;
      const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      if (run.run_type == Run::RT_Aggregate && !median) continue;
      std::string name = run.run_name.function_name;
      Times* times = nullptr;
      for (const auto& [suffix, is_layer] :
           {std::pair{kLayerSuffix, true}, std::pair{kDirectSuffix, false}}) {
        if (name.ends_with(suffix)) {
          name.resize(name.size() - suffix.size());
          times = &times_[name];
          Sample& sample = is_layer ? times->layer : times->direct;
          // A median outranks the single runs it summarises.
          if (median || !sample.from_median) {
            sample = {ToNanoseconds(run.GetAdjustedRealTime(), run.time_unit), median};
          }
          break;
        }
      }
      if (times == nullptr) continue;
      if (std::find(order_.begin(), order_.end(), name) == order_.end()) order_.push_back(name);
    }
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    std::FILE* out = stdout;
    std::fprintf(out, "\nthrough the layer (%s), real time per call:\n", PluginPath().c_str());
    std::fprintf(out, "%-36s %12s %12s %12s %8s\n", "call", "direct", "layer", "added", "ratio");
    for (const std::string& name : order_) {
      const Times& times = times_.at(name);
      if (!times.direct.ns || !times.layer.ns) continue;
      const double direct = *times.direct.ns;
      const double layer = *times.layer.ns;
      std::fprintf(out, "%-36s %9.1f ns %9.1f ns %+9.1f ns %7.2fx\n", name.c_str(), direct, layer,
                   layer - direct, direct > 0 ? layer / direct : 0.0);
    }
    std::fflush(out);
  }

 private:
  struct Sample {
    std::optional<double> ns;
    bool from_median = false;
  };
  struct Times {
    Sample direct;
    Sample layer;
  };

  static double ToNanoseconds(double value, benchmark::TimeUnit unit) {
    switch (unit) {
      case benchmark::kNanosecond:
        return value;
      case benchmark::kMicrosecond:
        return value * 1e3;
      case benchmark::kMillisecond:
        return value * 1e6;
      case benchmark::kSecond:
        return value * 1e9;
    }
    return value;
  }

  std::map<std::string, Times> times_;
  std::vector<std::string> order_;
};

}  // namespace
}  // namespace sectl

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  const bool color = ::isatty(STDOUT_FILENO) != 0;
  sectl::RatioReporter reporter(color ? benchmark::ConsoleReporter::OO_ColorTabular
                                      : benchmark::ConsoleReporter::OO_Tabular);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
