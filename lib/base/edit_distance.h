// How far apart two words are, for "did you mean ...?" suggestions.
#pragma once

#include <cstddef>
#include <string_view>

namespace sectl {

// Levenshtein distance: the fewest single-character insertions, deletions
// and substitutions that turn `a` into `b`.
size_t EditDistance(std::string_view a, std::string_view b);

}  // namespace sectl
