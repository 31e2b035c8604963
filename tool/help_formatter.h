// Help laid out for the terminal it is read on: every description, option,
// subcommand, usage line and footer of `sectl ... --help` wrapped at words
// to the terminal's width, continuation lines under their column, with
// CLI11's layout of an option column and a description column kept.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <string>

namespace sectl::tool {

// The columns help is laid out in: stdout's terminal's width, else
// $COLUMNS, else 80 (help read through a pager or a pipe is still read by
// people, and help2man fills paragraphs again), kept within 40..200 so
// that a tiny or absurd width still gives readable lines.
size_t HelpColumns();

// CLI11's formatter with every piece of text wrapped with WrapLine
// (base/text_layout.h) at `width`. A word is never broken: one longer than
// a line (a long option name with its value list) runs past the width.
class HelpFormatter : public CLI::Formatter {
 public:
  explicit HelpFormatter(size_t width);

  std::string make_option(const CLI::Option* option, bool is_positional) const override;
  std::string make_subcommand(const CLI::App* subcommand) const override;
  std::string make_description(const CLI::App* app) const override;
  std::string make_usage(const CLI::App* app, std::string name) const override;
  std::string make_footer(const CLI::App* app) const override;

 private:
  // One row of a list: `name` from column 2, `description` (its lines one
  // paragraph each) from the description column.
  std::string Row(const std::string& name, const std::string& description) const;

  size_t width_;
};

// Gives `app` and each of its subcommands, at every depth, one
// HelpFormatter at HelpColumns(). Call it once every subcommand is added.
void UseHelpFormatter(CLI::App& app);

}  // namespace sectl::tool
