// The plugin a command runs on: the file named on the command line, or the
// bundled reference plugin when none is named.
#pragma once

#include <string>
#include <string_view>

#include "base/error.h"

namespace sectl::tool {

// The path of the plugin `argument` names ("x.so" is a file in the current
// directory, as dlopen would not take it), or of bundled plugin
// `bundled_name` when `argument` is empty.
//
// An argument that names no shared library at all (nothing there, a
// directory, a script, an executable, an object file) is an error with code
// kInvalidArgument: the user named the wrong file, which commands report as
// a usage error (exit 2) before any report begins. A shared library that is
// broken (truncated, built for another machine, failing to load) is the
// plugin's problem, and the command diagnoses it as before.
// The path it returns is absolute.
Expected<std::string> ChoosePluginPath(const std::string& argument, std::string_view bundled_name);

// `path` made absolute against the working directory (unchanged when it is
// absolute, empty, or the working directory is gone): plugin processes work
// in a scratch directory of their own.
std::string AbsolutePath(const std::string& path);

// The DLDeviceType --tvm-device-type names (tvm::ParseDeviceType: an
// unknown name is kInvalidArgument, listing the names accepted); when it is
// empty, the type a TVM backend library at `plugin_path` serves by its file
// name (libtvm_runtime_vulkan.so: vulkan), else cpu.
Expected<int> ChooseTvmDeviceType(const std::string& flag, const std::string& plugin_path);

}  // namespace sectl::tool
