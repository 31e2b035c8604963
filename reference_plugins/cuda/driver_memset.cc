#include "driver_memset.h"

#include <cuda.h>
#include <cudaTypedefs.h>

#include "cuda_status.h"

namespace sectl_plugin::cuda {
namespace {

// The two driver functions used here. cuMemsetD32Async has not changed since
// CUDA 3.2; asking for the version of the CUDA we build with returns the
// variant whose signature these typedefs describe.
struct DriverFunctions {
  PFN_cuMemsetD32Async_v3020 memset_d32_async = nullptr;
  PFN_cuGetErrorName_v6000 get_error_name = nullptr;
  std::string lookup_error;  // why memset_d32_async is null
};

template <typename Function>
std::string LookUp(const char* symbol, Function& function) {
  void* address = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  const cudaError_t error =
      cudaGetDriverEntryPointByVersion(symbol, &address, CUDART_VERSION, cudaEnableDefault, &found);
  if (error != cudaSuccess) {
    return std::string("cudaGetDriverEntryPointByVersion(") + symbol +
           ") failed: " + DescribeCudaError(error);
  }
  if (found != cudaDriverEntryPointSuccess || address == nullptr) {
    return std::string("the CUDA driver does not provide ") + symbol;
  }
  function = reinterpret_cast<Function>(address);
  return {};
}

// Looked up once per process, on first use.
const DriverFunctions& Driver() {
  static const DriverFunctions functions = [] {
    DriverFunctions found;
    found.lookup_error = LookUp("cuMemsetD32Async", found.memset_d32_async);
    LookUp("cuGetErrorName", found.get_error_name);
    return found;
  }();
  return functions;
}

std::string DescribeDriverError(CUresult result) {
  const char* name = nullptr;
  if (Driver().get_error_name != nullptr &&
      Driver().get_error_name(result, &name) == CUDA_SUCCESS && name != nullptr) {
    return name;
  }
  return "CUresult " + std::to_string(static_cast<int>(result));
}

}  // namespace

std::string EnqueueMemsetWords(void* destination, uint32_t pattern, size_t words,
                               cudaStream_t stream) {
  const DriverFunctions& driver = Driver();
  if (driver.memset_d32_async == nullptr) return driver.lookup_error;
  // A cudaStream_t is a CUstream, and device pointers are the same numbers
  // to the runtime and the driver (unified virtual addressing).
  const CUresult result =
      driver.memset_d32_async(static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(destination)),
                              pattern, words, static_cast<CUstream>(stream));
  if (result == CUDA_SUCCESS) return {};
  return "cuMemsetD32Async failed: " + DescribeDriverError(result);
}

}  // namespace sectl_plugin::cuda
