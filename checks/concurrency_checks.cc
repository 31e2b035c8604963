// Concurrency: TensorFlow drives one device from many threads at once (its
// compute stream, separate copy streams, the executor's thread pool), each
// allocating, copying and waiting on its own streams.
#include <fmt/format.h>

#include <barrier>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "conform/check.h"
#include "conform/check_support.h"
#include "host/stream.h"

namespace sectl::checks {
namespace {

using conform::SkipUnlessProvided;

using abi::PluginFunction;

constexpr int kThreads = 4;
constexpr int kRounds = 8;
constexpr size_t kBytes = size_t{64} * 1024;

// What one thread read back in each round, or why it could not go on.
struct ThreadOutcome {
  std::vector<conform::HostBytes> read_backs;
  std::string error;             // empty unless a plugin call failed
  std::optional<Error> failure;  // the failed call's error
};

// The bytes thread `thread` writes in round `round`; every thread and round
// writes a different pattern.
conform::HostBytes PatternOf(int thread, int round) {
  return conform::TestPattern(kBytes, static_cast<unsigned>(thread * kRounds + round));
}

// One thread's work: its own stream; each round a fresh allocation, a copy
// to the device and back, and a wait for the stream. Never throws: it runs
// on threads of its own, where a check may not stop.
ThreadOutcome RunThread(conform::CheckContext& check, const host::Device& device, int thread) {
  ThreadOutcome outcome;
  const auto fail = [&](std::string_view doing, const Error& error) {
    outcome.error = fmt::format("thread {}: {}: {}", thread, doing, error.message());
    outcome.failure = error;
    return outcome;
  };
  for (int round = 0; round < kRounds; ++round) {
    const conform::HostBytes written = PatternOf(thread, round);
    conform::HostBytes read_back(kBytes);
    auto memory = device.Allocate(kBytes);
    if (!memory) return fail("allocate", memory.error());
    auto stream = device.CreateStream();
    if (!stream) return fail("create_stream", stream.error());
    if (auto copied = (*stream)->MemcpyHtoD(memory->base(), written.data(), kBytes); !copied) {
      return fail("memcpy_htod", copied.error());
    }
    if (auto copied = (*stream)->MemcpyDtoH(read_back.data(), memory->base(), kBytes); !copied) {
      return fail("memcpy_dtoh", copied.error());
    }
    // The wait the check avoids no longer (conform::WaitForStream reads
    // only what the check set up before the threads started).
    if (auto waited = conform::WaitForStream(check, **stream); !waited) {
      return fail("waiting for the stream", waited.error());
    }
    outcome.read_backs.push_back(std::move(read_back));
  }
  return outcome;
}

// Runs every thread's work, one thread after another or all at once
// (released together, so that their calls really overlap).
std::vector<ThreadOutcome> RunAll(conform::CheckContext& check, const host::Device& device,
                                  bool at_once) {
  std::vector<ThreadOutcome> outcomes(kThreads);
  if (!at_once) {
    for (int thread = 0; thread < kThreads; ++thread)
      outcomes[thread] = RunThread(check, device, thread);
    return outcomes;
  }
  std::barrier start(kThreads);
  std::vector<std::jthread> threads;
  threads.reserve(kThreads);
  for (int thread = 0; thread < kThreads; ++thread) {
    threads.emplace_back([&, thread] {
      start.arrive_and_wait();
      outcomes[thread] = RunThread(check, device, thread);
    });
  }
  threads.clear();  // joins
  return outcomes;
}

}  // namespace

SECTL_CHECK("concurrency.streams_in_parallel", kRequired,
            "Threads allocating, copying and waiting on their own streams at once get exactly "
            "the bytes they copied",
            .tests = {kMemcpyHtoD, kMemcpyDtoH},
            .severity_reason =
                "TensorFlow 2.5 and later drive one device from many threads at "
                "once (compute and copy streams, the inter-op pool): copies that "
                "interfere corrupt tensors",
            .establishes =
                "4 threads, each with its own stream, each doing 8 rounds of a fresh 64 KiB "
                "allocation, a copy to the device and back and a wait, all at once, get back "
                "exactly what they got doing the same one thread at a time",
            .common_mistakes =
                "State shared by all copies without a lock: the faulty plugin stages every copy "
                "through one buffer, so one thread's bytes land in another's tensor; globals or "
                "driver handles used from several threads unguarded.",
            .how_to_fix =
                "Give each stream (or each copy) its own staging buffer, or guard shared state "
                "with a lock; test with several threads copying at once, under ThreadSanitizer.",
            .proven_by = "`RACY_CONCURRENT_COPIES`") {
  SkipUnlessProvided(check, {PluginFunction::kAllocate, PluginFunction::kCreateStream,
                             PluginFunction::kMemcpyHtoD, PluginFunction::kMemcpyDtoH});
  const host::Device& device = check.device();
  // The same work one thread at a time first: what the plugin's copies give
  // when nothing overlaps. Copies that are wrong even then are memcpy.*'s
  // finding; this check is about what running at once changes.
  const std::vector<ThreadOutcome> serial = RunAll(check, device, false);
  std::string wrong_one_at_a_time;  // the first copy wrong even then, if any
  for (int thread = 0; thread < kThreads; ++thread) {
    if (!serial[thread].error.empty()) {
      // With one thread at a time nothing is concurrent: a function failing
      // then blocks this check (a function it only uses), or fails it (a
      // copy it tests, which memcpy.* reports too): what concurrency changes
      // cannot be told, and a skip would hide that.
      check.Require(Expected<void>(tl::unexpected(*serial[thread].failure)),
                    "with one thread at a time, so what concurrency changes cannot be told");
    }
    // Copies wrong even one at a time are memcpy.*'s finding; what
    // concurrency changes is still judged below, against what the same
    // copies gave one at a time.
    for (int round = 0; round < kRounds && wrong_one_at_a_time.empty(); ++round) {
      const std::string difference = conform::FirstDifference(
          PatternOf(thread, round).data(), serial[thread].read_backs[round].data(), kBytes);
      if (!difference.empty()) {
        wrong_one_at_a_time = fmt::format("thread {}, round {}: {}", thread, round, difference);
      }
    }
  }

  const std::vector<ThreadOutcome> concurrent = RunAll(check, device, true);
  check.details() = {{"threads", kThreads}, {"rounds", kRounds}, {"bytes", kBytes}};
  if (!wrong_one_at_a_time.empty()) {
    check.details()["wrong_one_thread_at_a_time"] = wrong_one_at_a_time;
  }
  std::vector<std::string> corrupted;  // the first corrupted round of each thread
  for (int thread = 0; thread < kThreads; ++thread) {
    if (!concurrent[thread].error.empty()) {
      check.Fail(fmt::format("{} (the same call succeeded with one thread at a time)",
                             concurrent[thread].error));
      continue;
    }
    for (int round = 0; round < kRounds; ++round) {
      const std::string difference =
          conform::FirstDifference(serial[thread].read_backs[round].data(),
                                   concurrent[thread].read_backs[round].data(), kBytes);
      if (difference.empty()) continue;
      corrupted.push_back(fmt::format("thread {}, round {}: {}", thread, round, difference));
      break;
    }
  }
  check.details()["corrupted"] = corrupted;
  if (corrupted.empty()) return;
  check.Fail(fmt::format(
      "with {} threads each copying {} bytes to the device and back on its own stream at once, "
      "{} of them got back bytes other than {} ({}). TensorFlow copies on several streams from "
      "several threads at once, so tensors would be corrupted",
      kThreads, kBytes, corrupted.size(),
      wrong_one_at_a_time.empty() ? "those they wrote, and none did one thread at a time"
                                  : "the same copies gave one thread at a time",
      corrupted.front()));
}

}  // namespace sectl::checks
