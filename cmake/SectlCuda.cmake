# The CUDA toolkit is optional. When it is found, sectl also builds the
# reference CUDA plugin (reference_plugins/cuda), the raw CUDA baseline
# (bench/cuda_baseline) and their tests; without it, everything else builds
# and tests exactly as before. Only the toolkit is needed to build: the
# plugin links the CUDA runtime statically and loads without a driver or GPU.
#
# Sets SECTL_HAVE_CUDA. Point CUDAToolkit_ROOT at a toolkit that is not on
# the usual paths (/usr/local/cuda, nvcc on PATH).

option(SECTL_WITH_CUDA "Build the CUDA reference plugin and baseline if a CUDA toolkit is found"
       ON)
set(SECTL_HAVE_CUDA OFF)
if(NOT SECTL_WITH_CUDA)
  message(STATUS "sectl: CUDA plugin and baseline not built (SECTL_WITH_CUDA is OFF)")
  return()
endif()

find_package(CUDAToolkit QUIET)
if(CUDAToolkit_FOUND AND TARGET CUDA::cudart_static)
  set(SECTL_HAVE_CUDA ON)
  message(STATUS "sectl: CUDA toolkit ${CUDAToolkit_VERSION} found in ${CUDAToolkit_BIN_DIR}: "
                 "building the sectl_cuda plugin and sectl-cuda-baseline")
else()
  message(STATUS "sectl: no CUDA toolkit found: the sectl_cuda plugin, sectl-cuda-baseline and "
                 "their tests are not built (set CUDAToolkit_ROOT to use one)")
endif()
