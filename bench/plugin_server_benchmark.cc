// What a call through the plugin server costs (docs/plugin-server.md): a
// real sectl-plugin-server running the bundled cpu plugin, asked by this
// process as a judge asks it. Unlike sectl_plugin_transport_benchmark,
// which times bare transports, this is the whole path: a lane leased, a
// fixed-size request of 4.2 KB and its reply over SOCK_SEQPACKET, the
// server's TF_Status made and read, the plugin's function called.
//
//   build/bin/sectl_plugin_server_benchmark --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true   (one command line)
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "host/device.h"
#include "host/journal.h"
#include "host/platform.h"
#include "host/stream.h"
#include "loader/plugin_library.h"
#include "remote/plugin_server.h"
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

namespace {

using sectl::abi::PluginFunction;
using sectl::remote::PluginServer;

uint64_t Word(const void* pointer) { return reinterpret_cast<uintptr_t>(pointer); }

// The cpu plugin registered in a server, shared by every case and thread.
struct Registered {
  std::unique_ptr<PluginServer> server;
  SE_PlatformRegistrationParams* params = nullptr;
  int* count = nullptr;
  uint64_t init = 0;
};

Registered* Register() {
  static Registered registered = [] {
    Registered made;
    auto server = PluginServer::Start(SECTL_PLUGIN_SERVER, size_t{1} << 20);
    if (!server) return made;
    made.server = std::move(*server);
    auto init = made.server->Load(std::string(SECTL_PLUGIN_DIR) + "/sectl_cpu.so");
    if (!init || *init == 0) return made;
    made.init = *init;
    auto& arena = made.server->arena();
    made.params = static_cast<SE_PlatformRegistrationParams*>(
        arena.Allocate(sizeof(SE_PlatformRegistrationParams)));
    made.params->struct_size = SE_PLATFORM_REGISTRATION_PARAMS_STRUCT_SIZE;
    made.params->major_version = SE_MAJOR;
    made.params->minor_version = SE_MINOR;
    made.params->patch_version = SE_PATCH;
    made.params->platform = static_cast<SP_Platform*>(arena.Allocate(sizeof(SP_Platform)));
    made.params->platform->struct_size = SP_PLATFORM_STRUCT_SIZE;
    made.params->platform_fns =
        static_cast<SP_PlatformFns*>(arena.Allocate(sizeof(SP_PlatformFns)));
    made.params->platform_fns->struct_size = SP_PLATFORM_FNS_STRUCT_SIZE;
    const std::array<uint64_t, 2> words{Word(made.params), 0};
    auto registered = made.server->Call(PluginFunction::kInitPlugin, *init, words);
    if (!registered || registered->status_code != TF_OK) made.params = nullptr;
    made.count = static_cast<int*>(arena.Allocate(sizeof(int)));
    return made;
  }();
  return registered.params != nullptr ? &registered : nullptr;
}

// get_device_count in the server: the cheapest real plugin call. With
// several threads each has a lane, and the calls run at once.
void LaneCall(benchmark::State& state) {
  Registered* registered = Register();
  if (registered == nullptr) {
    state.SkipWithError("cannot start the plugin server with the cpu plugin");
    return;
  }
  const std::array<uint64_t, 3> words{Word(registered->params->platform), Word(registered->count),
                                      0};
  const uint64_t target =
      Word(reinterpret_cast<const void*>(registered->params->platform_fns->get_device_count));
  for (auto _ : state) {
    auto answer = registered->server->Call(PluginFunction::kGetDeviceCount, target, words);
    if (!answer || answer->status_code != TF_OK) {
      state.SkipWithError("get_device_count failed in the server");
      break;
    }
  }
}
BENCHMARK(LaneCall)->UseRealTime()->Threads(1)->Threads(2);

// One chunk of the plugin's memory read through the protocol: the most a
// single ReadBytes message carries.
void ReadBytesChunk(benchmark::State& state) {
  Registered* registered = Register();
  if (registered == nullptr) {
    state.SkipWithError("cannot start the plugin server with the cpu plugin");
    return;
  }
  // The plugin's platform name and what follows it: memory of the plugin's.
  const uint64_t address = Word(registered->params->platform->name);
  for (auto _ : state) {
    auto bytes = registered->server->ReadBytes(address, static_cast<size_t>(state.range(0)));
    if (!bytes) {
      state.SkipWithError(bytes.error().message().c_str());
      break;
    }
  }
}
BENCHMARK(ReadBytesChunk)->UseRealTime()->Arg(64)->Arg(4096);

// A host callback's whole round trip: host_callback on a lane, the minimal
// plugin calling the callback inside it (it runs every operation at
// once), the event to the judge, the callback on a judge thread, and the
// answer back before host_callback returns.
void HostCallbackEvent(benchmark::State& state) {
  auto server = PluginServer::Start(SECTL_PLUGIN_SERVER, size_t{1} << 20);
  if (!server) {
    state.SkipWithError(server.error().message().c_str());
    return;
  }
  auto library = sectl::loader::PluginLibrary::OpenInServer(
      std::string(SECTL_PLUGIN_DIR) + "/sectl_minimal.so", {}, **server);
  if (!library) {
    state.SkipWithError(library.error().message().c_str());
    return;
  }
  sectl::host::Journal journal;
  journal.set_timed(false);
  auto platform = sectl::host::Platform::Create(*library, journal, {.server = server->get()});
  if (!platform) {
    state.SkipWithError(platform.error().message().c_str());
    return;
  }
  auto device = (*platform)->CreateDevice(0);
  if (!device) {
    state.SkipWithError(device.error().message().c_str());
    return;
  }
  auto stream = (*device)->CreateStream();
  if (!stream) {
    state.SkipWithError(stream.error().message().c_str());
    return;
  }
  for (auto _ : state) {
    auto record = (*stream)->EnqueueHostCallback([](TF_Status* /*status*/) {});
    if (!record || (*record)->calls.load() != 1) {
      state.SkipWithError("the host callback did not run inside host_callback");
      break;
    }
  }
  // TensorFlow's order: streams, then devices, then the platform.
  stream->reset();
  device->reset();
  platform->reset();
}
BENCHMARK(HostCallbackEvent)->UseRealTime();

// The user and system time of this process's reaped children.
double ChildrenCpuSeconds() {
  rusage usage{};
  ::getrusage(RUSAGE_CHILDREN, &usage);
  const auto seconds = [](const timeval& time) {
    return static_cast<double>(time.tv_sec) + static_cast<double>(time.tv_usec) * 1e-6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// What a check's process pays for its server before the first check call:
// the executable started, the cpu plugin loaded and registered, and the
// server ended when the judge is done with it. Argument 1: with the
// guard-page allocator on (a check's process), which reserves its address
// space before the plugin is loaded and places the plugin's small blocks.
// server_cpu_ms: the CPU time of each server itself (reaped by the judge,
// so counted in RUSAGE_CHILDREN), which a busy machine's wall time hides.
void ServerStartLoadAndEnd(benchmark::State& state) {
  const double cpu_before = ChildrenCpuSeconds();
  const auto heap =
      state.range(0) != 0 ? sectl::remote::PluginHeap::kGuarded : sectl::remote::PluginHeap::kPlain;
  for (auto _ : state) {
    auto server = PluginServer::Start(SECTL_PLUGIN_SERVER, size_t{1} << 20,
                                      sectl::remote::WhenTheServerEnds::kReportIt, heap);
    if (!server) {
      state.SkipWithError(server.error().message().c_str());
      break;
    }
    auto init = (*server)->Load(std::string(SECTL_PLUGIN_DIR) + "/sectl_cpu.so");
    if (!init || *init == 0) {
      state.SkipWithError("cannot load the cpu plugin in the server");
      break;
    }
    auto& arena = (*server)->arena();
    auto* params = static_cast<SE_PlatformRegistrationParams*>(
        arena.Allocate(sizeof(SE_PlatformRegistrationParams)));
    params->struct_size = SE_PLATFORM_REGISTRATION_PARAMS_STRUCT_SIZE;
    params->major_version = SE_MAJOR;
    params->minor_version = SE_MINOR;
    params->patch_version = SE_PATCH;
    params->platform = static_cast<SP_Platform*>(arena.Allocate(sizeof(SP_Platform)));
    params->platform->struct_size = SP_PLATFORM_STRUCT_SIZE;
    params->platform_fns = static_cast<SP_PlatformFns*>(arena.Allocate(sizeof(SP_PlatformFns)));
    params->platform_fns->struct_size = SP_PLATFORM_FNS_STRUCT_SIZE;
    const std::array<uint64_t, 2> words{Word(params), 0};
    auto registered = (*server)->Call(PluginFunction::kInitPlugin, *init, words);
    if (!registered || registered->status_code != TF_OK) {
      state.SkipWithError("SE_InitPlugin failed in the server");
      break;
    }
  }
  state.counters["server_cpu_ms"] = benchmark::Counter((ChildrenCpuSeconds() - cpu_before) * 1e3 /
                                                       static_cast<double>(state.iterations()));
}
BENCHMARK(ServerStartLoadAndEnd)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond)
    ->ArgName("guarded")
    ->Arg(0)
    ->Arg(1);

}  // namespace

BENCHMARK_MAIN();
