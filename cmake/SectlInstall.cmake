# What `cmake --install` adds to the sectl executable and the reference
# plugins (installed where they are built), so that a vendor's plugin project
# can build against sectl and run it from its tests:
#
#   include/sectl/tensorflow/c/...   the plugin ABI headers, under sectl/ so
#                                    they cannot collide with a TensorFlow
#                                    C library's own
#   lib/cmake/sectl/                 find_package(sectl): the INTERFACE target
#                                    sectl::plugin_abi, SECTL_EXECUTABLE and
#                                    the imported executable sectl::sectl
#   lib/pkgconfig/sectl.pc           the same for pkg-config
#   share/doc/sectl/                 README, CI guide, report schema
#
# Every installed file finds the others by relative path, so the tree works
# wherever it is installed (`cmake --install build --prefix DIR`) or moved.
include(CMakePackageConfigHelpers)

foreach(directory CMAKE_INSTALL_BINDIR CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_INCLUDEDIR)
  if(IS_ABSOLUTE "${${directory}}")
    message(FATAL_ERROR "${directory} is ${${directory}}, but sectl installs a relocatable "
                        "tree: give it relative to CMAKE_INSTALL_PREFIX")
  endif()
endforeach()

set(SECTL_PACKAGE_INSTALL_DIRECTORY ${CMAKE_INSTALL_LIBDIR}/cmake/sectl)

# The headers a plugin compiles against, and the target that carries them.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/lib/abi/include/tensorflow
        DESTINATION ${SECTL_HEADER_INSTALL_DIRECTORY})
set_target_properties(sectl_plugin_abi PROPERTIES EXPORT_NAME plugin_abi)
install(TARGETS sectl_plugin_abi EXPORT sectlTargets)
install(EXPORT sectlTargets NAMESPACE sectl:: DESTINATION ${SECTL_PACKAGE_INSTALL_DIRECTORY})

# The CMake package. 0.x releases are compatible within a minor version.
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/sectlConfig.cmake.in ${PROJECT_BINARY_DIR}/sectlConfig.cmake
  INSTALL_DESTINATION ${SECTL_PACKAGE_INSTALL_DIRECTORY}
  PATH_VARS CMAKE_INSTALL_BINDIR SECTL_PLUGIN_INSTALL_DIRECTORY)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/sectlConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/sectlConfig.cmake ${PROJECT_BINARY_DIR}/sectlConfigVersion.cmake
        DESTINATION ${SECTL_PACKAGE_INSTALL_DIRECTORY})

# The pkg-config file names its prefix relative to its own directory.
file(RELATIVE_PATH SECTL_PREFIX_FROM_PKGCONFIG /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" SECTL_PREFIX_FROM_PKGCONFIG "${SECTL_PREFIX_FROM_PKGCONFIG}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/sectl.pc.in ${PROJECT_BINARY_DIR}/sectl.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/sectl.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/docs/using-sectl-in-ci.md
              ${PROJECT_SOURCE_DIR}/docs/conform-report.schema.json
              ${PROJECT_SOURCE_DIR}/docs/validation-layer.md
              ${PROJECT_SOURCE_DIR}/docs/validate-report.schema.json
              ${PROJECT_SOURCE_DIR}/docs/trace-format.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
