// Finding the reference plugins shipped with sectl, relative to the
// executable, in the build tree and in an installed tree alike.
#pragma once

#include <string>

#include "base/error.h"

namespace sectl::tool {

// The path of bundled plugin `name` (e.g. "sectl_cpu"), or an error saying
// where it was looked for.
Expected<std::string> BundledPluginPath(const std::string& name);

}  // namespace sectl::tool
