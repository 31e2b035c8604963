// Reading a file sectl was handed (a report, a baseline, a trace, a
// configuration) without trusting what the path names. Only a regular file
// is read: a FIFO would block forever and a device such as /dev/zero never
// ends. Each kind of file has a size cap, checked before reading and again
// while reading (the file may grow), so a hostile or mistaken input gives a
// one-line error instead of exhausting memory.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "base/error.h"

namespace sectl {

// The caps, documented in the README ("Untrusted plugins and inputs").
inline constexpr size_t kMaxReportFileBytes = size_t{256} << 20;  // conform, bench, validate
inline constexpr size_t kMaxTraceFileBytes = size_t{256} << 20;
inline constexpr size_t kMaxTextFileBytes = size_t{4} << 20;  // baselines, configuration

// The whole content of the regular file at `path`, at most `max_bytes`.
// `what` names the kind of file in errors: "PATH: is a FIFO, not a regular
// file (a conform report)". kNotFound when the path does not exist, else
// kInvalidArgument for what the file is, kIoError for a failed read.
Expected<std::string> ReadRegularFile(const std::string& path, size_t max_bytes,
                                      std::string_view what);

// Nothing when `path` names a regular file (symbolic links followed), else
// the error ReadRegularFile would give, without opening it: for a path sectl
// hands on to something else to open (dlopen of --tvm-core), which would
// block on a FIFO.
Expected<void> RequireRegularFile(const std::string& path, std::string_view what);

}  // namespace sectl
