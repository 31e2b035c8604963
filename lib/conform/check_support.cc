#include "conform/check_support.h"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "conform/check_context.h"
#include "host/memory.h"
#include "host/stream.h"

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

namespace {

// The copy route's size: long enough that an asynchronous plugin is still
// copying while the check looks (milliseconds), small enough for any device.
constexpr size_t kBusyCopyBytes = size_t{16} << 20;

}  // namespace

struct BusyWork::State {
  Route route = Route::kHostCallback;
  std::chrono::milliseconds duration{0};
  std::atomic<bool> callback_returned{false};
  // The copy route: what went to the device, and where it comes back.
  host::DeviceMemory device_buffer;
  std::vector<unsigned char> sent;
  std::shared_ptr<std::vector<unsigned char>> landing;

  bool finished() const {
    if (route == Route::kHostCallback) return callback_returned.load();
    // Read while the plugin may still be writing: a torn read only delays
    // the moment the bytes are seen equal.
    return std::memcmp(landing->data(), sent.data(), sent.size()) == 0;
  }
};

namespace {

// Landing buffers of copies that had not arrived when their BusyWork went:
// a plugin may still write them, so they live as long as the process.
std::mutex abandoned_mutex;
std::vector<std::shared_ptr<std::vector<unsigned char>>>& AbandonedLandings() {
  static std::vector<std::shared_ptr<std::vector<unsigned char>>> landings;
  return landings;
}

}  // namespace

BusyWork::BusyWork(CheckContext& check, host::Stream& stream, std::chrono::milliseconds duration)
    : stream_(stream), state_(std::make_shared<State>()) {
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
  for (PluginFunction needed : {PluginFunction::kMemcpyHtoD, PluginFunction::kMemcpyDtoH}) {
    if (check.platform().Provides(needed) && !check.Avoids(needed)) continue;
    check.Blocked(
        check.platform().Provides(PluginFunction::kHostCallback) ? PluginFunction::kHostCallback
                                                                 : needed,
        fmt::format("this check keeps a stream busy with a host callback or, failing that, a "
                    "long copy, and neither works here ({} is missing or failed)",
                    abi::QualifiedName(needed)));
  }
  state_->route = Route::kCopy;
  state_->device_buffer =
      check.Require(check.device().Allocate(kBusyCopyBytes), "allocate (to keep a stream busy)");
  state_->sent = TestPattern(kBusyCopyBytes, 11);
  state_->landing = std::make_shared<std::vector<unsigned char>>(state_->sent);
  for (unsigned char& byte : *state_->landing) byte = static_cast<unsigned char>(~byte);
  check.Require(
      stream.MemcpyHtoD(state_->device_buffer.base(), state_->sent.data(), state_->sent.size()),
      "memcpy_htod (to keep a stream busy)");
  check.Require(
      stream.MemcpyDtoH(state_->landing->data(), state_->device_buffer.base(), state_->sent.size()),
      "memcpy_dtoh (to keep a stream busy)");
}

BusyWork::~BusyWork() {
  if (state_->route != Route::kCopy || state_->finished()) return;
  (void)stream_.BlockHostUntilDone();
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
  if (state_->route == Route::kHostCallback) {
    return fmt::format("a host callback sleeping {} ms", state_->duration.count());
  }
  return fmt::format("a copy of {} MiB to the device and back", kBusyCopyBytes >> 20);
}

abi::PluginFunction BusyWork::StalledFunction() const {
  return state_->route == Route::kHostCallback ? abi::PluginFunction::kHostCallback
                                               : abi::PluginFunction::kMemcpyDtoH;
}

std::vector<unsigned char> TestPattern(size_t size, unsigned seed) {
  std::vector<unsigned char> bytes(size);
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
  if (mapping_ != nullptr) ::munmap(mapping_, mapping_size_);
}

int ThreadCount() {
  std::error_code error;
  int count = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/task", error);
       !error && it != std::filesystem::directory_iterator(); it.increment(error)) {
    ++count;
  }
  return count;
}

uint64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size_pages = 0;
  uint64_t resident_pages = 0;
  if (!(statm >> size_pages >> resident_pages)) return 0;
  return resident_pages * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

}  // namespace sectl::conform
