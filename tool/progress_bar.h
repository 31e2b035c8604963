// A one-line progress bar on stderr, drawn only when stderr is a terminal
// (never into a CI log or a redirected file).
#pragma once

#include <string_view>

namespace sectl::tool {

class ProgressBar {
 public:
  // Draws nothing unless `enabled` and stderr is a terminal.
  explicit ProgressBar(bool enabled);
  ~ProgressBar();  // erases the bar
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void Update(int done, int total, std::string_view step);

 private:
  bool drawing_;
};

}  // namespace sectl::tool
