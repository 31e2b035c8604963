// Writes a trace file as the traced process runs: records are encoded into
// a buffer and written out when it fills, so a trace costs a copy per call
// and a write(2) per buffer, not per call.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>

#include "base/error.h"
#include "trace/trace_format.h"
#include "trace/trace_record.h"

namespace sectl::trace {

class TraceWriter {
 public:
  // Creates (truncates) `path` and writes the header. The descriptor is
  // close-on-exec.
  static Expected<std::unique_ptr<TraceWriter>> Create(const std::string& path,
                                                       const TraceHeader& header);
  // For Create alone: only it can make the key.
  class ConstructionKey {
    friend class TraceWriter;
    ConstructionKey() = default;
  };
  TraceWriter(ConstructionKey key, std::string path, int fd);
  ~TraceWriter();  // Close(), errors ignored
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;
  TraceWriter(TraceWriter&&) = delete;
  TraceWriter& operator=(TraceWriter&&) = delete;

  // Buffers one record; writes the buffer out when it is full. Not
  // thread-safe: the caller serialises appends. Allocates nothing and
  // never throws.
  void Append(const TraceRecord& record) noexcept;

  // Writes out what is buffered with write(2) alone: no allocation, no
  // lock, so a fatal-signal handler may call it, even one that interrupted
  // Append on the same thread (a record half encoded is not written).
  void Flush() noexcept;

  // Flushes and closes; an error says what failed (disk full). Records
  // appended after Close are dropped.
  Expected<void> Close();

  const std::string& path() const { return path_; }

 private:
  static constexpr size_t kBufferBytes = size_t{64} * 1024;

  std::string path_;
  int fd_ = -1;
  // Bytes [0, written_) of the buffer are in the file, [written_,
  // committed_) are whole records still to write, and Append encodes past
  // committed_. Atomics, so that a signal handler's Flush sees whole
  // records only.
  std::unique_ptr<std::byte[]> buffer_;
  std::atomic<size_t> written_ = 0;
  std::atomic<size_t> committed_ = 0;
  RecordContext previous_;
  // The errno of the first write that failed; the file then stops growing.
  std::atomic<int> write_error_ = 0;
};

}  // namespace sectl::trace
