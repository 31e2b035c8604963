# Sanitizer and fuzzing builds. sectl runs other people's plugins and reads
# files that CI systems hand it, so its own code is tested under
# AddressSanitizer + UndefinedBehaviorSanitizer and ThreadSanitizer, and its
# readers of untrusted input are fuzzed. CMakePresets.json names the
# combinations (asan, tsan, fuzz); these options are what the presets set.
#
#   SECTL_SANITIZE        "address;undefined" or "thread" (empty: none)
#   SECTL_BUILD_FUZZERS   libFuzzer targets for every reader of untrusted input
#
# The flags apply to everything built here, the reference and faulty plugins
# included: a plugin built with ASan needs the ASan runtime in its host
# process, and the sanitized sectl executable and tests provide it (clang
# exports the runtime's symbols from an executable linked with it).

set(SECTL_SANITIZE "" CACHE STRING "Sanitizers to build with: address;undefined, or thread")
option(SECTL_BUILD_FUZZERS "Build libFuzzer targets (needs clang)" OFF)

if(SECTL_SANITIZE)
  if("thread" IN_LIST SECTL_SANITIZE AND "address" IN_LIST SECTL_SANITIZE)
    message(FATAL_ERROR "SECTL_SANITIZE: ThreadSanitizer and AddressSanitizer cannot be combined")
  endif()
  list(JOIN SECTL_SANITIZE "," sectl_sanitizer_list)
  # Frame pointers give whole stacks in reports. A finding must fail the
  # test that made it, so undefined behaviour aborts instead of printing on.
  add_compile_options(-fsanitize=${sectl_sanitizer_list} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${sectl_sanitizer_list})
  if("undefined" IN_LIST SECTL_SANITIZE)
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
  # sectl's tests and children ask whether they run sanitized, to give a
  # sanitizer's own signal handlers and reports their due (see
  # isolation/sanitizer_runtime.h).
  add_compile_definitions(SECTL_SANITIZED=1)
endif()

if(SECTL_BUILD_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "SECTL_BUILD_FUZZERS needs clang (libFuzzer); configure with "
                        "CMAKE_CXX_COMPILER=clang++-14, or use the fuzz preset")
  endif()
  # Coverage feedback from every library a fuzz target reaches; the targets
  # themselves link libFuzzer's main with -fsanitize=fuzzer (fuzz/).
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
