# The man page sectl.1, generated at build time by help2man from what sectl
# really prints: `sectl --help`, every subcommand's --help, `sectl --version`
# (see cmake/RenderManPage.cmake), plus the hand-written sections in
# docs/man/sectl.h2m. So the page cannot drift from the program.
#
# help2man is a Debian package. Without it the page is left out, and
# configuration says which package to install; everything else still builds.

find_program(SECTL_HELP2MAN help2man)

# The NAME line: "sectl - <this>".
set(SECTL_MAN_PAGE_SUMMARY
    "conformance and diagnostics for accelerator device plugins (TensorFlow StreamExecutor C API)")

# The absolute path of an installed file or directory, `relative_path` under
# the install prefix, as the page names it: with the token that
# cmake/ManPagePrefix.cmake replaces by the prefix.
function(sectl_man_page_path output_variable relative_path)
  if(IS_ABSOLUTE "${relative_path}")
    set(${output_variable} "${relative_path}" PARENT_SCOPE)
  else()
    set(${output_variable} "@SECTL_INSTALL_PREFIX@/${relative_path}" PARENT_SCOPE)
  endif()
endfunction()

# sectl_add_man_page(EXECUTABLE): builds sectl.1 in this directory's binary
# directory, installs it into man1, and records its path in the global
# property SECTL_MAN_PAGE (empty when help2man is missing).
function(sectl_add_man_page executable)
  if(NOT SECTL_HELP2MAN)
    message(STATUS "help2man not found: the man page sectl.1 is not built. "
                   "On Debian or Ubuntu install it with: apt-get install help2man")
    set_property(GLOBAL PROPERTY SECTL_MAN_PAGE "")
    return()
  endif()

  # The page names install paths; the prefix goes in when it is known (see
  # cmake/ManPagePrefix.cmake). The page in the build tree names the
  # configured CMAKE_INSTALL_PREFIX; the installed page, the prefix of the
  # install.
  set(template ${CMAKE_CURRENT_BINARY_DIR}/sectl.1.in)
  set(page ${CMAKE_CURRENT_BINARY_DIR}/sectl.1)
  set(hand_written_sections ${PROJECT_SOURCE_DIR}/docs/man/sectl.h2m)
  set(renderer ${PROJECT_SOURCE_DIR}/cmake/RenderManPage.cmake)
  set(prefixer ${PROJECT_SOURCE_DIR}/cmake/ManPagePrefix.cmake)
  sectl_man_page_path(plugin_directory ${SECTL_PLUGIN_INSTALL_DIRECTORY})
  sectl_man_page_path(doc_directory ${CMAKE_INSTALL_DOCDIR})
  sectl_man_page_path(validation_layer ${CMAKE_INSTALL_LIBDIR}/libsectl_validate.so)
  add_custom_command(
    OUTPUT ${template} ${page}
    COMMAND ${CMAKE_COMMAND}
            -DSECTL=$<TARGET_FILE:${executable}>
            -DHELP2MAN=${SECTL_HELP2MAN}
            -DHAND_WRITTEN_SECTIONS=${hand_written_sections}
            -DOUTPUT=${template}
            -DVERSION=${PROJECT_VERSION}
            -DSUMMARY=${SECTL_MAN_PAGE_SUMMARY}
            -DPLUGIN_DIRECTORY=${plugin_directory}
            -DDOC_DIRECTORY=${doc_directory}
            -DVALIDATION_LAYER=${validation_layer}
            -P ${renderer}
    COMMAND ${CMAKE_COMMAND} -DTEMPLATE=${template} -DPREFIX=${CMAKE_INSTALL_PREFIX}
            -DOUTPUT=${page} -P ${prefixer}
    DEPENDS ${executable} ${hand_written_sections} ${renderer} ${prefixer}
    COMMENT "Generating the man page sectl.1 from sectl --help"
    VERBATIM)
  add_custom_target(sectl_man_page ALL DEPENDS ${page})
  set_property(GLOBAL APPEND PROPERTY SECTL_INSTALLED_TARGETS sectl_man_page)
  install(CODE "include([[${prefixer}]])
                sectl_install_man_page([[${template}]] [[${CMAKE_INSTALL_MANDIR}/man1]])")
  set_property(GLOBAL PROPERTY SECTL_MAN_PAGE ${page})
endfunction()
