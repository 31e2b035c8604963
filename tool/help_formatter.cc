#include "tool/help_formatter.h"

#include <algorithm>
#include <memory>
#include <string_view>

#include "base/text_layout.h"

namespace sectl::tool {
namespace {

constexpr size_t kDefaultColumns = 80;
constexpr size_t kFewestColumns = 40;
constexpr size_t kMostColumns = 200;
// CLI11's description column; narrower only where it would take more than
// half the line (WrapLine cuts a deeper hanging indent to half the width).
constexpr size_t kDescriptionColumn = 30;
// Spaces at least between a name and its description on one line: help2man
// takes two spaces as the end of an option's name.
constexpr size_t kNameGap = 2;
// Where the rest of a name too long for one line goes on.
constexpr size_t kNameHangingIndent = 4;

void SetFormatter(CLI::App& app, const std::shared_ptr<HelpFormatter>& formatter) {
  app.formatter(formatter);
  for (CLI::App* subcommand : app.get_subcommands([](CLI::App*) { return true; })) {
    SetFormatter(*subcommand, formatter);
  }
}

}  // namespace

size_t HelpColumns() {
  const size_t columns = StdoutColumns();
  if (columns == 0) return kDefaultColumns;
  return std::clamp(columns, kFewestColumns, kMostColumns);
}

HelpFormatter::HelpFormatter(size_t width) : width_(width) {
  column_width(std::min(kDescriptionColumn, width / 2));
}

std::string HelpFormatter::Row(const std::string& name, const std::string& description) const {
  const size_t column = get_column_width();
  std::string first = "  " + name;
  std::string out;
  if (description.empty()) {
    return WrapLine(first, width_, kNameHangingIndent, LongWords::kOverflow) + "\n";
  }
  if (DisplayWidth(first) + kNameGap > column) {
    // The name takes its own line; the description starts under its column.
    out = WrapLine(first, width_, kNameHangingIndent, LongWords::kOverflow) + "\n";
    first.clear();
  }
  first.resize(column, ' ');
  std::string_view rest = description;
  for (std::string line = first;; line.assign(column, ' ')) {
    const size_t end = rest.find('\n');
    const std::string_view paragraph = rest.substr(0, end);
    if (paragraph.empty() && line.find_first_not_of(' ') == std::string::npos) {
      out += "\n";  // a blank line between paragraphs, without trailing spaces
    } else {
      line.append(paragraph);
      out += WrapLine(line, width_, column, LongWords::kOverflow) + "\n";
    }
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
  return out;
}

std::string HelpFormatter::make_option(const CLI::Option* option, bool is_positional) const {
  return Row(make_option_name(option, is_positional) + make_option_opts(option),
             make_option_desc(option));
}

std::string HelpFormatter::make_subcommand(const CLI::App* subcommand) const {
  return Row(subcommand->get_display_name(true), subcommand->get_description());
}

std::string HelpFormatter::make_description(const CLI::App* app) const {
  return WrapText(CLI::Formatter::make_description(app), width_, 0, LongWords::kOverflow);
}

std::string HelpFormatter::make_usage(const CLI::App* app, std::string name) const {
  // The arguments that do not fit go on under the first one.
  const size_t indent = DisplayWidth(get_label("Usage") + ": " + name + " ");
  return WrapText(CLI::Formatter::make_usage(app, std::move(name)), width_, indent,
                  LongWords::kOverflow);
}

std::string HelpFormatter::make_footer(const CLI::App* app) const {
  return WrapText(CLI::Formatter::make_footer(app), width_, 0, LongWords::kOverflow);
}

void UseHelpFormatter(CLI::App& app) {
  SetFormatter(app, std::make_shared<HelpFormatter>(HelpColumns()));
}

}  // namespace sectl::tool
