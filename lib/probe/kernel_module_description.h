// What probe says of a plugin's kernel module: the recording that running
// TF_InitKernel left (host/kernel_module.h), described, and judged against
// what TensorFlow does with each registration.
#pragma once

#include <string>
#include <vector>

#include "probe/probe_report.h"
#include "tf_c_api/module_recording.h"

namespace sectl::probe {

// Device types TensorFlow itself registers kernels for. A plugin's kernel
// for one of them is placed on TensorFlow's own devices, not the plugin's:
// legal, but worth a note.
bool IsTensorFlowDeviceType(const std::string& device_type);

// Describes the recording, and appends to `findings` what TensorFlow would
// make of it. `platform_type` is the device type the plugin's platform
// registers (SP_Platform.type).
KernelModuleDescription DescribeKernelModule(bool exported,
                                             const tf_c_api::ModuleRecording& recording,
                                             const std::string& platform_type,
                                             std::vector<Finding>& findings);

}  // namespace sectl::probe
