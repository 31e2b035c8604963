// The cost of sectl's dispatch point. Every call sectl makes into a plugin
// goes through host::Dispatcher, which journals it; this measures that
// against calling the plugin's function pointer directly, on the bundled
// cpu plugin's cheapest call (get_event_status on a completed event).
//
//   build/bin/sectl_dispatch_benchmark --benchmark_repetitions=5
//
// Three variants: the direct call, the dispatcher with an untimed journal
// (what `sectl bench` uses) and with a timed one (what conform and probe use).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "host/device.h"
#include "host/event.h"
#include "host/platform.h"
#include "host/stream.h"
#include "loader/plugin_library.h"

namespace sectl::host {

// The cpu plugin registered once, with one device and one completed event.
// Named in host::TableAccess: the direct call below needs the raw table.
class DispatchBenchmarkPlugin {
 public:
  static DispatchBenchmarkPlugin& Get() {
    static DispatchBenchmarkPlugin plugin;
    return plugin;
  }

  host::Journal& journal() { return journal_; }
  const SP_StreamExecutor& fns() const { return platform_->stream_executor({}); }
  const SP_Device* device() const { return device_->plugin_device(); }
  SP_Event event() const { return event_->handle(); }

 private:
  DispatchBenchmarkPlugin() {
    auto library = loader::PluginLibrary::Open(SECTL_PLUGIN_DIR "/sectl_cpu.so", {});
    if (!library) Die(library.error().message());
    library_ = std::make_unique<loader::PluginLibrary>(std::move(*library));
    auto platform = host::Platform::Create(*library_, journal_);
    if (!platform) Die(platform.error().message());
    platform_ = std::move(*platform);
    auto device = platform_->CreateDevice(0);
    if (!device) Die(device.error().message());
    device_ = std::move(*device);
    auto stream = device_->CreateStream();
    auto event = device_->CreateEvent();
    if (!stream || !event) Die("cannot create a stream and an event");
    stream_ = std::move(*stream);
    event_ = std::move(*event);
    if (!stream_->RecordEvent(*event_) || !event_->BlockHost()) Die("cannot complete an event");
  }

  [[noreturn]] static void Die(const std::string& why) {
    std::fprintf(stderr, "dispatch_benchmark: %s\n", why.c_str());
    std::exit(2);
  }

  host::Journal journal_;
  std::unique_ptr<loader::PluginLibrary> library_;
  std::unique_ptr<host::Platform> platform_;
  std::unique_ptr<host::Device> device_;
  std::unique_ptr<host::Stream> stream_;
  std::unique_ptr<host::Event> event_;
};

}  // namespace sectl::host

namespace sectl {
namespace {

void DirectCall(benchmark::State& state) {
  auto& plugin = host::DispatchBenchmarkPlugin::Get();
  auto* get_event_status = plugin.fns().get_event_status;
  // The pointer is read from memory each time, as the dispatcher must.
  benchmark::DoNotOptimize(get_event_status);
  for (auto _ : state) {
    benchmark::DoNotOptimize(get_event_status(plugin.device(), plugin.event()));
  }
}

void DispatchedCall(benchmark::State& state, bool timed) {
  auto& plugin = host::DispatchBenchmarkPlugin::Get();
  plugin.journal().set_timed(timed);
  const host::Dispatcher dispatcher(plugin.journal());
  for (auto _ : state) {
    benchmark::DoNotOptimize(dispatcher.Call<&SP_StreamExecutor::get_event_status>(
        plugin.fns(), plugin.device(), plugin.event()));
  }
  plugin.journal().set_timed(true);
}

void DispatchedUntimed(benchmark::State& state) { DispatchedCall(state, false); }
void DispatchedTimed(benchmark::State& state) { DispatchedCall(state, true); }

BENCHMARK(DirectCall);
BENCHMARK(DispatchedUntimed);
BENCHMARK(DispatchedTimed);

}  // namespace
}  // namespace sectl

BENCHMARK_MAIN();
