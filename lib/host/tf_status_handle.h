// RAII over the TF_Status objects the host hands to plugin calls.
#pragma once

#include <string>
#include <string_view>

#include "abi/tf_codes.h"
#include "base/text.h"
#include "tensorflow/c/tf_status.h"

namespace sectl::host {

// The most of a plugin's TF_Status message that sectl keeps.
inline constexpr size_t kMaxPluginMessage = 4096;

class TfStatusHandle {
 public:
  TfStatusHandle() : status_(TF_NewStatus()) {}
  ~TfStatusHandle() { TF_DeleteStatus(status_); }
  TfStatusHandle(const TfStatusHandle&) = delete;
  TfStatusHandle& operator=(const TfStatusHandle&) = delete;

  TF_Status* get() const { return status_; }
  TF_Code code() const { return TF_GetCode(status_); }
  bool ok() const { return code() == TF_OK; }
  // The plugin's message, cut at kMaxPluginMessage bytes (base/text.h).
  std::string message() const { return CutLongText(TF_Message(status_), kMaxPluginMessage); }

 private:
  TF_Status* status_;
};

// "OK", "INVALID_ARGUMENT", ...; "code 42" for values outside the enum.
using abi::TfCodeName;

}  // namespace sectl::host
