// SP_DeviceFns: optional properties that describe a device to the host.
//
// Bandwidth and throughput are measured, not made up, but only on first
// use and once per process: a conformance tool loads the plugin hundreds of
// times, and loading must stay instant.

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <limits>

#include "../common/entry_guard.h"
#include "../common/host_struct.h"
#include "aligned_buffer.h"
#include "plugin_fns.h"

namespace sectl_plugin::cpu {
namespace {

using Clock = std::chrono::steady_clock;

// Keeps the compiler from removing work whose result is never read.
void KeepAlive(const void* memory) { asm volatile("" : : "r"(memory) : "memory"); }

// Times a host memcpy of 64 MiB (larger than the last-level cache of most
// machines, so it measures memory rather than cache) and counts bytes read
// plus bytes written, as the STREAM benchmark's "copy" does.
int64_t MeasureMemoryBandwidth() {
  constexpr size_t kBytes = size_t{64} << 20;
  constexpr int kRepetitions = 3;
  AlignedBuffer source = AllocateAligned(kBytes);
  AlignedBuffer destination = AllocateAligned(kBytes);
  if (source == nullptr || destination == nullptr) return -1;  // Unknown.
  // Touch every page first, so we time copying rather than page faults.
  std::memset(source.get(), 1, kBytes);
  std::memset(destination.get(), 0, kBytes);

  auto fastest = Clock::duration::max();
  for (int i = 0; i < kRepetitions; ++i) {
    const auto start = Clock::now();
    std::memcpy(destination.get(), source.get(), kBytes);
    KeepAlive(destination.get());
    fastest = std::min(fastest, Clock::now() - start);
  }
  const double seconds = std::chrono::duration<double>(fastest).count();
  if (seconds <= 0) return -1;
  return static_cast<int64_t>(2.0 * kBytes / seconds);
}

// Runs independent multiply-add chains on one core for about a millisecond.
// Several chains, so the result reflects throughput rather than latency.
double MeasureGflops() {
  volatile double seed = 1.0;  // Opaque to the optimizer.
  const double multiplier = seed * 0.999999;
  const double addend = seed * 1e-9;
  double chains[8];
  for (double& chain : chains) chain = seed;

  constexpr int kInnerIterations = 4096;
  uint64_t iterations = 0;
  const auto start = Clock::now();
  auto elapsed = Clock::duration::zero();
  do {
    for (int i = 0; i < kInnerIterations; ++i) {
      for (double& chain : chains) chain = chain * multiplier + addend;
    }
    iterations += kInnerIterations;
    elapsed = Clock::now() - start;
  } while (elapsed < std::chrono::milliseconds(1));
  KeepAlive(chains);

  const double seconds = std::chrono::duration<double>(elapsed).count();
  const double flops = 2.0 * static_cast<double>(iterations) * std::size(chains);
  return flops / seconds / 1e9;
}

int32_t GetNumaNode(const SP_Device* /*device*/) noexcept {
  // Both devices are this machine's memory; report node 0 where the
  // machine has NUMA nodes at all, and "unknown" otherwise.
  static const int32_t node = access("/sys/devices/system/node/node0", F_OK) == 0 ? 0 : -1;
  return node;
}

int64_t GetMemoryBandwidth(const SP_Device* /*device*/) noexcept {
  return GuardedValue<int64_t>(-1, [] {
    static const int64_t bytes_per_second = MeasureMemoryBandwidth();
    return bytes_per_second;
  });
}

double GetGflops(const SP_Device* /*device*/) noexcept {
  return GuardedValue<double>(-1.0, [] {
    static const double gflops = MeasureGflops();
    return gflops;
  });
}

}  // namespace

void FillDeviceFns(SP_DeviceFns* device_fns) {
  HostStruct<SP_DeviceFns> fns(device_fns, SP_DEVICE_FNS_STRUCT_SIZE);
  fns.Set(&SP_DeviceFns::get_numa_node, GetNumaNode);
  fns.Set(&SP_DeviceFns::get_memory_bandwidth, GetMemoryBandwidth);
  fns.Set(&SP_DeviceFns::get_gflops, GetGflops);
  fns.WriteBackSize();
}

}  // namespace sectl_plugin::cpu
