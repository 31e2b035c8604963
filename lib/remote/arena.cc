#include "remote/arena.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace sectl::remote {
namespace {

constexpr size_t kPage = 4096;
constexpr size_t kAlignment = 64;

// Where arenas go: above where the kernel puts a new process's program and
// heap, below its libraries and stack, so a server that has just started
// has nothing there. A random page within it, tried a few times.
constexpr uintptr_t kRegionStart = uintptr_t{0x2000} << 32;
constexpr uintptr_t kRegionPages = (uintptr_t{0x1000} << 32) / kPage;
constexpr int kTries = 16;

size_t RoundUp(size_t bytes, size_t to) { return (bytes + to - 1) / to * to; }

// The arena is placed by number, the same in both processes.
void* AtAddress(uintptr_t address) {
  return reinterpret_cast<void*>(address);  // NOLINT(performance-no-int-to-ptr)
}

}  // namespace

Expected<Arena> Arena::Create(size_t bytes) {
  const size_t size = RoundUp(bytes, kPage);
  const int descriptor = ::memfd_create("sectl-arena", MFD_CLOEXEC);
  if (descriptor < 0 || ::ftruncate(descriptor, static_cast<off_t>(size)) != 0) {
    const int error = errno;
    if (descriptor >= 0) ::close(descriptor);
    return Fail(ErrorCode::kInternal,
                fmt::format("cannot create the plugin arena: {}", strerrorname_np(error)));
  }
  for (int attempt = 0; attempt < kTries; ++attempt) {
    uint64_t random = 0;
    if (::getrandom(&random, sizeof(random), 0) != sizeof(random)) break;
    const uintptr_t wanted = kRegionStart + (random % (kRegionPages - size / kPage)) * kPage;
    void* mapped = ::mmap(AtAddress(wanted), size, PROT_READ | PROT_WRITE,
                          MAP_SHARED | MAP_FIXED_NOREPLACE, descriptor, 0);
    if (mapped != MAP_FAILED) return Arena(descriptor, reinterpret_cast<uintptr_t>(mapped), size);
  }
  ::close(descriptor);
  return Fail(ErrorCode::kInternal, "cannot map the plugin arena: no free place for it");
}

Expected<Arena> Arena::Adopt(int descriptor, uintptr_t base, size_t bytes) {
  void* mapped = ::mmap(AtAddress(base), bytes, PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_FIXED_NOREPLACE, descriptor, 0);
  if (mapped == MAP_FAILED || reinterpret_cast<uintptr_t>(mapped) != base) {
    return Fail(ErrorCode::kInternal, fmt::format("cannot map the plugin arena at {:#x}: {}", base,
                                                  strerrorname_np(errno)));
  }
  return Arena(descriptor, base, bytes);
}

Arena::Arena(int descriptor, uintptr_t base, size_t size)
    : descriptor_(descriptor), base_(base), size_(size) {
  free_[base_] = size_;
}

Arena::Arena(Arena&& other) noexcept
    : descriptor_(std::exchange(other.descriptor_, -1)),
      base_(std::exchange(other.base_, 0)),
      size_(std::exchange(other.size_, 0)),
      free_(std::move(other.free_)),
      used_(std::move(other.used_)) {}

Arena::~Arena() {
  if (base_ != 0) ::munmap(AtAddress(base_), size_);
  if (descriptor_ >= 0) ::close(descriptor_);
}

bool Arena::Contains(const void* address, size_t bytes) const {
  const auto start = reinterpret_cast<uintptr_t>(address);
  return start >= base_ && start < base_ + size_ && bytes <= base_ + size_ - start;
}

void* Arena::Allocate(size_t bytes) {
  const size_t needed = RoundUp(bytes == 0 ? 1 : bytes, kAlignment);
  const std::lock_guard<std::mutex> held(mutex_);
  for (auto range = free_.begin(); range != free_.end(); ++range) {
    if (range->second < needed) continue;
    const uintptr_t start = range->first;
    const size_t left = range->second - needed;
    free_.erase(range);
    if (left > 0) free_[start + needed] = left;
    used_[start] = needed;
    void* memory = AtAddress(start);
    std::memset(memory, 0, needed);
    return memory;
  }
  return nullptr;
}

void Arena::Free(void* address) {
  if (address == nullptr) return;
  const std::lock_guard<std::mutex> held(mutex_);
  const auto used = used_.find(reinterpret_cast<uintptr_t>(address));
  if (used == used_.end()) return;
  uintptr_t start = used->first;
  size_t size = used->second;
  used_.erase(used);
  // Coalesced with its free neighbours.
  auto after = free_.lower_bound(start);
  if (after != free_.end() && after->first == start + size) {
    size += after->second;
    after = free_.erase(after);
  }
  if (after != free_.begin()) {
    auto before = std::prev(after);
    if (before->first + before->second == start) {
      start = before->first;
      size += before->second;
      free_.erase(before);
    }
  }
  free_[start] = size;
}

}  // namespace sectl::remote
