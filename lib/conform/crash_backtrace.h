// A crash's backtrace as a plugin author wants to read it. The raw one
// (backtrace_symbols_fd in the crashing check's process) begins with
// sectl's signal handler, ends with twenty frames of sectl's own check code
// down to main, and gives a plugin frame as "Symbol+0x16", which addr2line
// cannot take. Here the handler's frames are dropped, every frame is
// "module+0xOFFSET" relative to where the module was loaded (for the
// plugin, computed from its symbol table when the frame names a symbol),
// and sectl's frames below the plugin's are folded into one line.
#pragma once

#include <string>
#include <vector>

namespace sectl::conform {

// `frames` as backtrace_symbols_fd wrote them, one per line, crash site
// first; `plugin_path` the plugin's file. Lines that do not parse are kept
// as they are.
std::vector<std::string> ReadableBacktrace(const std::vector<std::string>& frames,
                                           const std::string& plugin_path);

}  // namespace sectl::conform
