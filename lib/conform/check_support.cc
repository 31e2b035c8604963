#include "conform/check_support.h"

#include <fmt/format.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "conform/check_context.h"
#include "conform/check_process_server.h"
#include "host/memory.h"
#include "host/stream.h"
#include "isolation/guard_malloc.h"
#include "remote/plugin_server.h"

namespace sectl::conform {

void SkipUnlessProvided(CheckContext& check, std::initializer_list<abi::PluginFunction> needed) {
  for (abi::PluginFunction function : needed) {
    if (!check.platform().Provides(function)) {
      check.Skip(fmt::format(
          "the plugin does not provide {} (registration.required_callbacks reports missing "
          "required members)",
          abi::QualifiedName(function)));
    }
  }
}

bool HostCallbacksUsable(CheckContext& check) {
  return check.platform().Provides(abi::PluginFunction::kHostCallback) &&
         !check.Avoids(abi::PluginFunction::kHostCallback);
}

Expected<void> WaitForStream(CheckContext& check, host::Stream& stream) {
  using abi::PluginFunction;
  // TensorFlow's own wait where the plugin lacks block_host_until_done
  // goes through events; either way, the stream's own wait.
  const PluginFunction block = check.platform().Provides(PluginFunction::kBlockHostUntilDone)
                                   ? PluginFunction::kBlockHostUntilDone
                                   : PluginFunction::kBlockHostForEvent;
  if (!check.Avoids(block) || check.Tests(block)) return stream.BlockHostUntilDone();
  if (!check.Avoids(PluginFunction::kSynchronizeAllActivity)) {
    return check.device().SynchronizeAllActivity();
  }
  return PluginFailure(
      block, fmt::format("no way is left to wait for a stream: {}; and {}", check.WhyAvoided(block),
                         check.WhyAvoided(PluginFunction::kSynchronizeAllActivity)));
}

struct BusyWork::State {
  Route route = Route::kHostCallback;
  std::chrono::milliseconds duration{0};
  std::atomic<bool> callback_returned{false};
  // The copy route: what went to the device, and where it comes back.
  host::DeviceMemory device_buffer;
  HostBytes sent;
  std::shared_ptr<HostBytes> landing;
  // The idle route: the function that ruled the busy routes out, and why.
  abi::PluginFunction idle_because = abi::PluginFunction::kHostCallback;
  std::string why_idle;

