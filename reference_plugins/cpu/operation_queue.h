// A FIFO of operations in a ring buffer that only grows, so that once a
// stream has warmed up, enqueueing and dequeueing never allocate.
// Not synchronized: StreamWorker guards it with its mutex.

#ifndef SECTL_REFERENCE_PLUGINS_CPU_OPERATION_QUEUE_H_
#define SECTL_REFERENCE_PLUGINS_CPU_OPERATION_QUEUE_H_

#include <cstddef>
#include <utility>
#include <vector>

#include "operations.h"

namespace sectl_plugin::cpu {

class OperationQueue {
 public:
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }

  void Push(Operation&& operation) {
    if (size_ == slots_.size()) Grow();
    slots_[(head_ + size_) & (slots_.size() - 1)] = std::move(operation);
    ++size_;
  }

  // Precondition: !empty().
  Operation Pop() {
    // Moving out leaves the slot holding no event or timer reference.
    Operation front = std::move(slots_[head_]);
    head_ = (head_ + 1) & (slots_.size() - 1);
    --size_;
    return front;
  }

 private:
  static constexpr size_t kInitialCapacity = 256;  // A power of two, as are all capacities.

  void Grow() {
    std::vector<Operation> larger(slots_.size() * 2);
    for (size_t i = 0; i < size_; ++i) {
      larger[i] = std::move(slots_[(head_ + i) & (slots_.size() - 1)]);
    }
    slots_ = std::move(larger);
    head_ = 0;
  }

  std::vector<Operation> slots_ = std::vector<Operation>(kInitialCapacity);
  size_t head_ = 0;
  size_t size_ = 0;
};

}  // namespace sectl_plugin::cpu

#endif  // SECTL_REFERENCE_PLUGINS_CPU_OPERATION_QUEUE_H_
