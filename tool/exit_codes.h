// sectl's exit statuses, documented in the README and `sectl --help`.
#pragma once

namespace sectl::tool {

inline constexpr int kExitSuccess = 0;
// The plugin cannot be loaded or initialised, crashed, hung, or TensorFlow
// would refuse it (probe) / it is not conformant (conform).
inline constexpr int kExitPluginProblem = 1;
// A usage error (bad flag, bad value) or an internal error of sectl.
inline constexpr int kExitUsageOrInternal = 2;

}  // namespace sectl::tool
