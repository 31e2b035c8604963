// The stream made current for each device (TVMSetStream, tvm-ffi's
// TVMFFIEnvSetStream), shared by both device cores: a record only, which
// neither core consults when it copies.
#include <map>
#include <mutex>
#include <utility>

#include "device_core.h"

namespace reference_runtime {
namespace {

std::mutex current_mutex;
std::map<std::pair<int, int>, void*> current_streams;  // by (device type, id)

}  // namespace

void* CurrentStream(int device_type, int device_id) {
  std::lock_guard<std::mutex> lock(current_mutex);
  auto found = current_streams.find({device_type, device_id});
  return found == current_streams.end() ? nullptr : found->second;
}

void RecordCurrentStream(int device_type, int device_id, void* stream) {
  std::lock_guard<std::mutex> lock(current_mutex);
  current_streams[{device_type, device_id}] = stream;
}

void ForgetCurrentStream(void* stream) {
  std::lock_guard<std::mutex> lock(current_mutex);
  for (auto& [device, current] : current_streams) {
    if (current == stream) current = nullptr;
  }
}

}  // namespace reference_runtime
