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
// report (default: nowhere).
//
// The calls:
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
    host_buffer_.assign(4096, std::byte{0x5a});
    if (platform_->Provides(abi::PluginFunction::kHostMemoryAllocate)) {
      if (auto pinned = device_->AllocateHost(HostMemoryKind::kPinned, 4096)) {
        pinned_ = std::move(*pinned);
      }
    }
  }

  const SP_StreamExecutor& fns() const { return platform_->stream_executor({}); }
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
  DeviceMemory memory_;
  HostMemory pinned_;
  std::vector<std::byte> host_buffer_;
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

// The layer, told to wrap the same plugin (its report is not wanted unless
// SECTL_VALIDATE_REPORT says where).
std::string ConfiguredLayer() {
  ::setenv("SECTL_VALIDATE_PLUGIN", PluginPath().c_str(), 1);
  ::setenv("SECTL_VALIDATE_REPORT", "/dev/null", 0);
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
    std::fprintf(out, "%-18s %12s %12s %12s %8s\n", "call", "direct", "layer", "added", "ratio");
    for (const std::string& name : order_) {
      const Times& times = times_.at(name);
      if (!times.direct.ns || !times.layer.ns) continue;
      const double direct = *times.direct.ns;
      const double layer = *times.layer.ns;
      std::fprintf(out, "%-18s %9.1f ns %9.1f ns %+9.1f ns %7.2fx\n", name.c_str(), direct, layer,
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
