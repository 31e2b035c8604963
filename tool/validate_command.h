// `sectl validate`: the command-line side of the validation layer
// (docs/validation-layer.md).
//   sectl validate where            the path of libsectl_validate.so
//   sectl validate show REPORT...   the findings of layer reports, merged,
//                                   as a table or JSON; a CI gate
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace sectl::tool {

struct ValidateCommandOptions {
  std::vector<std::string> reports;
  std::string format = "table";
  std::string fail_on = "error";
  std::string output;
};

struct ValidateCommands {
  CLI::App* validate = nullptr;
  CLI::App* where = nullptr;
  CLI::App* show = nullptr;
};

ValidateCommands AddValidateCommand(CLI::App& app, ValidateCommandOptions& options);

int RunValidateWhere();
int RunValidateShow(const ValidateCommandOptions& options);

}  // namespace sectl::tool
