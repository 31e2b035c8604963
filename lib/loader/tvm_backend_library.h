// TVM's backend libraries, from v0.25 on (libtvm_runtime_opencl.so,
// libtvm_runtime_vulkan.so, ...): they export no TVM* function and no
// SE_InitPlugin, but need TVM's core (DT_NEEDED libtvm_runtime.so and
// libtvm_ffi.so) and register their DeviceAPI ("device_api.vulkan") in the
// core's global table from a static initialiser when loaded. Recognised
// from the file alone; loaded so that the core is found even where the
// dynamic linker would not find it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "loader/exported_symbols.h"

namespace sectl::loader {

// Whether a DT_NEEDED name is TVM's core: libtvm_runtime*.so*, libtvm_ffi*.so*.
bool IsTvmCoreLibraryName(std::string_view file_name);

struct TvmBackendLibrary {
  std::vector<std::string> core_libraries;  // its DT_NEEDED names of TVM's core
  // The device type name its file name says it serves ("vulkan" for
  // libtvm_runtime_vulkan.so); "" when the name says none.
  std::string served_name;
};

// A library that exports neither SE_InitPlugin nor any TVM* function and
// needs TVM's core is a TVM backend library; anything else is not.
std::optional<TvmBackendLibrary> RecogniseTvmBackendLibrary(
    const std::string& path, const std::vector<std::string>& exported_functions,
    const DynamicDependencies& dependencies);

// The same, read from the file; nullopt also for a file that cannot be read.
std::optional<TvmBackendLibrary> ReadTvmBackendLibrary(const std::string& path);

// "vulkan" for ".../libtvm_runtime_vulkan.so" (or .so.0.26); "" otherwise.
std::string BackendNameFromFileName(const std::string& path);

// The backend libraries beside a core library (libtvm_runtime_*.so in its
// directory), sorted; empty for a file that is itself a backend library.
std::vector<std::string> BackendLibrariesBeside(const std::string& core_path);

// After dlopen of `path` failed with `dlerror_text` naming a missing TVM
// core library: loads the core (and any core library it needs in turn) from
// `tvm_core` (--tvm-core: the file, or where its name says) or else from
// the directory of `path`, and opens `path` again with `mode`. The handle,
// or one line naming what is missing and --tvm-core. Nothing is done (and
// nullopt answered) when the missing library is not TVM's core.
std::optional<Expected<void*>> OpenBesideTvmCore(const std::string& path, int mode,
                                                 const std::string& tvm_core,
                                                 const std::string& dlerror_text);

// Loads --tvm-core before a backend library, so that the backend's DT_NEEDED
// on the core names the file the user chose (it must carry that SONAME).
Expected<void> PreloadTvmCore(const std::string& tvm_core, int mode);

// The library glibc's dlerror text says was not found ("libx.so: cannot open
// shared object file"), or "".
std::string MissingLibraryIn(const std::string& dlerror_text);

}  // namespace sectl::loader
