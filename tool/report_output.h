// Where a subcommand's report goes: stdout, or a file written atomically.
#pragma once

#include <string>
#include <string_view>

#include "base/error.h"

namespace sectl::tool {

// Writes `text` to `path`, or to stdout when `path` is empty or "-".
Expected<void> WriteReport(const std::string& path, const std::string& text);

// Whether WriteReport(path, ...) could create `path`: its directory exists
// and sectl may write in it, and `path` is not a directory. Checked before
// a long run, so that a typo in -o costs no measurement. Errors have code
// kInvalidArgument and name `flag` ("-o").
Expected<void> CheckReportDestination(const std::string& path, std::string_view flag);

// Whether stdout is a terminal that wants colour (honours NO_COLOR).
bool StdoutWantsColor();

}  // namespace sectl::tool
