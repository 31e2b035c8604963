// `sectl explain [CHECK_ID...]`: what a conformance check establishes, why
// it has its severity, how plugins get it wrong and how to fix them, and
// which faulty plugin proves it. The text comes from the check's own
// declaration (conform::CheckTraits), as the README's table of checks does:
// `sectl explain --markdown` prints that table, and a test keeps the README
// in step with it.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace sectl::tool {

struct ExplainCommandOptions {
  std::vector<std::string> checks;  // ids or globs ("memcpy.*"); none: list every check
  std::string format = "text";      // text or json
  bool markdown = false;            // the README's table instead
  std::string profile;              // only this profile's checks; empty: every profile
};

CLI::App* AddExplainCommand(CLI::App& app, ExplainCommandOptions& options);

int RunExplainCommand(const ExplainCommandOptions& options);

}  // namespace sectl::tool
