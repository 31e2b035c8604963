// A contiguous 1-D uint8 DLTensor over `bytes` at a Place: how both TVM
// runtime routes hand a flat copy to TVM, whose copies check both sides'
// byte sizes and contiguity and then copy data + byte_offset on each side.
#pragma once

#include <dlpack/dlpack.h>

#include <cstddef>
#include <cstdint>

#include "tvm/device_api_route.h"

namespace sectl::tvm {

// Not copyable or movable: the tensor points at its own shape.
class ByteTensor {
 public:
  ByteTensor(const Place& place, size_t bytes, DLDevice device)
      : shape_(static_cast<int64_t>(bytes)) {
    tensor_.data = place.pointer;
    tensor_.device = place.side == Side::kHost ? DLDevice{kDLCPU, 0} : device;
    tensor_.ndim = 1;
    tensor_.dtype = DLDataType{kDLUInt, 8, 1};
    tensor_.shape = &shape_;
    tensor_.strides = nullptr;
    tensor_.byte_offset = place.offset;
  }
  ~ByteTensor() = default;
  ByteTensor(const ByteTensor&) = delete;
  ByteTensor& operator=(const ByteTensor&) = delete;
  ByteTensor(ByteTensor&&) = delete;
  ByteTensor& operator=(ByteTensor&&) = delete;

  DLTensor* get() { return &tensor_; }

 private:
  int64_t shape_;
  DLTensor tensor_{};
};

}  // namespace sectl::tvm
