// Tools that checks share: recognisable data, host buffers fenced by
// inaccessible pages, and counts of the process's threads and memory.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <thread>
#include <vector>

#include "abi/plugin_functions.h"

namespace sectl::conform {

class CheckContext;

// Skips the check when the plugin lacks any of `needed`. A missing required
// member is reported once, by registration.required_callbacks; the checks
// that would need it step aside rather than fail a second time.
void SkipUnlessProvided(CheckContext& check, std::initializer_list<abi::PluginFunction> needed);

// Polls `done` until it holds or `limit` passes; returns whether it held.
// For checks waiting on what a plugin does on its own threads.
template <typename Condition>
bool WaitUntil(Condition done, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return true;
}

// Bytes that differ from position to position and from `seed` to `seed`, so
// that a copy from the wrong offset or a stale buffer is visible.
std::vector<unsigned char> TestPattern(size_t size, unsigned seed = 0);

// "" when equal; else "byte 12 reads back as 0x00, 0x5a was written".
std::string FirstDifference(const unsigned char* expected, const unsigned char* actual,
                            size_t size);

// Host memory that ends exactly where a PROT_NONE page begins, with another
// inaccessible page in front of its first page: a plugin that reads or
// writes past the end of the buffer it was given (or far before it)
// crashes on the spot, and the crash is attributed to its call.
class GuardedHostBuffer {
 public:
  explicit GuardedHostBuffer(size_t size);
  ~GuardedHostBuffer();
  GuardedHostBuffer(const GuardedHostBuffer&) = delete;
  GuardedHostBuffer& operator=(const GuardedHostBuffer&) = delete;

  unsigned char* data() const { return data_; }
  size_t size() const { return size_; }
  // False if the mapping failed (the check should report an error).
  bool ok() const { return mapping_ != nullptr; }

 private:
  void* mapping_ = nullptr;
  size_t mapping_size_ = 0;
  unsigned char* data_ = nullptr;
  size_t size_;
};

// The number of threads in this process (from /proc/self/task).
int ThreadCount();

// This process's resident memory in bytes (from /proc/self/statm); 0 if unknown.
uint64_t ResidentBytes();

}  // namespace sectl::conform
