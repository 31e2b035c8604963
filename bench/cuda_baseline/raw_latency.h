// `sectl bench latency`'s operations done with the CUDA runtime directly:
// what each costs with nothing between the caller and CUDA, for
// `sectl bench latency sectl_cuda.so --compare raw_latency.json`.
//
// Each operation is the CUDA call (or calls) the sectl_cuda plugin makes for
// the StreamExecutor function sectl measures, on the same kind of object:
//
//   enqueue_tiny_copy           cudaMemcpyAsync, 4 bytes from pageable memory
//   host_callback_round_trip    cudaLaunchHostFunc on an idle stream, until it runs
//   event_record_to_complete    cudaEventRecord, then cudaEventQuery until done
//   allocate_deallocate         cudaMalloc and cudaFree of 256 bytes
//   stream_create_destroy       cudaStreamCreateWithFlags(NonBlocking), cudaStreamDestroy
//   event_create_destroy        cudaEventCreateWithFlags(DisableTiming), cudaEventDestroy
//   get_event_status            cudaEventQuery of a completed event
//   block_host_until_done_idle  cudaStreamSynchronize of an idle stream
//
// The names are lib/bench/latency_bench.cc's, so the reports pair up by
// operation; so are the method (a batch calibrated to about 2 ms, then
// SampleUntilStable over it) and the sizes. What the plugin adds on top of
// these calls (the C API dispatch, argument checks, a cudaSetDevice per
// call, a synchronisation before destroy_stream, the callback trampoline)
// is the difference between the two reports.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "bench/bench_report.h"
#include "bench/sampling.h"

namespace sectl::cuda_baseline {

struct LatencyBaselineOptions {
  bench::SamplingPlan plan;
  int device = 0;
  std::vector<std::string> command_line;
  bool progress = false;  // one line per operation on stderr
};

// The operations, in the order measured (`sectl bench latency`'s order).
std::vector<std::string_view> RawLatencyOperationNames();

// Appends one result per operation, measured on the current CUDA device,
// to `report.latency`. An operation that cannot be measured (no device, a
// failing call) gets a result with its error, as in sectl's own reports.
void MeasureRawLatencies(const bench::SamplingPlan& plan, bool progress,
                         bench::BenchReport& report);

// A whole latency baseline run: the report, on CUDA device
// `options.device`. An error only when there is no such device.
Expected<bench::BenchReport> RunLatencyBaseline(const LatencyBaselineOptions& options);

}  // namespace sectl::cuda_baseline
