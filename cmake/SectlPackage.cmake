# A Debian package of what `cmake --install` installs, made in the build
# directory by
#
#   cpack -G DEB              # writes sectl_VERSION_ARCH.deb here
#   cpack -G DEB -B DIR       # or into DIR
#
# It installs under /usr: /usr/bin/sectl, the bundled plugins in
# /usr/lib/sectl/plugins, the man page, and the README with docs/ and
# examples/ in /usr/share/doc/sectl. CPack installs into a staging directory
# with DESTDIR and CMAKE_INSTALL_PREFIX=/usr, so the man page names /usr.
# tests/deb_test.sh builds the package and runs sectl from it.

set(CPACK_PACKAGE_NAME sectl)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "conformance and diagnostics for TensorFlow StreamExecutor C API device plugins")
# The long description, after the summary line; dpkg wants lines of at most
# 80 columns.
string(JOIN "\n" CPACK_PACKAGE_DESCRIPTION
       "sectl loads a TensorFlow PluggableDevice plugin, a shared object exporting"
       "SE_InitPlugin, into an embedded host runtime, without TensorFlow, and"
       "checks it: sectl probe describes the plugin, sectl conform runs the"
       "conformance checks with table, JSON and JUnit reports, sectl bench measures"
       "its copies. With the StreamExecutor C API headers, a CMake package and a"
       "pkg-config file to build plugins against, and the validation layer"
       "libsectl_validate.so.")
set(SECTL_PACKAGE_MAINTAINER "sectl maintainers <maintainers@sectl.invalid>"
    CACHE STRING "The Maintainer field of the .deb made by cpack -G DEB (Name <email>)")
set(CPACK_PACKAGE_CONTACT "${SECTL_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${SECTL_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # sectl_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# The build has debug information; a package, like Debian's own, does not.
set(CPACK_STRIP_FILES ON)

# The runtime libraries sectl and its plugins link. dpkg-shlibdeps (package
# dpkg-dev) works them out with their minimum versions; without it, these
# are Debian 12's packages for the libraries cmake/SectlDependencies.cmake
# finds.
find_program(SECTL_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(SECTL_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  string(JOIN ", " CPACK_DEBIAN_PACKAGE_DEPENDS
         libc6 libgcc-s1 libstdc++6 libfmt9 libpugixml1v5 libseccomp2 libssl3 libutf8proc2
         libxxhash0)
endif()

include(CPack)
