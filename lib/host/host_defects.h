// Defects of sectl's own host code that a check cannot see in an Error it
// gets back: a call sectl refused to make because it was about to hand the
// plugin something invalid (host/remote_arguments.h). The check may have
// read that Error as the plugin's failure; the runner reads this record
// after the check and reports `error`, blaming sectl, never the plugin.
#pragma once

#include <optional>
#include <string>

namespace sectl::host {

// Records the first such defect of this process. Thread-safe.
void NoteHostDefect(const std::string& description);

// The first defect recorded in this process, if any.
std::optional<std::string> FirstHostDefect();

}  // namespace sectl::host
