#include "remote/arena_resource.h"

#include <new>

namespace sectl::remote {

namespace {
// What Arena::Allocate guarantees.
constexpr size_t kArenaAlignment = 64;
// Slack after every block, as malloc leaves between its chunks: a plugin
// that writes a few bytes past a host buffer (a check that tests for that
// puts the buffer against a guard page instead) must not corrupt the next
// buffer, where another check's thread would see the damage as its own.
constexpr size_t kSlackBytes = 64;
}  // namespace

void* ArenaResource::do_allocate(size_t bytes, size_t alignment) {
  if (alignment > kArenaAlignment) throw std::bad_alloc();
  // A zero-byte request still gets an address of its own (the slack).
  void* block = arena_.Allocate(bytes + kSlackBytes);
  if (block == nullptr) throw std::bad_alloc();
  return block;
}

void ArenaResource::do_deallocate(void* address, size_t /*bytes*/, size_t /*alignment*/) {
  arena_.Free(address);
}

}  // namespace sectl::remote
