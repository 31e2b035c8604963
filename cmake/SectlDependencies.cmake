# Finds sectl's dependencies, all from Debian packages through find_package.
# A missing one stops configuration with the name of the package to install.

function(sectl_require_package package_name debian_package)
  find_package(${package_name} ${ARGN} QUIET)
  if(NOT ${package_name}_FOUND)
    message(FATAL_ERROR
      "sectl needs ${package_name}, which was not found. "
      "On Debian or Ubuntu install it with: apt-get install ${debian_package}")
  endif()
endfunction()

sectl_require_package(CLI11 libcli11-dev CONFIG)
sectl_require_package(fmt libfmt-dev CONFIG)
sectl_require_package(nlohmann_json nlohmann-json3-dev CONFIG)
sectl_require_package(tl-expected libexpected-dev CONFIG)
sectl_require_package(OpenSSL libssl-dev)
sectl_require_package(pugixml libpugixml-dev CONFIG)
sectl_require_package(Threads libc6-dev)
# utf8proc ships only pkg-config metadata. find_package(PkgConfig) must run
# in this scope (not inside the function above) for pkg_check_modules.
find_package(PkgConfig QUIET)
if(NOT PkgConfig_FOUND)
  message(FATAL_ERROR "sectl needs pkg-config, which was not found. "
    "On Debian or Ubuntu install it with: apt-get install pkg-config")
endif()
pkg_check_modules(utf8proc QUIET IMPORTED_TARGET libutf8proc)
if(NOT utf8proc_FOUND)
  message(FATAL_ERROR "sectl needs utf8proc, which was not found. "
    "On Debian or Ubuntu install it with: apt-get install libutf8proc-dev")
endif()
# XXH3, the checksum a trace keeps of copied bytes (lib/trace/checksum.h).
pkg_check_modules(xxhash QUIET IMPORTED_TARGET libxxhash)
if(NOT xxhash_FOUND)
  message(FATAL_ERROR "sectl needs xxhash, which was not found. "
    "On Debian or Ubuntu install it with: apt-get install libxxhash-dev")
endif()
# DLPack's header (DLDevice, DLTensor, DLDataType), the types TVM's C entry
# points take (lib/tvm/device_api_route.h). Header-only, no CMake package.
find_path(DLPACK_INCLUDE_DIR dlpack/dlpack.h)
if(NOT DLPACK_INCLUDE_DIR)
  message(FATAL_ERROR "sectl needs DLPack's header dlpack/dlpack.h, which was not found. "
    "On Debian or Ubuntu install it with: apt-get install libdlpack-dev")
endif()
add_library(sectl_dlpack INTERFACE)
target_include_directories(sectl_dlpack SYSTEM INTERFACE ${DLPACK_INCLUDE_DIR})
if(SECTL_BUILD_TESTS)
  sectl_require_package(GTest libgtest-dev)
  # Headless chromium opens the HTML reports in tests/html_browser_test.cc,
  # found on PATH when the test runs; without it that test skips, saying so.
  find_program(SECTL_CHROMIUM chromium)
  if(NOT SECTL_CHROMIUM)
    message(STATUS "chromium not found: html_browser_test will skip. "
                   "On Debian or Ubuntu install it with: apt-get install chromium")
  endif()
endif()
if(SECTL_BUILD_BENCHMARKS)
  sectl_require_package(benchmark libbenchmark-dev CONFIG)
endif()
