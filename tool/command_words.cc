#include "tool/command_words.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "base/edit_distance.h"

namespace sectl::tool {
namespace {

const CLI::App* SubcommandNamed(const CLI::App& app, const std::string& name) {
  for (const CLI::App* subcommand : app.get_subcommands({})) {
    if (subcommand->get_name() == name) return subcommand;
  }
  return nullptr;
}

// Subcommands of `app` within two edits of `word`, or that it starts.
std::vector<std::string> NearCommands(const CLI::App& app, const std::string& word) {
  std::vector<std::string> near;
  for (const CLI::App* subcommand : app.get_subcommands({})) {
    const std::string& name = subcommand->get_name();
    if (EditDistance(word, name) <= 2 || name.rfind(word, 0) == 0) {
      near.push_back(fmt::format("'{}'", name));
    }
  }
  return near;
}

}  // namespace

CommandWords ReadCommandWords(const CLI::App& app, std::vector<std::string> arguments) {
  if (!arguments.empty() && arguments.front() == "help") {
    arguments.erase(arguments.begin());
    arguments.emplace_back("--help");
  }
  // Follow the command words down while each names a command; a word where
  // a command is required but none is named is the mistake.
  const CLI::App* command = &app;
  std::string path = app.get_name();
  for (const std::string& word : arguments) {
    if (word.empty() || word.front() == '-') break;
    if (const CLI::App* subcommand = SubcommandNamed(*command, word)) {
      command = subcommand;
      path += " " + word;
      continue;
    }
    if (command->get_require_subcommand_min() == 0) break;  // an argument, e.g. a plugin
    const std::vector<std::string> near = NearCommands(*command, word);
    return {{},
            fmt::format("'{}' is not a {} command; {} (see '{} --help')", word, path,
                        near.empty() ? std::string("no command is close to it")
                                     : fmt::format("did you mean {}?", fmt::join(near, " or ")),
                        path)};
  }
  return {std::move(arguments), std::nullopt};
}

const CLI::App& SubcommandReached(const CLI::App& app) {
  const CLI::App* command = &app;
  for (;;) {
    const std::vector<const CLI::App*> parsed =
        command->get_subcommands([](const CLI::App* subcommand) { return subcommand->parsed(); });
    if (parsed.empty()) return *command;
    command = parsed.front();
  }
}

std::string CommandReached(const CLI::App& app) {
  std::string path = app.get_name();
  for (const CLI::App* command = &SubcommandReached(app); command != &app;
       command = command->get_parent()) {
    path.insert(app.get_name().size(), " " + command->get_name());
  }
  return path;
}

}  // namespace sectl::tool
