// Where a subcommand's report goes: stdout, or a file written atomically.
#pragma once

#include <string>

#include "base/error.h"

namespace sectl::tool {

// Writes `text` to `path`, or to stdout when `path` is empty or "-".
Expected<void> WriteReport(const std::string& path, const std::string& text);

// Whether stdout is a terminal that wants colour (honours NO_COLOR).
bool StdoutWantsColor();

}  // namespace sectl::tool
