// What a child process was doing, readable by its parent after the child
// died: a collector says "kExist(37)" before a call that may crash, and the
// parent, finding the child crashed, knows which call it was. Lives in
// shared memory made before the fork.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "base/error.h"
#include "isolation/shared_memory.h"

namespace sectl::isolation {

class ChildProgress {
 public:
  static Expected<ChildProgress> Create();

  // In the child: what it is about to do (cut to the buffer's size).
  void Say(std::string_view doing);
  // In the parent: the last thing said; "" when nothing was.
  std::string Last() const;

 private:
  struct Text {
    std::array<char, 256> bytes{};
  };
  explicit ChildProgress(SharedObject<Text> text) : text_(std::move(text)) {}
  SharedObject<Text> text_;
};

}  // namespace sectl::isolation
