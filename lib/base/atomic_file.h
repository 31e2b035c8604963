// Writing report files so that a reader never sees half of one, and so that
// sectl, often run as root by CI, writes only where it was asked to.
#pragma once

#include <string>
#include <string_view>

#include "base/error.h"

namespace sectl {

// Writes `content` to a new temporary file beside `path` (created
// exclusively, so never through a link), flushes it to disk, and renames it
// over `path`, then flushes the directory. On any failure `path` is left as
// it was, no temporary file remains, and the error is one line naming the
// path and the cause ("No space left on device").
//
// `path` may be absent or a regular file. Anything else is refused: a
// symbolic link (sectl does not follow one it did not create; name its
// target instead), a directory, a device such as /dev/full, a FIFO.
//
// The file gets the permissions of the file it replaces, or for a new file
// the ordinary ones, 0666 less the umask (0644 with the usual umask).
Expected<void> WriteFileAtomically(const std::string& path, std::string_view content);

}  // namespace sectl
