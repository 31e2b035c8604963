// sectl's stand-ins for TensorFlow's shared libraries
// (lib/tf_c_api/tensorflow_stand_in.c): empty libraries with the SONAMEs
// libtensorflow_framework.so.2 and _pywrap_tensorflow_internal.so, which
// most real plugins name as needed. Loaded before a plugin, in whichever
// process loads it, they meet that need by name, as TensorFlow's
// installation does when TensorFlow loads the plugin; the TF_* functions
// the plugin resolves come from the host executable.
#pragma once

#include <string>
#include <vector>

#include "base/error.h"

namespace sectl::loader {

// The stand-ins' absolute paths: installed (or built) beside the running
// program as ../lib/sectl/tensorflow/, else where the build put them (a
// test binary runs from another directory of the build tree). Empty when
// neither has them: a plugin that needs them then fails to load, saying
// which library it needs.
std::vector<std::string> TensorFlowStandIns();

// Loads the stand-ins into this process, once. An error when one is there
// and cannot be loaded: sectl's own defect, not the plugin's.
Expected<void> LoadTensorFlowStandIns();

}  // namespace sectl::loader
