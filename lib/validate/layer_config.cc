#include "validate/layer_config.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <random>
#include <sstream>
#include <string_view>

#include "base/regular_file.h"

namespace sectl::validate {
namespace {

constexpr std::string_view kFileName = "sectl_validate.conf";

std::string_view TrimWhitespace(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const size_t last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

std::map<std::string, std::string> ReadConfigFile(const std::string& path) {
  std::map<std::string, std::string> values;
  // An unreadable file, or one that is no regular file, sets nothing, as a
  // missing one does: the layer runs inside the host and must not stop it.
  auto text = ReadRegularFile(path, kMaxTextFileBytes, "layer configuration");
  if (!text) return values;
  std::istringstream file(*text);
  std::string line;
  while (std::getline(file, line)) {
    const std::string_view text = TrimWhitespace(line);
    if (text.empty() || text.front() == '#') continue;
    const size_t equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    values[std::string(TrimWhitespace(text.substr(0, equals)))] =
        std::string(TrimWhitespace(text.substr(equals + 1)));
  }
  return values;
}

// 8 random hex digits, the same for every path of one process (so its
// report and its trace pair up), new in a forked child.
std::string ProcessToken() {
  static pid_t token_pid = 0;
  static std::string token;
  if (token_pid != ::getpid()) {
    std::random_device random;
    token = fmt::format("{:08x}", random());
    token_pid = ::getpid();
  }
  return token;
}

// Whether this process is in a PID namespace other than the machine's first
// (its inode is fixed: PROC_PID_INIT_INO). There a process id is unique
// only inside the namespace: sectl conform runs each check in a namespace
// of its own, where every check process is pid 2.
bool InChildPidNamespace() {
  constexpr ino_t kInitialPidNamespace = 0xEFFFFFFC;
  struct stat status {};
  if (::stat("/proc/self/ns/pid", &status) != 0) return false;
  return status.st_ino != kInitialPidNamespace;
}

bool IsOn(const std::string& value) { return value == "1" || value == "true" || value == "yes"; }

}  // namespace

std::string ExpandProcessId(const std::string& path) {
  std::string expanded;
  for (size_t i = 0; i < path.size(); ++i) {
    const char next = i + 1 < path.size() ? path[i + 1] : '\0';
    if (path[i] == '%' && next == 'p') {
      expanded += std::to_string(::getpid());
      if (InChildPidNamespace()) expanded += "-" + ProcessToken();
      ++i;
    } else if (path[i] == '%' && next == 'r') {
      expanded += ProcessToken();
      ++i;
    } else {
      expanded += path[i];
    }
  }
  return expanded;
}

LayerConfig ReadLayerConfig(const std::string& library_directory) {
  const std::string file_path = library_directory + "/" + std::string(kFileName);
  const std::map<std::string, std::string> file = ReadConfigFile(file_path);
  bool used_file = false;
  const auto setting = [&](const char* name) -> std::string {
    if (const char* value = std::getenv(name)) return value;
    const auto found = file.find(name);
    if (found == file.end()) return {};
    used_file = true;
    return found->second;
  };
  LayerConfig config;
  config.plugin_path = setting("SECTL_VALIDATE_PLUGIN");
  const std::string report = setting("SECTL_VALIDATE_REPORT");
  config.report_path = ExpandProcessId(report.empty() ? "sectl-validate-%p.json" : report);
  config.trace_path = ExpandProcessId(setting("SECTL_VALIDATE_TRACE"));
  config.abort_on_error = IsOn(setting("SECTL_VALIDATE_ABORT"));
  config.announce = !IsOn(setting("SECTL_VALIDATE_QUIET"));
  config.source = used_file ? file_path : "environment";
  return config;
}

}  // namespace sectl::validate
