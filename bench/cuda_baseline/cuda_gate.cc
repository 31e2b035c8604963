#include "cuda_gate.h"

#include <chrono>
#include <thread>

#include "cuda_error.h"

namespace sectl::cuda_baseline {
namespace {

// An upper bound on any hold, so a host thread that died cannot wedge the
// stream for ever.
constexpr auto kLongestHold = std::chrono::seconds(60);

// Runs on CUDA's host-function thread; owns one reference to the state.
void CUDART_CB WaitForOpen(void* data) {
  const std::unique_ptr<std::shared_ptr<CudaGate::State>> state(
      static_cast<std::shared_ptr<CudaGate::State>*>(data));
  const auto started = std::chrono::steady_clock::now();
  for (int spins = 0; !(*state)->open.load(std::memory_order_acquire); ++spins) {
    if (std::chrono::steady_clock::now() - started > kLongestHold) return;
    // Spin briefly for a prompt start, then let the host thread have the core.
    if (spins > 1000) std::this_thread::yield();
  }
}

}  // namespace

Expected<CudaGate> CudaGate::Close(cudaStream_t stream) {
  auto state = std::make_shared<State>();
  auto reference = std::make_unique<std::shared_ptr<State>>(state);
  if (auto launched =
          Check(cudaLaunchHostFunc(stream, WaitForOpen, reference.get()), "cudaLaunchHostFunc");
      !launched) {
    return tl::unexpected(launched.error());
  }
  static_cast<void>(reference.release());  // WaitForOpen owns it now.
  return CudaGate(std::move(state));
}

void CudaGate::Open() {
  if (state_) state_->open.store(true, std::memory_order_release);
}

}  // namespace sectl::cuda_baseline
