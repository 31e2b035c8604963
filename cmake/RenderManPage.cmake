# Renders sectl.1 with help2man. Run by the build (cmake -P), see
# cmake/SectlManPage.cmake, which passes:
#   SECTL                   the sectl executable just built
#   HELP2MAN                the help2man program
#   HAND_WRITTEN_SECTIONS   docs/man/sectl.h2m, with @PLACEHOLDERS@
#   OUTPUT                  the page to write
#   VERSION, SUMMARY        for the page's footer and NAME line
#   PLUGIN_DIRECTORY, DOC_DIRECTORY, VALIDATION_LAYER   install paths the FILES section names,
#                           starting with the token @SECTL_INSTALL_PREFIX@ that
#                           cmake/ManPagePrefix.cmake replaces by the install prefix
#
# help2man reads only the top-level `sectl --help`, which lists subcommands
# but not their options. So each subcommand's own --help is rendered by
# help2man too (its --help-option runs `sectl SUBCOMMAND --help`), and those
# pages become the COMMANDS section, handed to the final run as an include.

# Runs a command; stops the build with its error output if it fails.
function(run_or_stop output_variable)
  execute_process(COMMAND ${ARGN}
                  OUTPUT_VARIABLE output ERROR_VARIABLE error RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    string(JOIN " " command ${ARGN})
    message(FATAL_ERROR "man page: '${command}' failed (${status}): ${error}")
  endif()
  set(${output_variable} "${output}" PARENT_SCOPE)
endfunction()

# The subcommands `sectl WORDS... --help` lists, e.g. "probe;conform;report"
# for no WORDS, "memcpy;latency" for "bench".
function(list_subcommands output_variable)
  run_or_stop(help ${SECTL} ${ARGN} --help)
  string(FIND "${help}" "\nSubcommands:\n" listing_start)
  if(listing_start EQUAL -1)
    set(${output_variable} "" PARENT_SCOPE)
    return()
  endif()
  string(SUBSTRING "${help}" ${listing_start} -1 listing)
  # Each entry starts "  NAME  description"; wrapped descriptions are
  # indented further, so they do not match.
  string(REGEX MATCHALL "\n  [a-z][a-z0-9-]*" entries "${listing}")
  string(REPLACE "\n  " "" names "${entries}")
  set(${output_variable} ${names} PARENT_SCOPE)
endfunction()

# help2man needs two spaces between an option and its description. CLI11
# pads option names to column 30 and leaves a single space when a name ends
# at column 29 ("--timeout FLOAT:POSITIVE=30 Seconds..."). So help2man runs
# sectl through this wrapper, which widens exactly that one space.
function(write_help_wrapper output_variable)
  set(wrapper_directory ${OUTPUT}.d)
  file(MAKE_DIRECTORY ${wrapper_directory})
  file(WRITE ${wrapper_directory}/sectl
       "#!/bin/sh\n"
       "'${SECTL}' \"$@\" | sed 's/^\\(  [^ ].\\{25\\}[^ ]\\) \\([^ ]\\)/\\1  \\2/'\n")
  file(CHMOD ${wrapper_directory}/sectl PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
       GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  set(${output_variable} ${wrapper_directory}/sectl PARENT_SCOPE)
endfunction()

# A subcommand's help as a subsection of COMMANDS, followed by those of its
# own subcommands ("bench", then "bench memcpy", ...). Each is help2man's page
# for `sectl WORDS... --help` from its SYNOPSIS on, with sections turned into
# paragraphs under a bold label.
function(render_subcommand words output_variable)
  string(JOIN " " command ${words})
  run_or_stop(page ${HELP2MAN} --no-info --name=${command} "--version-string=sectl ${command}"
              "--help-option=${command} --help" ${HELP_WRAPPER})
  string(FIND "${page}" "\n.SH SYNOPSIS\n" synopsis_start)
  if(synopsis_start EQUAL -1)
    message(FATAL_ERROR "man page: `sectl ${command} --help` has no Usage line")
  endif()
  string(LENGTH "\n.SH SYNOPSIS" synopsis_heading_length)
  math(EXPR synopsis_start "${synopsis_start} + ${synopsis_heading_length}")
  string(SUBSTRING "${page}" ${synopsis_start} -1 body)
  # help2man italicises every word after the program name; the subcommand is
  # literal text, so bold.
  string(REPLACE "\\fI\\,${command} \\/\\fR" "\\fB${command}\\fR " body "${body}")
  string(REPLACE "\n.SH DESCRIPTION\n" "\n.PP\n" body "${body}")
  string(REPLACE "\n.SH OPTIONS\n" "\n.PP\n.B Options:\n" body "${body}")
  string(REGEX REPLACE "\n\\.SS \"([^\"]*)\"" "\n.PP\n.B \\1" body "${body}")
  string(REGEX REPLACE "\n\\.SH ([^\n]*)" "\n.PP\n.B \\1" body "${body}")
  string(PREPEND body "\n.SS \"${command}\"")

  list_subcommands(children ${words})
  foreach(child ${children})
    render_subcommand("${words};${child}" rendered_child)
    string(APPEND body "${rendered_child}")
  endforeach()
  set(${output_variable} "${body}" PARENT_SCOPE)
endfunction()

# sectl wraps its help at $COLUMNS (80 through a pipe): one width, so that
# the page does not depend on the shell that ran the build (troff fills the
# paragraphs again anyway).
set(ENV{COLUMNS} 80)
write_help_wrapper(HELP_WRAPPER)
list_subcommands(subcommands)
set(commands_section
    "[COMMANDS]\nEach subcommand has options of its own; \\fBsectl\\fR \\fIsubcommand\\fR \\fB\\-\\-help\\fR prints them as below.\n")
foreach(subcommand ${subcommands})
  render_subcommand(${subcommand} rendered)
  string(APPEND commands_section "${rendered}")
endforeach()

# The hand-written sections, with the real version line and install paths.
run_or_stop(version_output ${SECTL} --version)
string(STRIP "${version_output}" SECTL_VERSION_LINE)
string(REPLACE "\\" "\\e" SECTL_VERSION_LINE "${SECTL_VERSION_LINE}")
foreach(path PLUGIN_DIRECTORY DOC_DIRECTORY VALIDATION_LAYER)
  string(REPLACE "-" "\\-" ${path} "${${path}}")  # roff's hyphen
endforeach()
file(READ ${HAND_WRITTEN_SECTIONS} hand_written)
string(CONFIGURE "${hand_written}" hand_written @ONLY)

set(include_file ${OUTPUT}.h2m)
file(WRITE ${include_file} "${commands_section}\n${hand_written}")
run_or_stop(ignored ${HELP2MAN} --no-info "--name=${SUMMARY}" "--source=sectl ${VERSION}"
            --include=${include_file} --output=${OUTPUT}.tmp ${HELP_WRAPPER})
file(RENAME ${OUTPUT}.tmp ${OUTPUT})
