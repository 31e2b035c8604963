#include "isolation/result_channel.h"

#include <cxxabi.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace sectl::isolation {
namespace {

struct FrameHeader {
  ChannelKey key;
  uint32_t kind;
  uint32_t size;
};
static_assert(sizeof(FrameHeader) == 24);

// The channel as the child found it before plugin code ran, so that a
// descriptor the plugin closed and reopened is not mistaken for it.
struct AdoptedChannel {
  int fd = -1;
  dev_t device = 0;
  ino_t inode = 0;
  ChannelKey key{};
};
AdoptedChannel adopted;  // set only in a child, by AdoptResultChannel

// The lowest descriptor number the channel may get, and the range it is
// drawn from: above what a plugin opens in passing, below the usual soft
// limit of 1024 so select(2)-era code in the plugin still works.
constexpr int kLowestChannelDescriptor = 64;
constexpr int kChannelDescriptorRange = 900;

std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    if (end > start) lines.push_back(DemangleFrame(std::string(text.substr(start, end - start))));
    start = end + 1;
  }
  return lines;
}

}  // namespace

Expected<ChannelKey> NewChannelKey() {
  ChannelKey key{};
  size_t filled = 0;
  while (filled < key.size()) {
    const ssize_t got = ::getrandom(key.data() + filled, key.size() - filled, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      return Fail(ErrorCode::kInternal, fmt::format("cannot draw a key for the result channel: {}",
                                                    std::strerror(errno)));
    }
    filled += static_cast<size_t>(got);
  }
  return key;
}

int AdoptResultChannel(int fd, const ChannelKey& key) {
  rlimit open_files{};
  int highest = kLowestChannelDescriptor + kChannelDescriptorRange;
  if (::getrlimit(RLIMIT_NOFILE, &open_files) == 0 && open_files.rlim_cur != RLIM_INFINITY) {
    highest = static_cast<int>(std::min<rlim_t>(open_files.rlim_cur, highest));
  }
  int target = kLowestChannelDescriptor;
  if (highest > target) {
    uint32_t draw = 0;
    std::memcpy(&draw, key.data(), sizeof(draw));  // the key is random; its bytes serve here too
    target += static_cast<int>(draw % static_cast<uint32_t>(highest - target));
  }
  int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, target);
  if (moved < 0) moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);  // a tiny descriptor limit
  if (moved < 0) return -1;
  ::close(fd);
  struct stat channel {};
  if (::fstat(moved, &channel) != 0) return -1;
  adopted = {moved, channel.st_dev, channel.st_ino, key};
  return moved;
}

int AdoptedResultChannel() { return adopted.fd; }

bool IsAdoptedChannelIntact(int fd) {
  if (adopted.fd < 0 || fd != adopted.fd) return false;
  struct stat now {};
  return ::fstat(fd, &now) == 0 && now.st_dev == adopted.device && now.st_ino == adopted.inode;
}

bool WriteFrame(FrameKind kind, const char* data, size_t size) noexcept {
  if (adopted.fd < 0 || size > kMaxResultChannelBytes) return false;
  FrameHeader header{adopted.key, static_cast<uint32_t>(kind), static_cast<uint32_t>(size)};
  std::array<iovec, 2> pieces{iovec{&header, sizeof(header)},
                              iovec{const_cast<char*>(data), size}};  // NOLINT: writev's API
  size_t first = 0;
  while (first < pieces.size()) {
    const ssize_t written =
        ::writev(adopted.fd, pieces.data() + first, static_cast<int>(pieces.size() - first));
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) return false;
    auto remaining = static_cast<size_t>(written);
    while (first < pieces.size() && remaining >= pieces[first].iov_len) {
      remaining -= pieces[first].iov_len;
      ++first;
    }
    if (first < pieces.size()) {
      pieces[first].iov_base = static_cast<char*>(pieces[first].iov_base) + remaining;
      pieces[first].iov_len -= remaining;
    }
  }
  return true;
}

ChannelMessages ReadFrames(std::string_view bytes, const ChannelKey& key, bool overflowed) {
  ChannelMessages messages;
  messages.foreign_bytes = overflowed;
  bool confined = false;
  size_t at = 0;
  while (at < bytes.size()) {
    FrameHeader header{};
    if (bytes.size() - at < sizeof(header)) {
      messages.foreign_bytes = true;
      break;
    }
    std::memcpy(&header, bytes.data() + at, sizeof(header));
    if (header.key != key || header.size > bytes.size() - at - sizeof(header)) {
      messages.foreign_bytes = true;
      break;
    }
    const std::string_view payload = bytes.substr(at + sizeof(header), header.size);
    at += sizeof(header) + header.size;
    // The reaper writes its frame once every other process has ended, so
    // it is the last: a worker end with any frame after it was forged.
    if (messages.worker_end) {
      messages.foreign_bytes = true;
      messages.worker_end.reset();
    }
    switch (static_cast<FrameKind>(header.kind)) {
      case FrameKind::kResult:
        messages.result.append(payload);
        messages.reported = true;
        break;
      case FrameKind::kSetupFailure:
        if (confined) {
          messages.foreign_bytes = true;
        } else {
          messages.setup_failure = std::string(payload);
        }
        break;
      case FrameKind::kConfined:
        confined = true;
        break;
      case FrameKind::kBacktrace: {
        auto lines = SplitLines(payload);
        messages.backtrace.insert(messages.backtrace.end(), lines.begin(), lines.end());
        break;
      }
      case FrameKind::kAllocationFailed:
        messages.allocation_failed = true;
        break;
      case FrameKind::kGuardPageFault:
        if (!messages.guard_page_fault) messages.guard_page_fault = std::string(payload);
        break;
      case FrameKind::kWorkerEnded: {
        WorkerEnd end;
        if (payload.size() != sizeof(end)) {
          messages.foreign_bytes = true;
          break;
        }
        std::memcpy(&end, payload.data(), sizeof(end));
        if (end.how != WorkerEnd::How::kExited && end.how != WorkerEnd::How::kSignaled &&
            end.how != WorkerEnd::How::kStopped) {
          messages.foreign_bytes = true;
          break;
        }
        messages.worker_end = end;
        break;
      }
      default:
        messages.foreign_bytes = true;  // a key of ours on a kind we never write
        break;
    }
  }
  return messages;
}

std::string DemangleFrame(const std::string& frame) {
  const auto open = frame.find('(');
  const auto plus = frame.find('+', open == std::string::npos ? 0 : open);
  if (open == std::string::npos || plus == std::string::npos || plus == open + 1) return frame;
  const std::string mangled = frame.substr(open + 1, plus - open - 1);
  int status = -1;
  std::unique_ptr<char, decltype(&std::free)> name(
      ::abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), &std::free);
  if (status != 0 || !name) return frame;
  return frame.substr(0, open + 1) + name.get() + frame.substr(plus);
}

}  // namespace sectl::isolation
