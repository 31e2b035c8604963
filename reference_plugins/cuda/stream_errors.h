// The first error a stream's host callbacks reported. CUDA knows nothing of
// them, so the plugin keeps them, for get_stream_status. Shared between the
// stream and the callbacks queued on it, which may run after the stream is
// destroyed.

#ifndef SECTL_REFERENCE_PLUGINS_CUDA_STREAM_ERRORS_H_
#define SECTL_REFERENCE_PLUGINS_CUDA_STREAM_ERRORS_H_

#include <mutex>
#include <string>

#include "tensorflow/c/tf_status.h"

namespace sectl_plugin::cuda {

struct StreamError {
  TF_Code code = TF_OK;
  std::string message;
};

class StreamErrors {
 public:
  // Keeps the first error: later ones are usually its consequences.
  void Record(TF_Code code, const std::string& message) {
    std::lock_guard lock(mutex_);
    if (first_.code == TF_OK) first_ = {code, message};
  }

  StreamError first() const {
    std::lock_guard lock(mutex_);
    return first_;
  }

 private:
  mutable std::mutex mutex_;
  StreamError first_;  // Guarded by mutex_.
};

}  // namespace sectl_plugin::cuda

#endif  // SECTL_REFERENCE_PLUGINS_CUDA_STREAM_ERRORS_H_
