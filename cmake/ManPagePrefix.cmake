# The man page's FILES section names installed files by absolute path, and
# only `cmake --install` (or CPack) knows the prefix they really go to. So
# cmake/RenderManPage.cmake leaves the token @SECTL_INSTALL_PREFIX@ in the
# page it renders (sectl.1.in), and this file puts the prefix in:
#
#   at build time, for the page in the build tree, with the configured
#   CMAKE_INSTALL_PREFIX:
#     cmake -DTEMPLATE=sectl.1.in -DPREFIX=/usr/local -DOUTPUT=sectl.1 -P ManPagePrefix.cmake
#
#   at install time, from install(CODE) in cmake/SectlManPage.cmake, with the
#   prefix of this install (`--prefix DIR`, or /usr when CPack packages it):
#     include(ManPagePrefix.cmake)
#     sectl_install_man_page(TEMPLATE MAN1_DIRECTORY)

# Writes `template` to `output` with the token replaced by `prefix`, its
# hyphens escaped for roff ("\-" is the hyphen a reader can copy and paste).
function(sectl_write_man_page template prefix output)
  file(READ ${template} page)
  string(REPLACE "-" "\\-" roff_prefix "${prefix}")
  string(REPLACE "@SECTL_INSTALL_PREFIX@" "${roff_prefix}" page "${page}")
  file(WRITE ${output} "${page}")
endfunction()

# Installs the page as man1_directory/sectl.1 under this install's
# CMAKE_INSTALL_PREFIX (file(INSTALL) honours DESTDIR and records the file
# in install_manifest.txt). The page is written beside the template first,
# under a random name: `cmake --install` and `cpack` may run at once.
function(sectl_install_man_page template man1_directory)
  string(RANDOM LENGTH 12 unique)
  set(staging_directory ${template}.install-${unique})
  sectl_write_man_page(${template} "${CMAKE_INSTALL_PREFIX}" ${staging_directory}/sectl.1)
  if(NOT IS_ABSOLUTE "${man1_directory}")
    set(man1_directory "${CMAKE_INSTALL_PREFIX}/${man1_directory}")
  endif()
  file(INSTALL ${staging_directory}/sectl.1 DESTINATION "${man1_directory}" TYPE FILE)
  file(REMOVE_RECURSE ${staging_directory})
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  sectl_write_man_page(${TEMPLATE} "${PREFIX}" ${OUTPUT})
endif()
