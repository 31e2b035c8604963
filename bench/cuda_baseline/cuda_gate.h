// Holding a CUDA stream back until the clock starts, as `sectl bench` does
// with a host callback at the head of the plugin's stream (lib/bench/
// stream_gate.h): a host function waits until the gate opens, so a batch of
// copies is queued first and the timed interval holds only their execution.
// The same mechanism on both paths keeps the comparison fair.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <memory>

#include "base/error.h"

namespace sectl::cuda_baseline {

class CudaGate {
 public:
  // Enqueues the gate on `stream`.
  static Expected<CudaGate> Close(cudaStream_t stream);

  ~CudaGate() { Open(); }
  CudaGate(CudaGate&&) noexcept = default;
  CudaGate& operator=(CudaGate&&) noexcept = default;
  CudaGate(const CudaGate&) = delete;
  CudaGate& operator=(const CudaGate&) = delete;

  // Lets the stream go on. Safe to call more than once.
  void Open();

  // Shared by the gate and the host function, which may outlive the gate.
  struct State {
    std::atomic<bool> open{false};
  };

 private:
  explicit CudaGate(std::shared_ptr<State> state) : state_(std::move(state)) {}
  std::shared_ptr<State> state_;
};

}  // namespace sectl::cuda_baseline
