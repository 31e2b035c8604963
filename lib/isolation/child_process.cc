#include "isolation/child_process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

namespace sectl::isolation {
namespace {

using Clock = std::chrono::steady_clock;

// Both ends of a pipe, closed on destruction unless handed over.
class Pipe {
 public:
  Pipe() {
    if (::pipe2(fds_.data(), O_CLOEXEC) != 0) fds_ = {-1, -1};
  }
  ~Pipe() {
    CloseRead();
    CloseWrite();
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  bool ok() const { return fds_[0] >= 0; }
  int read_end() const { return fds_[0]; }
  int write_end() const { return fds_[1]; }
  void CloseRead() { Close(fds_[0]); }
  void CloseWrite() { Close(fds_[1]); }

 private:
  static void Close(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  std::array<int, 2> fds_{-1, -1};
};

// Reads what is available without blocking; false at end of file.
bool DrainInto(int fd, std::string& sink, size_t limit, bool* truncated) {
  std::array<char, size_t{16} * 1024> buffer{};
  while (true) {
    ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got > 0) {
      const size_t room = sink.size() < limit ? limit - sink.size() : 0;
      sink.append(buffer.data(), std::min(room, static_cast<size_t>(got)));
      if (static_cast<size_t>(got) > room && truncated != nullptr) *truncated = true;
      continue;
    }
    if (got == 0) return false;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK;
  }
}

[[noreturn]] void RunChild(const std::function<int(int)>& body, int result_fd, int output_fd) {
  // Own process group, so a plugin that forks is killed with its child.
  ::setpgid(0, 0);
  ::signal(SIGPIPE, SIG_IGN);
  ::dup2(output_fd, STDOUT_FILENO);
  ::dup2(output_fd, STDERR_FILENO);
  int code = 2;
  try {
    code = body(result_fd);
  } catch (...) {
    code = 2;
  }
  std::fflush(nullptr);
  ::_exit(code);
}

}  // namespace

bool WriteAll(int fd, const std::string& text) {
  const char* data = text.data();
  size_t remaining = text.size();
  while (remaining > 0) {
    ssize_t written = ::write(fd, data, remaining);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return false;
    data += written;
    remaining -= static_cast<size_t>(written);
  }
  return true;
}

std::string SignalName(int signal) {
  if (const char* abbreviation = ::sigabbrev_np(signal)) return fmt::format("SIG{}", abbreviation);
  return fmt::format("signal {}", signal);
}

Expected<ChildResult> RunInChildProcess(const std::function<int(int result_fd)>& body,
                                        const ChildOptions& options) {
  Pipe result_pipe;
  Pipe output_pipe;
  if (!result_pipe.ok() || !output_pipe.ok()) {
    return Fail(ErrorCode::kInternal,
                fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  }
  std::fflush(nullptr);  // nothing buffered may be written twice
  const auto started = Clock::now();
  const pid_t child = ::fork();
  if (child < 0) {
    return Fail(ErrorCode::kInternal, fmt::format("cannot fork: {}", std::strerror(errno)));
  }
  if (child == 0) {
    result_pipe.CloseRead();
    output_pipe.CloseRead();
    RunChild(body, result_pipe.write_end(), output_pipe.write_end());
  }
  ::setpgid(child, child);  // also from here, so the group exists before any kill
  result_pipe.CloseWrite();
  output_pipe.CloseWrite();
  ::fcntl(result_pipe.read_end(), F_SETFL, O_NONBLOCK);
  ::fcntl(output_pipe.read_end(), F_SETFL, O_NONBLOCK);

  ChildResult result;
  bool result_open = true;
  bool output_open = true;
  int status = 0;
  bool reaped = false;
  const auto deadline = started + options.timeout;
  while (!reaped) {
    std::array<pollfd, 2> watched{pollfd{result_pipe.read_end(), POLLIN, 0},
                                  pollfd{output_pipe.read_end(), POLLIN, 0}};
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      ::kill(-child, SIGKILL);
      ::kill(child, SIGKILL);
      ::waitpid(child, &status, 0);
      result.end = ChildEnd::kTimedOut;
      break;
    }
    // Wake up now and then even with pipes open: a grandchild may hold them
    // open after the child itself is gone.
    ::poll(watched.data(), watched.size(), static_cast<int>(std::min<long long>(left, 50)));
    if (result_open) {
      result_open = DrainInto(result_pipe.read_end(), result.result, SIZE_MAX, nullptr);
    }
    if (output_open) {
      output_open = DrainInto(output_pipe.read_end(), result.output, options.max_captured_output,
                              &result.output_truncated);
    }
    if (::waitpid(child, &status, WNOHANG) == child) {
      reaped = true;
      // Whatever the child wrote before exiting is still in the pipes.
      if (result_open) DrainInto(result_pipe.read_end(), result.result, SIZE_MAX, nullptr);
      if (output_open) {
        DrainInto(output_pipe.read_end(), result.output, options.max_captured_output,
                  &result.output_truncated);
      }
      if (WIFSIGNALED(status)) {
        result.end = ChildEnd::kSignaled;
        result.signal = WTERMSIG(status);
      } else {
        result.end = ChildEnd::kExited;
        result.exit_code = WEXITSTATUS(status);
      }
    }
  }
  ::kill(-child, SIGKILL);  // anything the plugin left running in the group
  result.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return result;
}

}  // namespace sectl::isolation
