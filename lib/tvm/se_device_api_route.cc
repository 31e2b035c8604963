#include "tvm/se_device_api_route.h"

#include <chrono>
#include <thread>

namespace sectl::tvm {
namespace {

DeviceApi::Place ToAdapter(const Place& place) {
  return {place.side == Side::kHost ? DeviceApi::Side::kHost : DeviceApi::Side::kDevice,
          place.pointer, place.offset};
}

StreamHandle ToAdapter(RouteStream stream) { return static_cast<host::Stream*>(stream); }

class StreamExecutorRoute final : public DeviceApiRoute {
 public:
  StreamExecutorRoute(host::Platform& platform, int device_type)
      : api_(platform), device_type_(device_type) {}

  std::string Describe() const override {
    return "a StreamExecutor plugin through sectl's DeviceAPI adapter";
  }
  int device_type() const override { return device_type_; }
  bool IsTvmRuntime() const override { return false; }

  Expected<AttrValue> GetAttr(int device_id, DeviceAttrKind kind) override {
    return api_.GetAttr(device_id, kind);
  }
  Expected<void*> AllocDataSpace(int device_id, size_t bytes, size_t alignment) override {
    return api_.AllocDataSpace(device_id, bytes, alignment);
  }
  Expected<void> FreeDataSpace(int device_id, void* pointer) override {
    return api_.FreeDataSpace(device_id, pointer);
  }
  Expected<void*> AllocWorkspace(int device_id, size_t bytes) override {
    return api_.AllocWorkspace(device_id, bytes);
  }
  Expected<void> FreeWorkspace(int device_id, void* pointer) override {
    return api_.FreeWorkspace(device_id, pointer);
  }
  Expected<void> CopyDataFromTo(const Place& from, const Place& to, size_t bytes, int device_id,
                                RouteStream stream) override {
    return api_.CopyDataFromTo(ToAdapter(from), ToAdapter(to), bytes, device_id, ToAdapter(stream));
  }
  Expected<RouteStream> CreateStream(int device_id) override {
    auto stream = api_.CreateStream(device_id);
    if (!stream) return tl::unexpected(stream.error());
    return static_cast<RouteStream>(*stream);
  }
  Expected<void> FreeStream(int device_id, RouteStream stream) override {
    return api_.FreeStream(device_id, ToAdapter(stream));
  }
  // StreamExecutor has no current stream: every copy names its stream, as
  // TVM's DeviceAPI::SetStream default (a no-op before tvm-ffi) allows.
  Expected<void> SetStream(int /*device_id*/, RouteStream /*stream*/) override { return {}; }
  Expected<void> StreamSync(int device_id, RouteStream stream) override {
    return api_.StreamSync(device_id, ToAdapter(stream));
  }
  Expected<void> SyncStreamFromTo(int device_id, RouteStream from, RouteStream to) override {
    return api_.SyncStreamFromTo(device_id, ToAdapter(from), ToAdapter(to));
  }
  // A host callback that sleeps: the plugin's own way to hold a stream.
  Expected<void> HoldUpStream(int /*device_id*/, RouteStream stream) override {
    if (stream == nullptr) {
      return Fail(ErrorCode::kInvalidArgument, "HoldUpStream needs a stream from CreateStream");
    }
    auto callback = ToAdapter(stream)->EnqueueHostCallback(
        [](TF_Status*) { std::this_thread::sleep_for(std::chrono::milliseconds(100)); });
    if (!callback) return tl::unexpected(callback.error());
    return {};
  }

 private:
  DeviceApi api_;
  int device_type_;
};

}  // namespace

std::unique_ptr<DeviceApiRoute> MakeStreamExecutorRoute(host::Platform& platform, int device_type) {
  return std::make_unique<StreamExecutorRoute>(platform, device_type);
}

}  // namespace sectl::tvm
