// The allocator entry points of a sectl executable (see allocation_watch.h):
// glibc's own, counted while a thread has a watch open. Linked into the
// executable only; a dynamic list (interposed_allocator.list) exports them,
// so plugins loaded later bind to these, as glibc's documentation on
// replacing malloc describes.
//
// Not compiled under AddressSanitizer or ThreadSanitizer: their runtimes
// define these functions themselves.
#include <cerrno>
#include <cstddef>
#include <cstdint>

#include "isolation/guard_malloc.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define SECTL_SANITIZER_OWNS_MALLOC 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SECTL_SANITIZER_OWNS_MALLOC 1
#endif

#if !defined(SECTL_SANITIZER_OWNS_MALLOC) && defined(__GLIBC__)

// glibc's own allocator entry points, which it exports for exactly this use.
// NOLINTBEGIN(bugprone-reserved-identifier)
extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* pointer, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
void __libc_free(void* pointer);
}
// NOLINTEND(bugprone-reserved-identifier)

namespace {

// Plain thread-locals in the executable: initial-exec TLS, which never
// allocates, so malloc may touch them.
__attribute__((tls_model("initial-exec"))) thread_local bool watching = false;
__attribute__((tls_model("initial-exec"))) thread_local uint64_t allocations = 0;
__attribute__((tls_model("initial-exec"))) thread_local uint64_t frees = 0;

inline void CountAllocation() {
  if (watching) ++allocations;
}

using sectl::isolation::GuardedAllocate;
using sectl::isolation::GuardedFree;
using sectl::isolation::GuardedReallocate;

bool IsPowerOfTwo(size_t value) { return value != 0 && (value & (value - 1)) == 0; }

}  // namespace

extern "C" {

void sectl_allocation_watch_begin() {
  allocations = 0;
  frees = 0;
  watching = true;
}

void sectl_allocation_watch_end(uint64_t* allocation_count, uint64_t* free_count) {
  watching = false;
  *allocation_count = allocations;
  *free_count = frees;
}

void* malloc(size_t size) {
  CountAllocation();
  if (void* guarded = GuardedAllocate(size, 1, __builtin_return_address(0))) return guarded;
  return __libc_malloc(size);
}

void* calloc(size_t count, size_t size) {
  CountAllocation();
  // Guarded pages are fresh from the kernel: already zero.
  if (size_t bytes = 0; !__builtin_mul_overflow(count, size, &bytes)) {
    if (void* guarded = GuardedAllocate(bytes, 1, __builtin_return_address(0))) return guarded;
  }
  return __libc_calloc(count, size);
}

void* realloc(void* pointer, size_t size) {
  CountAllocation();
  const void* caller = __builtin_return_address(0);
  if (void* moved = nullptr; GuardedReallocate(pointer, size, caller, &moved)) return moved;
  if (pointer == nullptr) {
    if (void* guarded = GuardedAllocate(size, 1, caller)) return guarded;
  }
  return __libc_realloc(pointer, size);
}

void free(void* pointer) {
  if (watching && pointer != nullptr) ++frees;
  if (GuardedFree(pointer)) return;
  __libc_free(pointer);
}

void* memalign(size_t alignment, size_t size) {
  CountAllocation();
  if (void* guarded = GuardedAllocate(size, alignment, __builtin_return_address(0))) {
    return guarded;
  }
  return __libc_memalign(alignment, size);
}

void* aligned_alloc(size_t alignment, size_t size) {
  CountAllocation();
  if (void* guarded = GuardedAllocate(size, alignment, __builtin_return_address(0))) {
    return guarded;
  }
  return __libc_memalign(alignment, size);
}

int posix_memalign(void** out, size_t alignment, size_t size) {
  if (!IsPowerOfTwo(alignment) || alignment % sizeof(void*) != 0) return EINVAL;
  CountAllocation();
  void* pointer = GuardedAllocate(size, alignment, __builtin_return_address(0));
  if (pointer == nullptr) pointer = __libc_memalign(alignment, size);
  if (pointer == nullptr) return ENOMEM;
  *out = pointer;
  return 0;
}

}  // extern "C"

#endif
