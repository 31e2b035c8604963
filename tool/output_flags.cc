#include "tool/output_flags.h"

#include "base/text_layout.h"
#include "tool/report_output.h"

namespace sectl::tool {

void AddColorFlag(CLI::App& command, OutputFlags& flags) {
  command
      .add_option("--color", flags.color,
                  "Colour in the table: auto (on a terminal, unless NO_COLOR is set), always, "
                  "or never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
}

void AddQuietFlag(CLI::App& command, OutputFlags& flags) {
  command.add_flag("-q,--quiet", flags.quiet,
                   "Show only the failures, errors and warnings (not passes, skips or checks "
                   "blocked by a failure) and the verdict");
}

TableLayout ChooseTableLayout(const OutputFlags& flags, const std::string& output) {
  const bool to_stdout = output.empty() || output == "-";
  TableLayout layout;
  if (flags.color == "always") {
    layout.color = true;
  } else if (flags.color == "auto") {
    layout.color = to_stdout && StdoutWantsColor();
  }
  layout.width = to_stdout ? StdoutColumns() : 0;
  return layout;
}

}  // namespace sectl::tool
