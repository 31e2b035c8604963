#include "conform/throughput.h"

#include "bench/run_bench.h"

namespace sectl::conform {

report::Throughput MeasureThroughput(const CheckSettings& settings, bool isolate,
                                     std::chrono::milliseconds timeout,
                                     const isolation::Confinement& confinement) {
  bench::BenchOptions options;
  options.kind = bench::BenchKind::kMemcpy;
  options.plugin_path = settings.plugin_path;
  options.lazy = settings.lazy;
  options.generation = settings.generation;
  options.device_ordinal = settings.device_ordinal;
  options.memcpy.sizes = {kThroughputBytes};
  options.memcpy.plan.budget = std::chrono::milliseconds(100);
  options.isolate = isolate;
  options.stall_timeout = timeout;
  options.confinement = confinement;

  report::Throughput throughput{.bytes = kThroughputBytes};
  auto measured = bench::RunBench(options);
  if (!measured) {
    throughput.error = measured.error().message();
    return throughput;
  }
  if (!measured->ceiling.empty()) throughput.ceiling_gbps = measured->ceiling.front().gbps.median;
  for (const bench::BandwidthResult& result : measured->results) {
    throughput.results.push_back({.direction = std::string(DirectionName(result.direction)),
                                  .host_memory = std::string(HostMemoryName(result.host_memory)),
                                  .median_gbps = result.gbps.median,
                                  .ratio_to_ceiling = result.ratio_to_ceiling,
                                  .verification = result.verification.Describe(),
                                  .error = result.error});
  }
  return throughput;
}

}  // namespace sectl::conform
