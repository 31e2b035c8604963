// Content digests of files, for reports that must say exactly which plugin ran.
#pragma once

#include <string>

#include "base/error.h"

namespace sectl {

// The SHA-256 of the file's bytes, as 64 lowercase hex digits.
Expected<std::string> Sha256OfFile(const std::string& path);

}  // namespace sectl
