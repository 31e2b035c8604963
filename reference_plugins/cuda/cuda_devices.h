// Finding the CUDA devices, and saying plainly why there are none.

#ifndef SECTL_REFERENCE_PLUGINS_CUDA_CUDA_DEVICES_H_
#define SECTL_REFERENCE_PLUGINS_CUDA_CUDA_DEVICES_H_

#include "tensorflow/c/tf_status.h"

namespace sectl_plugin::cuda {

// Sets `count` to the number of CUDA devices this process may use (after
// CUDA_VISIBLE_DEVICES) and returns true; or, when there are none, sets
// `status` to an UNAVAILABLE error that names the cause ("no CUDA driver: ...",
// "no CUDA device: ...") and returns false.
bool CountDevices(int* count, TF_Status* status);

// Whether each of the first `count` devices can allocate managed memory.
bool AllSupportManagedMemory(int count);

}  // namespace sectl_plugin::cuda

#endif  // SECTL_REFERENCE_PLUGINS_CUDA_CUDA_DEVICES_H_
