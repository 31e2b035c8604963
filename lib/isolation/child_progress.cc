#include "isolation/child_progress.h"

#include <algorithm>
#include <cstring>

namespace sectl::isolation {

Expected<ChildProgress> ChildProgress::Create() {
  auto text = SharedObject<Text>::Create();
  if (!text) return tl::unexpected(text.error());
  return ChildProgress(std::move(*text));
}

void ChildProgress::Say(std::string_view doing) {
  auto& bytes = text_->bytes;
  const size_t length = std::min(doing.size(), bytes.size() - 1);
  // The terminator first, so that a parent reading after a crash mid-copy
  // reads a shorter text, never an unterminated one.
  bytes[0] = '\0';
  std::memcpy(bytes.data() + 1, doing.data() + std::min<size_t>(1, length),
              length > 0 ? length - 1 : 0);
  bytes[length] = '\0';
  if (length > 0) bytes[0] = doing[0];
}

std::string ChildProgress::Last() const {
  const auto& bytes = text_->bytes;
  return std::string(bytes.data(), strnlen(bytes.data(), bytes.size()));
}

}  // namespace sectl::isolation
