#include "remote/plugin_server.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>

#include "isolation/bounded_reap.h"

namespace sectl::remote {
namespace {

// The descriptors the server finds its channel and arena on.
constexpr int kServerSocket = 3;
constexpr int kServerArena = 4;

void PutText(Request& request, const std::string& text) {
  request.text_length = static_cast<uint32_t>(std::min(text.size(), kMaxMessageText));
  std::memcpy(request.text, text.data(), request.text_length);
}

}  // namespace

void EndTheSameWay(const ServerEnd& end) {
  if (end.signaled) {
    ::signal(end.value, SIG_DFL);
    ::raise(end.value);
    ::_exit(128 + end.value);  // a signal that does not end a process
  }
  ::_exit(end.value);
}

Expected<std::unique_ptr<PluginServer>> PluginServer::Start(const std::string& executable,
                                                            size_t arena_bytes,
                                                            WhenTheServerEnds when_it_ends) {
  auto arena = Arena::Create(arena_bytes);
  if (!arena) return tl::unexpected(arena.error());
  std::array<int, 2> sockets{-1, -1};
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sockets.data()) != 0) {
    return Fail(ErrorCode::kInternal, fmt::format("cannot create the plugin server's channel: {}",
                                                  strerrorname_np(errno)));
  }
  const std::string base = fmt::format("{:#x}", arena->base());
  const std::string size = std::to_string(arena->size());
  const pid_t pid = ::fork();
  if (pid == 0) {
    // Only the channel and the arena go to the server: nothing else of the
    // judge's, whose result channel above all.
    // Moved out of the way first, so that neither lands on the other's new
    // number; dup2 leaves close-on-exec off on the copies.
    const int socket = ::fcntl(sockets[1], F_DUPFD, kServerArena + 1);
    const int memory = ::fcntl(arena->descriptor(), F_DUPFD, kServerArena + 1);
    if (socket < 0 || memory < 0 || ::dup2(socket, kServerSocket) < 0 ||
        ::dup2(memory, kServerArena) < 0) {
      ::_exit(127);
    }
    ::close_range(kServerArena + 1, ~0U, 0);
    const char* arguments[] = {"sectl-plugin-server", "3",          "4",
                               base.c_str(),          size.c_str(), nullptr};
    ::execv(executable.c_str(), const_cast<char* const*>(arguments));  // NOLINT: execv's type
    ::_exit(127);
  }
  ::close(sockets[1]);
  if (pid < 0) {
    ::close(sockets[0]);
    return Fail(ErrorCode::kInternal,
                fmt::format("cannot start the plugin server: {}", strerrorname_np(errno)));
  }
  return std::unique_ptr<PluginServer>(
      new PluginServer(pid, sockets[0], std::move(*arena), when_it_ends));
}

PluginServer::PluginServer(pid_t pid, int socket, Arena arena, WhenTheServerEnds when_it_ends)
    : pid_(pid), socket_(socket), arena_(std::move(arena)), when_it_ends_(when_it_ends) {}

PluginServer::~PluginServer() {
  ::close(socket_);  // the server ends at end of file
  if (!ended_) {
    if (isolation::ReapKilled(pid_, std::chrono::milliseconds(500)) !=
        isolation::Reaping::kReaped) {
      ::kill(pid_, SIGKILL);
      (void)isolation::ReapKilled(pid_, isolation::kKilledProcessGrace);
    }
  }
}

Error PluginServer::ServerGone() {
  if (!ended_) {
    int status = 0;
    if (isolation::ReapKilled(pid_, isolation::kKilledProcessGrace, &status) ==
        isolation::Reaping::kReaped) {
      ended_ = ServerEnd{WIFSIGNALED(status),
                         WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status)};
    } else {
      ::kill(pid_, SIGKILL);
      (void)isolation::ReapKilled(pid_, isolation::kKilledProcessGrace);
      ended_ = ServerEnd{true, SIGKILL};
    }
  }
  if (when_it_ends_ == WhenTheServerEnds::kEndTheSameWay) EndTheSameWay(*ended_);
  return Error(ErrorCode::kInternal,
               ended_->signaled
                   ? fmt::format("the plugin server died of signal {}", ended_->value)
                   : fmt::format("the plugin server exited with status {}", ended_->value));
}

Expected<Reply> PluginServer::Exchange(const Request& request) {
  if (ended_) return tl::unexpected(ServerGone());
  if (::send(socket_, &request, sizeof(request), MSG_NOSIGNAL) != sizeof(request)) {
    return tl::unexpected(ServerGone());
  }
  Reply reply;
  ssize_t got = 0;
  do {
    got = ::recv(socket_, &reply, sizeof(reply), 0);
  } while (got < 0 && errno == EINTR);
  if (got == 0 || got < 0) return tl::unexpected(ServerGone());
  if (got != sizeof(reply) || reply.version != kProtocolVersion ||
      reply.text_length > kMaxMessageText) {
    return Fail(ErrorCode::kInternal, "the plugin server broke the protocol");
  }
  return reply;
}

Expected<uint64_t> PluginServer::Load(const std::string& plugin_path) {
  Request request;
  request.kind = RequestKind::kLoad;
  PutText(request, plugin_path);
  auto reply = Exchange(request);
  if (!reply) return tl::unexpected(reply.error());
  if (reply->outcome != Outcome::kReturned) {
    return Fail(ErrorCode::kFailedPrecondition, std::string(reply->text, reply->text_length));
  }
  return reply->result;
}

Expected<CallAnswer> PluginServer::Call(abi::PluginFunction function, uint64_t target,
                                        std::span<const uint64_t> words, int32_t status_code,
                                        const std::string& status_text) {
  if (words.size() > kMaxCallArguments) {
    return Fail(ErrorCode::kInternal, "too many arguments for the plugin server");
  }
  Request request;
  request.kind = RequestKind::kCall;
  request.function = static_cast<uint32_t>(function);
  request.target = target;
  request.argument_count = static_cast<uint32_t>(words.size());
  std::copy(words.begin(), words.end(), request.arguments);
  request.status_code = status_code;
  PutText(request, status_text);
  auto reply = Exchange(request);
  if (!reply) return tl::unexpected(reply.error());
  return CallAnswer{reply->outcome, reply->result, reply->status_code,
                    std::string(reply->text, reply->text_length)};
}

Expected<std::string> PluginServer::ReadString(uint64_t address, size_t limit) {
  Request request;
  request.kind = RequestKind::kReadString;
  request.target = address;
  request.arguments[0] = std::min(limit, kMaxMessageText);
  request.argument_count = 1;
  auto reply = Exchange(request);
  if (!reply) return tl::unexpected(reply.error());
  return std::string(reply->text, reply->text_length);
}

}  // namespace sectl::remote
