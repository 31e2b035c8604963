// What sectl makes of its command words before and after CLI11 parses them,
// so that a mistyped or asked-about command gets a useful answer:
//   sectl help                  the top-level help
//   sectl help bench memcpy     the same as sectl bench memcpy --help
//   sectl prob                  "'prob' is not a sectl command; did you mean
//                               'probe'?" rather than CLI11's "A subcommand
//                               is required"
// and a bad flag is pointed at its own command's --help.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace sectl::tool {

struct CommandWords {
  std::vector<std::string> arguments;  // what to parse: argv without argv[0]
  std::optional<std::string> error;    // a one-line usage error instead
};

// `arguments` (argv without argv[0]) with `help` rewritten, or the error
// for a command word that names no command of `app`.
CommandWords ReadCommandWords(const CLI::App& app, std::vector<std::string> arguments);

// The deepest subcommand the command line reached (`app` itself if none).
const CLI::App& SubcommandReached(const CLI::App& app);
// "sectl conform": the path to that subcommand, for messages.
std::string CommandReached(const CLI::App& app);

}  // namespace sectl::tool
