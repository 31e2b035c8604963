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
#   share/sectl/reference_plugins/   the minimal reference plugin's source,
#                                    SECTL_MINIMAL_PLUGIN_SOURCE: a plugin to
#                                    start from, and the example's stand-in
#   share/doc/sectl/                 README.md, and docs/ and examples/ beside
#                                    it as in the source tree, so the README's
#                                    relative links work where it is installed
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

# The minimal reference plugin's source: examples/plugin-project builds it
# as its stand-in plugin, wherever the example is copied.
set(SECTL_MINIMAL_PLUGIN_SOURCE ${CMAKE_INSTALL_DATADIR}/sectl/reference_plugins/minimal.c)
install(FILES ${PROJECT_SOURCE_DIR}/reference_plugins/minimal/minimal.c
        DESTINATION ${CMAKE_INSTALL_DATADIR}/sectl/reference_plugins)

# The CMake package. 0.x releases are compatible within a minor version.
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/sectlConfig.cmake.in ${PROJECT_BINARY_DIR}/sectlConfig.cmake
  INSTALL_DESTINATION ${SECTL_PACKAGE_INSTALL_DIRECTORY}
  PATH_VARS CMAKE_INSTALL_BINDIR SECTL_PLUGIN_INSTALL_DIRECTORY SECTL_MINIMAL_PLUGIN_SOURCE)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/sectlConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/sectlConfig.cmake ${PROJECT_BINARY_DIR}/sectlConfigVersion.cmake
        DESTINATION ${SECTL_PACKAGE_INSTALL_DIRECTORY})

# The pkg-config file names its prefix relative to its own directory.
file(RELATIVE_PATH SECTL_PREFIX_FROM_PKGCONFIG /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" SECTL_PREFIX_FROM_PKGCONFIG "${SECTL_PREFIX_FROM_PKGCONFIG}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/sectl.pc.in ${PROJECT_BINARY_DIR}/sectl.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/sectl.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The README and everything it links to, laid out as in the source tree.
# docs/ goes by pattern so that a new guide, schema or picture comes along;
# docs/man/ holds only the man page's sources.
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs
        FILES_MATCHING PATTERN "*.md" PATTERN "*.json" PATTERN "*.svg" PATTERN "*.png" PATTERN "*.html"
        PATTERN "man" EXCLUDE)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
