#include "tool/progress_bar.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "base/text.h"

namespace sectl::tool {
namespace {

constexpr int kBarWidth = 30;

}  // namespace

ProgressBar::ProgressBar(bool enabled) : drawing_(enabled && ::isatty(STDERR_FILENO) != 0) {}

ProgressBar::~ProgressBar() {
  // Carriage return, then erase the line, so what follows starts clean.
  if (drawing_) std::fputs("\r\033[K", stderr);
}

void ProgressBar::Update(int done, int total, std::string_view step) {
  if (!drawing_ || total <= 0) return;
  const int filled = std::clamp(done * kBarWidth / total, 0, kBarWidth);
  const std::string bar = std::string(static_cast<size_t>(filled), '#') +
                          std::string(static_cast<size_t>(kBarWidth - filled), '.');
  fmt::print(stderr, "\r\033[K[{}] {}/{} {}", bar, done, total, EscapeControlCharacters(step));
  std::fflush(stderr);
}

}  // namespace sectl::tool
