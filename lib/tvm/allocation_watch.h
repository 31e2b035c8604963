// Counting the heap allocations plugin code makes while a hook runs: the
// RFC promises that the C Device API hooks never allocate (the application
// provides all storage).
//
// How: the sectl executable links allocation_interposer.cc, which defines
// malloc, calloc, realloc, free, posix_memalign, aligned_alloc and memalign
// and forwards each to glibc's own (__libc_malloc, ...). A symbol defined in
// the executable wins over libc's for every library in the process, so the
// plugin, and the C++ runtime it calls into, reach these definitions with no
// LD_PRELOAD and no patching of the plugin. They count only on a thread that
// has a watch open, so sectl behaves exactly as before everywhere else.
// Executables without the interposer (unit tests, sanitizer builds, whose
// runtime owns malloc) report the watch unavailable, and the check skips.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace sectl::tvm {

// Why allocations cannot be counted in this process, or nullopt when they
// can (the interposer is linked and a test allocation was seen).
std::optional<std::string> AllocationWatchUnavailable();

// Counts this thread's allocations and frees from construction to
// destruction (or Stop). Watches do not nest.
class AllocationWatch {
 public:
  AllocationWatch();
  ~AllocationWatch();
  AllocationWatch(const AllocationWatch&) = delete;
  AllocationWatch& operator=(const AllocationWatch&) = delete;

  struct Counts {
    uint64_t allocations = 0;  // malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign
    uint64_t frees = 0;
  };
  Counts Stop();

 private:
  bool running_ = false;
  Counts counts_;
};

}  // namespace sectl::tvm
