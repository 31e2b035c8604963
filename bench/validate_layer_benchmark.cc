// What libsectl_validate.so adds to each call: the bundled cpu plugin
// registered twice in one process, once directly and once through the
// layer, and the same calls made through each one's table.
//
//   build/bin/sectl_validate_layer_benchmark --benchmark_repetitions=5
//   SECTL_VALIDATE_TRACE=/tmp/bench.trace build/bin/sectl_validate_layer_benchmark
//
// get_event_status on a completed event is the cheapest call there is: its
// difference is the layer's fixed cost (the sequence number, the handle
// lookup, the call count). A 64-byte sync_memcpy_htod adds the memory
// checks: the device range placed in its allocation, the host pointer kept
// out of device memory (and, with a trace, the checksum and the record).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "host/device.h"
#include "host/event.h"
#include "host/memory.h"
#include "host/platform.h"
#include "host/stream.h"
#include "loader/plugin_library.h"

namespace sectl::host {

// One registration of a plugin file: a device, a completed event, 4 KiB of
// device memory and a host buffer.
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
  }

  const SP_StreamExecutor& fns() const { return platform_->stream_executor({}); }
  const SP_Device* device() const { return device_->plugin_device(); }
  SP_Event event() const { return event_->handle(); }
  SP_DeviceMemoryBase memory() const { return memory_.base(); }
  const void* host_buffer() const { return host_buffer_.data(); }

 private:
  [[noreturn]] static void Die(const std::string& why) {
    std::fprintf(stderr, "validate_layer_benchmark: %s\n", why.c_str());
    std::exit(2);
  }

  Journal journal_;
  std::unique_ptr<loader::PluginLibrary> library_;
  std::unique_ptr<Platform> platform_;
  std::unique_ptr<Device> device_;
  std::unique_ptr<Stream> stream_;
  std::unique_ptr<Event> event_;
  DeviceMemory memory_;
  std::vector<std::byte> host_buffer_;
};

}  // namespace sectl::host

namespace sectl {
namespace {

using host::ValidateLayerBenchmarkPlugin;

ValidateLayerBenchmarkPlugin& Direct() {
  static ValidateLayerBenchmarkPlugin plugin(SECTL_PLUGIN_DIR "/sectl_cpu.so");
  return plugin;
}

// The layer, told to wrap the same cpu plugin (its report is not wanted).
std::string ConfiguredLayer() {
  ::setenv("SECTL_VALIDATE_PLUGIN", SECTL_PLUGIN_DIR "/sectl_cpu.so", 1);
  ::setenv("SECTL_VALIDATE_REPORT", "/dev/null", 0);
  return SECTL_VALIDATE_LAYER;
}

ValidateLayerBenchmarkPlugin& ThroughLayer() {
  static ValidateLayerBenchmarkPlugin plugin(ConfiguredLayer());
  return plugin;
}

void GetEventStatus(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* get_event_status = plugin.fns().get_event_status;
  benchmark::DoNotOptimize(get_event_status);
  for (auto _ : state) {
    benchmark::DoNotOptimize(get_event_status(plugin.device(), plugin.event()));
  }
}

void SyncMemcpyHtoD64(benchmark::State& state, ValidateLayerBenchmarkPlugin& plugin) {
  auto* sync_memcpy_htod = plugin.fns().sync_memcpy_htod;
  SP_DeviceMemoryBase destination = plugin.memory();
  TF_Status* status = TF_NewStatus();
  for (auto _ : state) {
    sync_memcpy_htod(plugin.device(), &destination, plugin.host_buffer(), 64, status);
    benchmark::ClobberMemory();
  }
  TF_DeleteStatus(status);
}

void GetEventStatusDirect(benchmark::State& state) { GetEventStatus(state, Direct()); }
void GetEventStatusThroughLayer(benchmark::State& state) { GetEventStatus(state, ThroughLayer()); }
void SyncMemcpyHtoD64Direct(benchmark::State& state) { SyncMemcpyHtoD64(state, Direct()); }
void SyncMemcpyHtoD64ThroughLayer(benchmark::State& state) {
  SyncMemcpyHtoD64(state, ThroughLayer());
}

BENCHMARK(GetEventStatusDirect);
BENCHMARK(GetEventStatusThroughLayer);
BENCHMARK(SyncMemcpyHtoD64Direct);
BENCHMARK(SyncMemcpyHtoD64ThroughLayer);

}  // namespace
}  // namespace sectl

BENCHMARK_MAIN();
