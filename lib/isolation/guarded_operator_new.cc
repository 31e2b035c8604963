// The C++ allocation functions of a sectl executable, so that a C++ plugin's
// `new` is guarded like its malloc (isolation/guard_malloc.h). A plugin's
// call to operator new otherwise reaches malloc from inside libstdc++, whose
// code is sectl's as far as the guard can tell; defined here, the plugin
// binds to these (guarded_operator_new.list exports them) and the guard
// sees the plugin's own return address.
//
// Linked into the executable only, with the allocator interposer; not
// compiled under sanitizers, whose runtimes define these functions.
#include <cstdlib>
#include <new>

#include "isolation/guard_malloc.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define SECTL_SANITIZER_OWNS_NEW 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SECTL_SANITIZER_OWNS_NEW 1
#endif

#if !defined(SECTL_SANITIZER_OWNS_NEW) && defined(__GLIBC__)

// These are the allocator: manual memory management is their job.
// NOLINTBEGIN(cppcoreguidelines-no-malloc,cppcoreguidelines-owning-memory)
namespace {

// operator new's contract: never null; call the new-handler until memory
// comes or there is no handler, then throw.
void* NewOrThrow(std::size_t size, const void* caller) {
  if (size == 0) size = 1;
  if (void* guarded = sectl::isolation::GuardedAllocate(size, 1, caller)) return guarded;
  while (true) {
    if (void* block = std::malloc(size)) return block;
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) throw std::bad_alloc();
    handler();
  }
}

void* NewOrNull(std::size_t size, const void* caller) noexcept {
  try {
    return NewOrThrow(size, caller);
  } catch (...) {
    return nullptr;
  }
}

}  // namespace

// NOLINTBEGIN(misc-new-delete-overloads,cert-dcl54-cpp,hicpp-new-delete-operators)
void* operator new(std::size_t size) { return NewOrThrow(size, __builtin_return_address(0)); }
void* operator new[](std::size_t size) { return NewOrThrow(size, __builtin_return_address(0)); }
void* operator new(std::size_t size, const std::nothrow_t& /*unused*/) noexcept {
  return NewOrNull(size, __builtin_return_address(0));
}
void* operator new[](std::size_t size, const std::nothrow_t& /*unused*/) noexcept {
  return NewOrNull(size, __builtin_return_address(0));
}
// free() knows guarded blocks from glibc's (allocation_interposer.cc).
void operator delete(void* pointer) noexcept { std::free(pointer); }
void operator delete[](void* pointer) noexcept { std::free(pointer); }
void operator delete(void* pointer, std::size_t /*size*/) noexcept { std::free(pointer); }
void operator delete[](void* pointer, std::size_t /*size*/) noexcept { std::free(pointer); }
void operator delete(void* pointer, const std::nothrow_t& /*unused*/) noexcept {
  std::free(pointer);
}
void operator delete[](void* pointer, const std::nothrow_t& /*unused*/) noexcept {
  std::free(pointer);
}
// NOLINTEND(misc-new-delete-overloads,cert-dcl54-cpp,hicpp-new-delete-operators)
// NOLINTEND(cppcoreguidelines-no-malloc,cppcoreguidelines-owning-memory)

#endif