  bool finished() const {
    switch (route) {
      case Route::kHostCallback:
        return callback_returned.load();
      case Route::kCopy:
        // Read while the plugin may still be writing: a torn read only
        // delays the moment the bytes are seen equal.
        return std::memcmp(landing->data(), sent.data(), sent.size()) == 0;
      case Route::kIdle:
        return true;
    }
    return true;
  }
};

namespace {

// Landing buffers of copies that had not arrived when their BusyWork went:
// a plugin may still write them, so they live as long as the process.
std::mutex abandoned_mutex;
std::vector<std::shared_ptr<HostBytes>>& AbandonedLandings() {
  static std::vector<std::shared_ptr<HostBytes>> landings;
  return landings;
}

// Why a route's function cannot be used: absent, or avoided (and why).
std::string WhyUnusable(CheckContext& check, abi::PluginFunction function) {
  if (!check.platform().Provides(function)) {
    return fmt::format("the plugin does not provide {}", abi::InfoOf(function).member);
  }
  return check.WhyAvoided(function);
}

bool Usable(CheckContext& check, abi::PluginFunction function) {
  return check.platform().Provides(function) && !check.Avoids(function);
}

}  // namespace

BusyWork::BusyWork(CheckContext& check, host::Stream& stream, std::chrono::milliseconds duration,
                   WithoutRoute without_route)
    : check_(check), stream_(stream), state_(std::make_shared<State>()) {
  using abi::PluginFunction;
  state_->duration = duration;
  if (HostCallbacksUsable(check)) {
    auto enqueued = stream.EnqueueHostCallback([state = state_](TF_Status*) {
      std::this_thread::sleep_for(state->duration);
      state->callback_returned.store(true);
    });
    if (enqueued) return;
    const auto culprit = enqueued.error().culprit();
    if (!culprit || check.Tests(*culprit)) {
      check.Require(Expected<void>(tl::unexpected(enqueued.error())), "enqueueing a host callback");
    }
    // Broken for this check: the copy route from now on.
    check.Avoid(*culprit);
  }
  const std::string no_callback = WhyUnusable(check, PluginFunction::kHostCallback);
  // The function a check without a route is blocked by: host_callback, the
  // usual route, where the plugin has it.
  const PluginFunction first_route = check.platform().Provides(PluginFunction::kHostCallback)
                                         ? PluginFunction::kHostCallback
                                         : PluginFunction::kMemcpyHtoD;
  const auto without = [&](const std::string& no_copy) {
    const std::string why = fmt::format(
        "host callbacks are unusable ({}), and so is a long copy ({})", no_callback, no_copy);
    if (without_route == WithoutRoute::kBlock) {
      check.Blocked(first_route,
                    fmt::format("this check keeps a stream busy with a host callback or, failing "
                                "that, a long copy, and neither works here: {}",
                                why));
    }
    state_->route = Route::kIdle;
    state_->idle_because = first_route;
    state_->why_idle = why;
  };
  for (PluginFunction needed :
       {PluginFunction::kAllocate, PluginFunction::kMemcpyHtoD, PluginFunction::kMemcpyDtoH}) {
    if (Usable(check, needed)) continue;
    without(WhyUnusable(check, needed));
    return;
  }
  // A step of the copy route that fails: blocked, or idle where the check
  // allows it (the step's function is avoided from then on).
  const auto failed = [&](const Error& error, std::string_view doing) {
    const auto culprit = error.culprit();
    if (without_route == WithoutRoute::kBlock || !culprit || check.Tests(*culprit)) {
      check.Require(Expected<void>(tl::unexpected(error)), doing);
    }
    check.Avoid(*culprit);
    // Whatever was enqueued before ends before the check uses the stream.
    (void)WaitForStream(check, stream);
    without(fmt::format("{}: {}", doing, error.message()));
  };
  auto memory = check.device().Allocate(kBusyCopyBytes);
  if (!memory) {
    failed(memory.error(), "allocate (to keep a stream busy)");
    return;
  }
  state_->route = Route::kCopy;
  state_->device_buffer = std::move(*memory);
  state_->sent = TestPattern(kBusyCopyBytes, 11);
  state_->landing = std::make_shared<HostBytes>(state_->sent);
  for (unsigned char& byte : *state_->landing) byte = static_cast<unsigned char>(~byte);
  if (auto copied =
          stream.MemcpyHtoD(state_->device_buffer.base(), state_->sent.data(), state_->sent.size());
      !copied) {
    failed(copied.error(), "memcpy_htod (to keep a stream busy)");
    return;
  }
  if (auto copied = stream.MemcpyDtoH(state_->landing->data(), state_->device_buffer.base(),
                                      state_->sent.size());
      !copied) {
    failed(copied.error(), "memcpy_dtoh (to keep a stream busy)");
    return;
  }
}

BusyWork::~BusyWork() {
  if (state_->route != Route::kCopy || state_->finished()) return;
  (void)WaitForStream(check_, stream_);
  if (state_->finished()) return;
  std::lock_guard lock(abandoned_mutex);
  AbandonedLandings().push_back(state_->landing);
}

bool BusyWork::finished() const { return state_->finished(); }

bool BusyWork::Await(std::chrono::milliseconds limit) const {
  return WaitUntil([this] { return finished(); }, limit);
}

BusyWork::Route BusyWork::route() const { return state_->route; }

std::string BusyWork::Describe() const {
  switch (state_->route) {
    case Route::kHostCallback:
      return fmt::format("a host callback sleeping {} ms", state_->duration.count());
    case Route::kCopy:
      return fmt::format("a copy of {} MiB to the device and back", kBusyCopyBytes >> 20);
    case Route::kIdle:
      return fmt::format("nothing (an idle stream: {})", state_->why_idle);
  }
  return {};
}

abi::PluginFunction BusyWork::StalledFunction() const {
  return state_->route == Route::kCopy ? abi::PluginFunction::kMemcpyDtoH
                                       : abi::PluginFunction::kHostCallback;
}

IdleStream BusyWork::Idle() const { return {state_->idle_because, state_->why_idle}; }

void BlockBecauseIdle(CheckContext& check, const IdleStream& idle, std::string_view what_was_seen,
                      std::string_view needs_busy_work_to) {
  check.Blocked(idle.because,
                fmt::format("{}; {} needs work that keeps the stream busy, and none is possible "
                            "here: {}",
                            what_was_seen, needs_busy_work_to, idle.why));
}

HostBytes TestPattern(size_t size, unsigned seed) {
  HostBytes bytes(size);
  for (size_t i = 0; i < size; ++i) {
    bytes[i] = static_cast<unsigned char>((i * 7 + i / 251 + size_t{seed} * 13 + 1) & 0xFF);
  }
  return bytes;
}

std::string FirstDifference(const unsigned char* expected, const unsigned char* actual,
                            size_t size) {
  for (size_t i = 0; i < size; ++i) {
    if (expected[i] != actual[i]) {
      return fmt::format("byte {} reads back as 0x{:02x}, 0x{:02x} was written", i, actual[i],
                         expected[i]);
    }
  }
  return {};
}

GuardedHostBuffer::GuardedHostBuffer(size_t size) : size_(size) {
  const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t usable = (size + page - 1) / page * page;
  // A guard page on each side; the buffer ends exactly at the back guard.
  mapping_size_ = usable + 2 * page;
  if (remote::PluginServer* server = CheckProcessServer()) {
    // A page more than needed, to start at a page boundary.
    arena_block_ = server->arena().Allocate(mapping_size_ + page);
    if (arena_block_ == nullptr) return;
    const uintptr_t start = (reinterpret_cast<uintptr_t>(arena_block_) + page - 1) / page * page;
    auto* base = reinterpret_cast<unsigned char*>(start);  // NOLINT(performance-no-int-to-ptr)
    if (!server->ProtectArena(base, page, false) ||
        !server->ProtectArena(base + page + usable, page, false)) {
      (void)server->ProtectArena(base, mapping_size_, true);
      server->arena().Free(arena_block_);
      arena_block_ = nullptr;
      return;
    }
    server_ = server;
    mapping_ = base;
    data_ = base + page + usable - size;
    return;
  }
  void* mapping = ::mmap(nullptr, mapping_size_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED) return;
  auto* base = static_cast<unsigned char*>(mapping);
  if (::mprotect(base + page, usable, PROT_READ | PROT_WRITE) != 0) {
    ::munmap(mapping, mapping_size_);
    return;
  }
  mapping_ = mapping;
  data_ = base + page + usable - size;
}

GuardedHostBuffer::~GuardedHostBuffer() {
  if (server_ != nullptr) {
    // Accessible again before the arena hands the pages to anything else.
    if (server_->ProtectArena(mapping_, mapping_size_, true)) server_->arena().Free(arena_block_);
    return;
  }
  if (mapping_ != nullptr) ::munmap(mapping_, mapping_size_);
}

int ThreadCount() {
  if (remote::PluginServer* server = CheckProcessServer()) {
    // Read here where this process can see the server; else as it says.
    auto threads = server->ThreadCount();
    if (!threads) {
      auto reported = server->ResourcesInUse();
      if (!reported) return 0;
      threads = reported->threads;
    }
    return static_cast<int>(*threads - server->lanes_open());
  }
  std::error_code error;
  int count = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/task", error);
       !error && it != std::filesystem::directory_iterator(); it.increment(error)) {
    ++count;
  }
  return count;
}

uint64_t ResidentBytes() {
  if (remote::PluginServer* server = CheckProcessServer()) {
    auto resident = server->ResidentBytes();
    if (resident) return *resident;
    auto reported = server->ResourcesInUse();
    return reported ? reported->resident_bytes : 0;
  }
  std::ifstream statm("/proc/self/statm");
  uint64_t size_pages = 0;
  uint64_t resident_pages = 0;
  if (!(statm >> size_pages >> resident_pages)) return 0;
  return resident_pages * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

PluginHeap PluginHeapNow() {
  if (remote::PluginServer* server = CheckProcessServer()) {
    auto heap = server->ResourcesInUse();
    if (!heap) return {};
    return {heap->malloc_bytes + heap->guarded_live_bytes, heap->guarded_allocations,
            heap->guarded_live_blocks, heap->guard_fallbacks};
  }
  const struct mallinfo2 info = ::mallinfo2();
  const auto guarded = isolation::GuardMallocCountersNow();
  return {info.uordblks + info.hblkhd + guarded.live_bytes, guarded.guarded_allocations,
          guarded.live_blocks, guarded.fallbacks};
}

}  // namespace sectl::conform
