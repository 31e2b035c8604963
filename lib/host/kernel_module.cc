#include "host/kernel_module.h"

#include "tf_c_api/recorded_registrations.h"

namespace sectl::host {
namespace {

using InitKernelFunction = void (*)();

Expected<tf_c_api::ModuleRecording> ReadRecording(const loader::PluginLibrary& library) {
  remote::PluginServer* server = library.server();
  if (server == nullptr) return tf_c_api::RecordedSoFar();
  auto text = server->ReadRecording(tf_c_api::kMaxRecordingJsonBytes);
  if (!text) return tl::unexpected(text.error());
  return tf_c_api::RecordingFromJson(*text);
}

}  // namespace

Expected<KernelModuleRun> RunKernelModule(const loader::PluginLibrary& library,
                                          const Dispatcher& dispatcher) {
  KernelModuleRun run;
  auto address = library.ModuleEntryPoint(abi::PluginFunction::kInitKernel);
  if (!address) return tl::unexpected(address.error());
  run.present = *address != 0;
  if (run.present) {
    // NOLINTNEXTLINE(performance-no-int-to-ptr): the plugin's entry point, maybe in the server
    auto called = dispatcher.CallInitKernel(reinterpret_cast<InitKernelFunction>(*address));
    if (!called) return tl::unexpected(called.error());
  }
  auto recording = ReadRecording(library);
  if (!recording) return tl::unexpected(recording.error());
  run.recording = std::move(*recording);
  return run;
}

}  // namespace sectl::host
