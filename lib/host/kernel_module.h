// A plugin's kernel module, run as TensorFlow's loader runs it: after
// SE_InitPlugin, TF_InitKernel() is called once, and the kernels it
// registers go to the host's registry. sectl's host is the recording
// TensorFlow C API (lib/tf_c_api), so running the module means calling
// TF_InitKernel through the dispatch point (journalled: a crash or hang in
// it is named) and reading back what was recorded, in this process or from
// the plugin server.
#pragma once

#include <string_view>

#include "base/error.h"
#include "host/dispatcher.h"
#include "loader/plugin_library.h"
#include "tf_c_api/module_recording.h"

namespace sectl::host {

// Why the kernel module is not run when the plugin was loaded with lazy
// binding (--lazy): that is for plugins whose kernels need symbols sectl
// does not provide (TensorFlow's C++ API), and the first call of one ends
// the process in the dynamic linker.
inline constexpr std::string_view kKernelModuleNotRunLazily =
    "TF_InitKernel is not run under --lazy: its kernels may call TensorFlow functions sectl does "
    "not provide, and the first such call would end the process";

struct KernelModuleRun {
  // The plugin exports TF_InitKernel; when it does not, nothing was called
  // and the recording holds only what SE_InitPlugin may have registered.
  bool present = false;
  // Everything the plugin registered through the C API since it was
  // loaded, SE_InitPlugin's registrations included (TensorFlow keeps
  // those too).
  tf_c_api::ModuleRecording recording;
};

// Calls TF_InitKernel when the plugin exports it and reads the recording.
// An error when the call failed (it threw, or the plugin's process ended in
// it: the error and the journal name TF_InitKernel) or the recording could
// not be read.
Expected<KernelModuleRun> RunKernelModule(const loader::PluginLibrary& library,
                                          const Dispatcher& dispatcher);

}  // namespace sectl::host
