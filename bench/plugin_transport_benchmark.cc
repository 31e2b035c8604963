// What a call into a plugin would cost if the plugin ran in a process of
// its own (the plugin server of issue 27: sectl's judge drives a separate
// process that loads the plugin and performs each call). Measures one call's
// round trip, a 128-byte request and a 128-byte answer, between this process
// and a forked echo process, over the two transports a server could use,
// against calling a function pointer in-process.
//
//   build/bin/sectl_plugin_transport_benchmark --benchmark_repetitions=5
//
// The echo process does no work: what is measured is the transport alone.
#include <benchmark/benchmark.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstring>

namespace {

// The size of a call's request and answer: a function number, twelve
// argument words, a status code, as a call description would need.
constexpr size_t kMessageBytes = 128;
using Message = std::array<char, kMessageBytes>;

// ---- In-process: the baseline ----------------------------------------------

__attribute__((noinline)) uint64_t PluginFunction(uint64_t argument) { return argument + 1; }

void DirectCall(benchmark::State& state) {
  uint64_t (*volatile function)(uint64_t) = PluginFunction;
  uint64_t value = 0;
  for (auto _ : state) benchmark::DoNotOptimize(value = function(value));
}
BENCHMARK(DirectCall);

// ---- A socket pair ---------------------------------------------------------

// Sequenced packets: one message per read, and end of file when the other
// process dies, which is how a judge would see its server crash.
void SocketPairRoundTrip(benchmark::State& state) {
  std::array<int, 2> sockets{-1, -1};
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sockets.data()) != 0) {
    state.SkipWithError("socketpair failed");
    return;
  }
  const pid_t echo = ::fork();
  if (echo == 0) {
    ::close(sockets[0]);
    Message message{};
    while (::read(sockets[1], message.data(), message.size()) > 0) {
      if (::write(sockets[1], message.data(), message.size()) <= 0) break;
    }
    ::_exit(0);
  }
  ::close(sockets[1]);
  Message request{};
  Message answer{};
  for (auto _ : state) {
    if (::write(sockets[0], request.data(), request.size()) != kMessageBytes ||
        ::read(sockets[0], answer.data(), answer.size()) != kMessageBytes) {
      state.SkipWithError("the echo process went away");
      break;
    }
  }
  ::close(sockets[0]);
  ::waitpid(echo, nullptr, 0);
}
BENCHMARK(SocketPairRoundTrip)->UseRealTime();

// ---- Shared memory and a futex ---------------------------------------------

// One page both processes map: a sequence word each way and the message.
// The waiter spins a while before sleeping on the futex (the benchmark's
// argument: how many loads): a spinning waiter answers within a cache
// line's transfer, a sleeping one within a wake-up, but spinning burns a
// core that, under -j, another check's processes want.
struct SharedCall {
  std::atomic<uint32_t> request_sequence{0};
  std::atomic<uint32_t> answer_sequence{0};
  Message message{};
};
static_assert(std::atomic<uint32_t>::is_always_lock_free);

void WaitFor(std::atomic<uint32_t>& word, uint32_t value, int64_t spins) {
  for (int64_t spin = 0; spin < spins; ++spin) {
    if (word.load(std::memory_order_acquire) == value) return;
  }
  while (true) {
    const uint32_t now = word.load(std::memory_order_acquire);
    if (now == value) return;
    ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAIT, now, nullptr, nullptr, 0);
  }
}

void Publish(std::atomic<uint32_t>& word, uint32_t value) {
  word.store(value, std::memory_order_release);
  ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAKE, 1, nullptr, nullptr, 0);
}

void SharedMemoryFutexRoundTrip(benchmark::State& state) {
  void* page = ::mmap(nullptr, sizeof(SharedCall), PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) {
    state.SkipWithError("mmap failed");
    return;
  }
  auto* call = new (page) SharedCall();
  const int64_t spins = state.range(0);
  const pid_t echo = ::fork();
  if (echo == 0) {
    for (uint32_t sequence = 1;; ++sequence) {
      WaitFor(call->request_sequence, sequence, spins);
      if (call->message[0] == 'q') ::_exit(0);
      Publish(call->answer_sequence, sequence);
    }
  }
  uint32_t sequence = 0;
  for (auto _ : state) {
    ++sequence;
    call->message[0] = 'c';
    Publish(call->request_sequence, sequence);
    WaitFor(call->answer_sequence, sequence, spins);
  }
  call->message[0] = 'q';
  Publish(call->request_sequence, sequence + 1);
  ::waitpid(echo, nullptr, 0);
  ::munmap(page, sizeof(SharedCall));
}
BENCHMARK(SharedMemoryFutexRoundTrip)
    ->ArgName("spins")
    ->Arg(0)
    ->Arg(2000)
    ->Arg(100000)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
