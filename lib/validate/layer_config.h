// How libsectl_validate.so is told what to do: environment variables, or a
// file beside the library for hosts where setting a variable is awkward
// (a Python service, a notebook). A variable wins over the file.
//
//   SECTL_VALIDATE_PLUGIN  the vendor plugin to load and check (required)
//   SECTL_VALIDATE_REPORT  the JSON report; default sectl-validate-%p.json
//                          in the working directory
//   SECTL_VALIDATE_TRACE   record a trace of every call to this file
//   SECTL_VALIDATE_ABORT   1: abort() at the first error, for a debugger
//   SECTL_VALIDATE_QUIET   1: no line on stderr per first finding
//
// "%p" in a path becomes the process id, so that every process of a
// multi-process workload writes its own; "%r" becomes 8 random hex digits,
// for processes whose ids repeat (every check of `sectl conform` runs as
// pid 2 of a PID namespace of its own).
// The file is sectl_validate.conf in the library's directory: one
// NAME=value per line, '#' starts a comment.
#pragma once

#include <string>

namespace sectl::validate {

struct LayerConfig {
  std::string plugin_path;
  std::string report_path;
  std::string trace_path;  // empty: no trace
  bool abort_on_error = false;
  bool announce = true;
  // Where the settings came from, for the report ("environment", or the
  // file's path).
  std::string source;
};

// The configuration as this process sees it. `library_directory` is where
// the layer itself lives (for the file).
LayerConfig ReadLayerConfig(const std::string& library_directory);

// `path` with every "%p" replaced by this process's id (followed by "-" and
// the "%r" digits in a PID namespace other than the machine's first, where
// ids repeat), "%r" by random digits.
std::string ExpandProcessId(const std::string& path);

}  // namespace sectl::validate
