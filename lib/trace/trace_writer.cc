#include "trace/trace_writer.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <span>
#include <utility>

namespace sectl::trace {
namespace {

// Writes all of [data, data + size) to `fd`, retrying after signals and
// short writes; 0 or the errno of the failure. Async-signal-safe.
int WriteAll(int fd, const std::byte* data, size_t size) {
  while (size > 0) {
    const ssize_t written = ::write(fd, data, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (written == 0) return EIO;
    data += written;
    size -= static_cast<size_t>(written);
  }
  return 0;
}

}  // namespace

Expected<std::unique_ptr<TraceWriter>> TraceWriter::Create(const std::string& path,
                                                           const TraceHeader& header) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int error = errno;
    return Fail(error == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIoError,
                fmt::format("{}: cannot create the trace: {}", path, std::strerror(error)));
  }
  const auto header_bytes = EncodeHeader(header);
  if (const int error = WriteAll(fd, header_bytes.data(), header_bytes.size()); error != 0) {
    ::close(fd);
    return Fail(ErrorCode::kIoError,
                fmt::format("{}: cannot write the trace header: {}", path, std::strerror(error)));
  }
  return std::make_unique<TraceWriter>(ConstructionKey(), path, fd);
}

TraceWriter::TraceWriter(ConstructionKey /*key*/, std::string path, int fd)
    : path_(std::move(path)), fd_(fd), buffer_(std::make_unique<std::byte[]>(kBufferBytes)) {}

TraceWriter::~TraceWriter() { (void)Close(); }

void TraceWriter::Append(const TraceRecord& record) noexcept {
  if (fd_ < 0) return;
  // Appends come one at a time (the caller holds a lock), so the plain
  // load of committed_ is this thread's own last store. The release store
  // publishes the encoded bytes to a Flush, which acquires; the default,
  // sequentially consistent store would cost a locked instruction on
  // every traced call.
  size_t start = committed_.load(std::memory_order_relaxed);
  if (kBufferBytes - start < kMaxEncodedRecordBytes) {
    Flush();
    // Only Append moves the buffer's start, so a Flush from a signal
    // handler between these stores finds nothing to write.
    committed_.store(0);
    written_.store(0);
    start = 0;
  }
  const std::span<std::byte, kMaxEncodedRecordBytes> space(buffer_.get() + start,
                                                           kMaxEncodedRecordBytes);
  const size_t size = EncodeRecord(record, previous_, space);
  committed_.store(start + size, std::memory_order_release);
}

void TraceWriter::Flush() noexcept {
  if (fd_ < 0) return;
  const size_t end = committed_.load(std::memory_order_acquire);
  const size_t start = written_.exchange(end);
  if (start >= end || write_error_.load() != 0) return;
  if (const int error = WriteAll(fd_, buffer_.get() + start, end - start); error != 0) {
    write_error_.store(error);
  }
}

Expected<void> TraceWriter::Close() {
  if (fd_ < 0) return {};
  Flush();
  int error = write_error_.load();
  if (::close(std::exchange(fd_, -1)) != 0 && error == 0) error = errno;
  if (error != 0) {
    return Fail(ErrorCode::kIoError,
                fmt::format("{}: cannot write the trace: {}", path_, std::strerror(error)));
  }
  return {};
}

}  // namespace sectl::trace
