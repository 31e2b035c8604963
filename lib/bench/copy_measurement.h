// One copy path at one size, measured: its buffers, stream and timer, the
// timed batches of copies, and the check that the copies moved the right
// bytes. `sectl bench memcpy` (memcpy_bench.cc) makes one per result.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "abi/plugin_functions.h"
#include "base/error.h"
#include "bench/bench_report.h"
#include "bench/copy_buffers.h"
#include "bench/copy_verification.h"
#include "bench/plugin_health.h"
#include "bench/stream_gate.h"
#include "host/device.h"
#include "host/memory.h"
#include "host/stream.h"
#include "host/timer.h"

namespace sectl::bench {

struct Path {
  Direction direction;
  HostMemory host_memory;
  CopyMode mode;
};

// "h2d pinned async 64 MiB".
std::string DescribePath(const Path& path, uint64_t bytes);

// What a result measured without the gate says of a host_callback that
// accepted the gate's callback and never ran it (`stall`).
std::string StalledGateNote(std::string_view stall);

double Milliseconds(std::chrono::steady_clock::duration duration);

// The plugin function whose return says a copy on `path` is done: the
// stream's wait (block_host_until_done, or block_host_for_event where the
// plugin lacks it) for an async copy, the copy itself for a sync one.
abi::PluginFunction CompletionFunction(const host::Device& device, const Path& path);
// Every function that completion rests on: the wait, and for the event
// route (no block_host_until_done) the event it waits for too.
std::vector<abi::PluginFunction> CompletionRoute(const host::Device& device, const Path& path);
// The function that makes one copy on `path`: memcpy_htod, sync_memcpy_dtoh, ...
abi::PluginFunction CopyFunction(const Path& path);

// One copy path at one size: its buffers, stream and timer, and the
// measurement made with them. What it learns of the plugin's completion
// signals goes into `health`, shared by every path of the run.
class CopyMeasurement {
 public:
  CopyMeasurement(const host::Device& device, const Path& path, uint64_t bytes,
                  PluginHealth& health)
      : device_(device), path_(path), bytes_(bytes), health_(health) {}

  Expected<void> Prepare();
  // Whether the copy's completion can be believed, from one copy made before
  // any is timed (completion_probe.cc): why not, or nullopt. `ceiling_gbps`
  // (the host's memcpy at this size) bounds how long bytes may take to
  // arrive after a completion signalled too early.
  Expected<std::optional<std::string>> ProbeCompletion(double ceiling_gbps);
  // Seconds by the host clock. An error also when the batch showed its
  // completion cannot be believed; not_measurable() then says why.
  Expected<double> TimeCopies(int copies, bool gated);
  // Whether the copies moved the right bytes, checked only through ways in
  // and out of the device that `verdicts` found to work when the usual
  // check disagrees.
  Verification Verify(LazyVerdicts& verdicts);

  std::optional<double> last_timer_seconds() const { return last_timer_seconds_; }
  bool gate_held() const { return gate_held_; }
  const std::optional<std::string>& timer_problem() const { return timer_problem_; }
  const std::optional<std::string>& not_measurable() const { return not_measurable_; }
  // What the result should say about how it was measured ("the gate's
  // host callback never ran: enqueueing is timed too").
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  Expected<void> CopyOnce();
  // One copy of the first `bytes` of the path's buffers.
  Expected<void> CopyOnce(uint64_t bytes);
  Expected<void> CopyOnceAndWait();
  // Waits for the copies in the path's form: the stream for async ones;
  // nothing for sync ones, which are done when they return.
  Expected<void> WaitForCopies();
  Expected<void> Upload(const host::DeviceMemory& destination, std::span<const std::byte> data);
  // Whether the gate may hold the stream: host_callback provided and not
  // known broken.
  bool GateUsable() const;
  // The stream reported done while `gate`, queued before every copy, had
  // not run: it ran late (the wait returned early: not measurable) or never
  // (host_callback stalls: the gate is dropped). Whether to time again,
  // without the gate.
  bool JudgeUnrunGate(const StreamGate& gate);
  // A gate's host callback never ran: host_callback is learned to stall,
  // and the result says it was measured without a gate.
  void LearnGateNeverRan();
  // The first difference between expected_ and what `source` reads back as
  // through `reader`; nullopt when they are equal.
  Expected<std::optional<std::string>> ReadBackDifference(abi::PluginFunction reader,
                                                          const host::DeviceMemory& source);
  // h2d and d2d: the copy's destination on the device must hold expected_.
  Verification VerifyDeviceHolds(LazyVerdicts& lazy);
  // d2h: the host buffer must hold expected_.
  Verification VerifyHostHolds(LazyVerdicts& lazy);

  // completion_probe.cc, each on the first probe_bytes_ of the buffers: the
  // copy's destination, filled with bytes the copy must replace (in the
  // path's own form), and how it is observed.
  Expected<void> Poison();
  // Starts observing the destination: h2d and d2d read it back into
  // read_back_ (a read that may itself complete late); d2h needs nothing.
  Expected<void> StartObserving();
  // The first difference between expected_ and the destination as observed
  // now, without any further plugin call.
  std::optional<std::string> ObservedDifference() const;

  const host::Device& device_;
  Path path_;
  uint64_t bytes_;
  PluginHealth& health_;
  std::unique_ptr<host::Timer> timer_;
  host::HostMemory pinned_;
  std::optional<PageableBuffer> pageable_;
  std::span<std::byte> host_;
  host::DeviceMemory device_a_;  // h2d destination, d2h and d2d source
  host::DeviceMemory device_b_;  // d2d destination
  std::optional<PageableBuffer> expected_;
  std::optional<PageableBuffer> read_back_;
  std::optional<DeviceAccess> access_;
  std::optional<double> last_timer_seconds_;
  std::optional<std::string> timer_problem_;
  std::optional<std::string> not_measurable_;
  std::vector<std::string> notes_;
  bool gate_held_ = false;
  uint64_t probe_bytes_ = 0;  // how much the completion probe copies
  // Declared last, so destroyed first: destroy_stream, which finishes the
  // stream's work, before the memory that work copies is freed, even on a
  // plugin whose wait returned before the work was done.
  std::unique_ptr<host::Stream> stream_;
};

}  // namespace sectl::bench
