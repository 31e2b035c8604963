#include "tool/report_output.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

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

Expected<void> CheckReportDestination(const std::string& path, std::string_view flag) {
  if (path.empty() || path == "-") return {};
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("{} {}: is a directory; give a file name", flag, path));
  }
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  const std::string directory = parent.empty() ? "." : parent.string();
  const std::filesystem::file_status status = std::filesystem::status(directory, error);
  if (!std::filesystem::exists(status)) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("{} {}: the directory {} does not exist", flag, path, directory));
  }
  if (!std::filesystem::is_directory(status)) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("{} {}: {} is not a directory", flag, path, directory));
  }
  // The report is written to a temporary file beside `path` and renamed.
  if (::access(directory.c_str(), W_OK | X_OK) != 0) {
    return Fail(ErrorCode::kInvalidArgument, fmt::format("{} {}: cannot write in {}: {}", flag,
                                                         path, directory, std::strerror(errno)));
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
