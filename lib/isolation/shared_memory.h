// Anonymous shared memory that a forked child writes and its parent can read
// even after the child has died: the home of an isolated run's journal.
#pragma once

#include <cstddef>
#include <new>
#include <utility>

#include "base/error.h"

namespace sectl::isolation {

class SharedMemory {
 public:
  static Expected<SharedMemory> Create(size_t bytes);

  SharedMemory() = default;
  ~SharedMemory();
  SharedMemory(SharedMemory&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  SharedMemory& operator=(SharedMemory&& other) noexcept;
  SharedMemory(const SharedMemory&) = delete;
  SharedMemory& operator=(const SharedMemory&) = delete;

  void* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  SharedMemory(void* data, size_t size) : data_(data), size_(size) {}
  void* data_ = nullptr;
  size_t size_ = 0;
};

// A value of type T constructed in shared memory of its own.
template <typename T>
class SharedObject {
 public:
  static Expected<SharedObject> Create() {
    auto memory = SharedMemory::Create(sizeof(T));
    if (!memory) return tl::unexpected(memory.error());
    return SharedObject(std::move(*memory));
  }
  T* get() const { return object_; }
  T* operator->() const { return object_; }

 private:
  explicit SharedObject(SharedMemory memory)
      : memory_(std::move(memory)), object_(new (memory_.data()) T()) {}
  SharedMemory memory_;
  T* object_;
};

}  // namespace sectl::isolation
