#include "tvm/allocation_watch.h"

#include <cstdlib>
#include <memory>

// Defined by allocation_interposer.cc in executables that link it; weak, so
// that elsewhere they are null and the watch reports itself unavailable.
extern "C" {
__attribute__((weak)) void sectl_allocation_watch_begin();
__attribute__((weak)) void sectl_allocation_watch_end(uint64_t* allocations, uint64_t* frees);
}

namespace sectl::tvm {

std::optional<std::string> AllocationWatchUnavailable() {
  if (sectl_allocation_watch_begin == nullptr || sectl_allocation_watch_end == nullptr) {
    return "this sectl executable does not interpose the allocator (a sanitizer build, whose "
           "runtime owns malloc, or a test binary without allocation_interposer)";
  }
  // Prove the interposition works here: an allocation of sectl's own, through
  // a pointer the compiler cannot see through, must be counted.
  void* (*volatile allocate)(size_t) = &std::malloc;
  AllocationWatch watch;
  const std::unique_ptr<void, decltype(&std::free)> probe(allocate(24), &std::free);
  const auto counts = watch.Stop();
  if (counts.allocations == 0) {
    return "the allocator interposer is linked but saw no allocation: this process's malloc is "
           "not the executable's";
  }
  return std::nullopt;
}

AllocationWatch::AllocationWatch() {
  if (sectl_allocation_watch_begin != nullptr) {
    sectl_allocation_watch_begin();
    running_ = true;
  }
}

AllocationWatch::~AllocationWatch() { Stop(); }

AllocationWatch::Counts AllocationWatch::Stop() {
  if (running_) {
    sectl_allocation_watch_end(&counts_.allocations, &counts_.frees);
    running_ = false;
  }
  return counts_;
}

}  // namespace sectl::tvm
