#include "tool/confinement_flags.h"

#include <fmt/format.h>

#include "base/byte_sizes.h"
#include "tool/number_flags.h"
#include "tool/plugin_argument.h"

namespace sectl::tool {

void AddConfinementFlags(CLI::App& command, ConfinementFlags& flags) {
  command.add_option("--memory-limit", flags.memory_limit,
                     "Address space of each plugin process, e.g. 512MiB; an allocation past it "
                     "fails and the result says so");
  command
      .add_option("--cpu-limit", flags.cpu_limit_seconds,
                  "CPU seconds of each plugin process before it is killed (SIGXCPU)")
      ->check(WholeNumberBetween(1, static_cast<int64_t>(kMaxFlagSeconds)));
  command.add_option("--pass-env", flags.pass_env,
                     "Also give the plugin this environment variable (repeatable); by default it "
                     "sees only PATH, HOME, TMPDIR, LANG, LANGUAGE, LC_*, TZ and SECTL_VALIDATE_* "
                     "(the validation layer's settings)");
  command.add_option("--plugin-writes", flags.plugin_writes,
                     "A file the plugin's process must be able to write, such as a log or "
                     "coverage data, or a directory (repeatable): its directory stays writable "
                     "in the plugin's otherwise read-only view. Where sectl runs as "
                     "root, plugins run as nobody, unless nobody cannot read the plugin or write "
                     "these; then as root without capabilities, and the report says why");
  command.add_flag("--no-namespaces", flags.no_namespaces,
                   "Run plugin processes in sectl's own PID and mount namespaces; by default "
                   "each gets new ones where the kernel allows, so that it can neither see nor "
                   "signal any other process");
}

Expected<isolation::Confinement> ConfinementFromFlags(const ConfinementFlags& flags,
                                                      std::vector<std::string> plugin_files) {
  isolation::Confinement confinement;
  std::erase(plugin_files, std::string());
  confinement.plugin_files = std::move(plugin_files);
  for (const std::string& path : flags.plugin_writes) {
    if (path.empty()) return Fail(ErrorCode::kInvalidArgument, "--plugin-writes: an empty path");
    confinement.plugin_writes.push_back(AbsolutePath(path));
  }
  if (!flags.memory_limit.empty()) {
    auto bytes = ParseByteSize(flags.memory_limit);
    if (!bytes) {
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("--memory-limit: {}", bytes.error().message()));
    }
    confinement.memory_limit_bytes = *bytes;
    confinement.memory_limit_label = flags.memory_limit;
  }
  confinement.cpu_limit_seconds = flags.cpu_limit_seconds;
  for (const std::string& name : flags.pass_env) {
    if (name.empty() || name.find('=') != std::string::npos) {
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("--pass-env: '{}' is not a variable name", name));
    }
  }
  confinement.passed_environment = flags.pass_env;
  confinement.namespaces = !flags.no_namespaces;
  return confinement;
}

}  // namespace sectl::tool
