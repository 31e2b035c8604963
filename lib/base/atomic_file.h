// Writing report files so that a reader never sees half of one.
#pragma once

#include <string>
#include <string_view>

#include "base/error.h"

namespace sectl {

// Writes `content` to a temporary file beside `path`, flushes it to disk and
// renames it over `path`. On any failure `path` is left as it was.
Expected<void> WriteFileAtomically(const std::string& path, std::string_view content);

}  // namespace sectl
