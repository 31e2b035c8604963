#include "bench/host_ceiling.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "bench/copy_buffers.h"
#include "bench/statistics.h"

namespace sectl::bench {
namespace {

using Clock = std::chrono::steady_clock;

// Keeps the compiler from proving the copies dead.
void KeepAlive(void* memory) { asm volatile("" : : "r"(memory) : "memory"); }

double CopySeconds(PageableBuffer& destination, const PageableBuffer& source, int copies) {
  const auto started = Clock::now();
  for (int i = 0; i < copies; ++i) {
    std::memcpy(destination.data(), source.data(), source.size());
    KeepAlive(destination.data());
  }
  return std::chrono::duration<double>(Clock::now() - started).count();
}

}  // namespace

Expected<CeilingResult> MeasureHostCeiling(uint64_t bytes, const SamplingPlan& plan) {
  auto source = PageableBuffer::Allocate(bytes);
  if (!source) return tl::unexpected(source.error());
  auto destination = PageableBuffer::Allocate(bytes);
  if (!destination) return tl::unexpected(destination.error());
  FillPattern(source->bytes(), bytes);
  FillPattern(destination->bytes(), bytes + 1);  // touch every page before timing

  // Warm-up (caches, TLB, the memcpy implementation's dispatch) while
  // finding how many copies make a sample.
  auto copies = CalibrateBatch(
      [&](int count) -> Expected<double> { return CopySeconds(*destination, *source, count); },
      kMaxCopiesPerSample);
  if (!copies) return tl::unexpected(copies.error());
  auto samples = SampleUntilStable(plan, [&]() -> Expected<double> {
    const double seconds = CopySeconds(*destination, *source, *copies);
    return static_cast<double>(bytes) * *copies / seconds / 1e9;
  });
  if (!samples) return tl::unexpected(samples.error());
  return CeilingResult{.bytes = bytes, .gbps = Describe(samples->values)};
}

}  // namespace sectl::bench
