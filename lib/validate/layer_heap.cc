#include "validate/layer_heap.h"

#include <sys/mman.h>
#include <unistd.h>

#include <new>

namespace sectl::validate {
namespace {

size_t PageSize() {
  static const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return page;
}

size_t RoundUpToPages(size_t bytes) {
  const size_t page = PageSize();
  return (bytes + page - 1) / page * page;
}

}  // namespace

void* GuardedMappingResource::do_allocate(size_t bytes, size_t alignment) {
  const size_t page = PageSize();
  if (alignment > page || bytes > (size_t{1} << 40)) throw std::bad_alloc();
  const size_t usable = RoundUpToPages(bytes == 0 ? 1 : bytes);
  // The whole span inaccessible first, then its inside opened: the fences
  // on both sides stay PROT_NONE.
  void* span = ::mmap(nullptr, usable + 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (span == MAP_FAILED) throw std::bad_alloc();
  auto* inside = static_cast<std::byte*>(span) + page;
  if (::mprotect(inside, usable, PROT_READ | PROT_WRITE) != 0) {
    ::munmap(span, usable + 2 * page);
    throw std::bad_alloc();
  }
  const std::lock_guard lock(mutex_);
  mapped_bytes_ += usable;
  return inside;
}

void GuardedMappingResource::do_deallocate(void* pointer, size_t bytes, size_t /*alignment*/) {
  const size_t page = PageSize();
  const size_t usable = RoundUpToPages(bytes == 0 ? 1 : bytes);
  ::munmap(static_cast<std::byte*>(pointer) - page, usable + 2 * page);
  const std::lock_guard lock(mutex_);
  mapped_bytes_ -= usable;
}

bool GuardedMappingResource::do_is_equal(const std::pmr::memory_resource& other) const noexcept {
  return this == &other;
}

size_t GuardedMappingResource::mapped_bytes() const {
  const std::lock_guard lock(mutex_);
  return mapped_bytes_;
}

std::pmr::memory_resource* LayerHeap() {
  // Placed in static storage and never destroyed (see the header).
  alignas(GuardedMappingResource) static std::byte mappings_storage[sizeof(GuardedMappingResource)];
  alignas(std::pmr::synchronized_pool_resource) static std::byte
      pools_storage[sizeof(std::pmr::synchronized_pool_resource)];
  // NOLINTBEGIN(cppcoreguidelines-owning-memory): placed, never freed (above)
  static auto* const mappings = ::new (mappings_storage) GuardedMappingResource();
  static auto* const pools = ::new (pools_storage) std::pmr::synchronized_pool_resource(
      std::pmr::pool_options{.max_blocks_per_chunk = 0, .largest_required_pool_block = 4096},
      mappings);
  // NOLINTEND(cppcoreguidelines-owning-memory)
  return pools;
}

}  // namespace sectl::validate
