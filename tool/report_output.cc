#include "tool/report_output.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/atomic_file.h"

namespace sectl::tool {

Expected<void> WriteReport(const std::string& path, const std::string& text) {
  if (!path.empty() && path != "-") return WriteFileAtomically(path, text);
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0) {
    return Fail(ErrorCode::kIoError, fmt::format("cannot write the report to standard output: {}",
                                                 std::strerror(errno)));
  }
  return {};
}

bool StdoutWantsColor() {
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && no_color[0] != '\0') return false;
  const char* term = std::getenv("TERM");
  if (term != nullptr && std::string_view(term) == "dumb") return false;
  return ::isatty(STDOUT_FILENO) != 0;
}

}  // namespace sectl::tool
