// Where the sectl-plugin-server executable is: beside the running program
// (sectl, installed or in the build tree), else where the build put it (a
// test binary runs from another directory of the build tree).
#pragma once

#include <string>

namespace sectl::remote {

// An absolute path, or empty when there is no server to be found.
std::string PluginServerExecutable();

}  // namespace sectl::remote
