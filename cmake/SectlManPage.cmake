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

  set(page ${CMAKE_CURRENT_BINARY_DIR}/sectl.1)
  set(hand_written_sections ${PROJECT_SOURCE_DIR}/docs/man/sectl.h2m)
  set(renderer ${PROJECT_SOURCE_DIR}/cmake/RenderManPage.cmake)
  add_custom_command(
    OUTPUT ${page}
    COMMAND ${CMAKE_COMMAND}
            -DSECTL=$<TARGET_FILE:${executable}>
            -DHELP2MAN=${SECTL_HELP2MAN}
            -DHAND_WRITTEN_SECTIONS=${hand_written_sections}
            -DOUTPUT=${page}
            -DVERSION=${PROJECT_VERSION}
            -DSUMMARY=${SECTL_MAN_PAGE_SUMMARY}
            -DPLUGIN_DIRECTORY=${CMAKE_INSTALL_PREFIX}/${SECTL_PLUGIN_INSTALL_DIRECTORY}
            -DDOC_DIRECTORY=${CMAKE_INSTALL_FULL_DOCDIR}
            -DVALIDATION_LAYER=${CMAKE_INSTALL_FULL_LIBDIR}/libsectl_validate.so
            -P ${renderer}
    DEPENDS ${executable} ${hand_written_sections} ${renderer}
    COMMENT "Generating the man page sectl.1 from sectl --help"
    VERBATIM)
  add_custom_target(sectl_man_page ALL DEPENDS ${page})
  install(FILES ${page} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  set_property(GLOBAL PROPERTY SECTL_MAN_PAGE ${page})
endfunction()
