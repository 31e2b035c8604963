// The flags that say how a report for people looks, shared by conform,
// report, probe and bench: --color and --quiet, and what they, the
// environment and the terminal come to (colour, the width to wrap at).
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <string>

namespace sectl::tool {

struct OutputFlags {
  std::string color = "auto";  // --color: auto, always or never
  bool quiet = false;          // --quiet, where a command offers it
};

// Adds --color=auto|always|never. A value outside these is a usage error
// (exit status 2) before anything runs.
void AddColorFlag(CLI::App& command, OutputFlags& flags);

// Adds -q,--quiet: the failures, errors and warnings, and the verdict only.
void AddQuietFlag(CLI::App& command, OutputFlags& flags);

// How a table report written to `output` ("" or "-": stdout) is laid out.
struct TableLayout {
  bool color = false;
  size_t width = 0;  // columns to wrap at; 0: do not wrap
};

// Colour: --color always or never, or on auto when the report goes to
// stdout, stdout is a terminal and neither NO_COLOR nor TERM=dumb says no.
// Width: stdout's terminal's, else $COLUMNS, for a report on stdout; a
// report written to a file is never wrapped.
TableLayout ChooseTableLayout(const OutputFlags& flags, const std::string& output);

}  // namespace sectl::tool
