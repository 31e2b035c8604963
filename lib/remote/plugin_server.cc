#include "remote/plugin_server.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <thread>
#include <utility>

#include "base/text.h"
#include "isolation/bounded_reap.h"
#include "isolation/child_exit_codes.h"
#include "isolation/result_channel.h"
#include "isolation/sandbox.h"
#include "remote/server_resources.h"

namespace sectl::remote {
namespace {

// The descriptors the server finds its main channel, arena, event channel
// and crash report channel on.
constexpr int kServerSocket = 3;
constexpr int kServerArena = 4;
constexpr int kServerEvents = 5;
constexpr int kServerCrashReports = 6;
constexpr int kFirstFree = kServerCrashReports + 1;

// The most crash report packets a judge reads: the server's handler sends
// two at most; the rest would be the plugin's.
constexpr int kMaxCrashReportPackets = 64;

// The signals the server's crash handler reports (tool/plugin_server/crash_report.h).
bool IsCrashSignal(int signal) {
  return signal == SIGSEGV || signal == SIGBUS || signal == SIGILL || signal == SIGFPE ||
         signal == SIGABRT;
}

// On this process's result channel, as a crash in this process would have
// sent them (isolation/child_process.cc): the guard's description first,
// then the backtrace. Nothing where this process has no channel.
void ForwardCrashReport(const CrashReport& report) {
  if (report.guard_page_fault) {
    isolation::WriteFrame(isolation::FrameKind::kGuardPageFault, report.guard_page_fault->data(),
                          report.guard_page_fault->size());
  }
  if (!report.backtrace.empty()) {
    isolation::WriteFrame(isolation::FrameKind::kBacktrace, report.backtrace.data(),
                          report.backtrace.size());
  }
}

void PutText(Request& request, const std::string& text) {
  request.text_length = static_cast<uint32_t>(std::min(text.size(), kMaxMessageText));
  std::memcpy(request.text, text.data(), request.text_length);
}

}  // namespace

void EndTheSameWay(const ServerEnd& end) {
  if (end.stopped) {
    // Stopped as the server was, where its signal stops a process by
    // default; by SIGSTOP otherwise (a traced stop's signal may not).
    ::signal(end.value, SIG_DFL);
    ::raise(end.value);
    ::raise(SIGSTOP);
    ::_exit(128 + end.value);
  }
  if (end.broke_protocol) ::_exit(isolation::kServerBrokeProtocol);
  if (end.stopped_answering) ::_exit(isolation::kServerChannelLost);
  if (end.signaled) {
    ::signal(end.value, SIG_DFL);
    ::raise(end.value);
    ::_exit(128 + end.value);  // a signal that does not end a process
  }
  ::_exit(end.value);
}

Expected<std::unique_ptr<PluginServer>> PluginServer::Start(const std::string& executable,
                                                            size_t arena_bytes,
                                                            WhenTheServerEnds when_it_ends,
                                                            PluginHeap heap) {
  auto arena = Arena::Create(arena_bytes);
  if (!arena) return tl::unexpected(arena.error());
  std::array<int, 2> sockets{-1, -1};
  std::array<int, 2> events{-1, -1};
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sockets.data()) != 0) {
    return Fail(ErrorCode::kInternal, fmt::format("cannot create the plugin server's channel: {}",
                                                  strerrorname_np(errno)));
  }
  OwnedDescriptor judge_main(sockets[0]);
  OwnedDescriptor server_main(sockets[1]);
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, events.data()) != 0) {
    return Fail(
        ErrorCode::kInternal,
        fmt::format("cannot create the plugin server's event channel: {}", strerrorname_np(errno)));
  }
  OwnedDescriptor judge_events(events[0]);
  OwnedDescriptor server_events(events[1]);
  std::array<int, 2> reports{-1, -1};
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, reports.data()) != 0) {
    return Fail(ErrorCode::kInternal,
                fmt::format("cannot create the plugin server's crash report channel: {}",
                            strerrorname_np(errno)));
  }
  OwnedDescriptor judge_reports(reports[0]);
  OwnedDescriptor server_reports(reports[1]);
  const std::string base = fmt::format("{:#x}", arena->base());
  const std::string size = std::to_string(arena->size());
  // The judge is out of the plugin's reach by signal, as sectl is out of the
  // check's: compiled here, where allocating is safe, loaded in the child.
  const std::vector<sock_filter> protection = isolation::CompileJudgeProtection(::getpid());
  // The server's environment: this process's, except that a sanitizer's
  // leak check at exit (ASAN_OPTIONS=detect_leaks=1) must not replace the
  // status of a plugin that calls exit() with its own. Built here: the
  // child only execs.
  std::vector<std::string> environment;
  for (char** variable = environ; *variable != nullptr; ++variable) {
    std::string entry(*variable);
    if (entry.starts_with("ASAN_OPTIONS=")) entry += ":detect_leaks=0";
    environment.push_back(std::move(entry));
  }
  std::vector<const char*> environment_pointers;
  environment_pointers.reserve(environment.size() + 1);
  for (const std::string& entry : environment) environment_pointers.push_back(entry.c_str());
  environment_pointers.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (!protection.empty()) {
      sock_fprog program{static_cast<unsigned short>(protection.size()),
                         const_cast<sock_filter*>(protection.data())};  // NOLINT: the API's type
      // Seccomp asks for no_new_privs; a server needs no privilege it lacks.
      // Where the kernel refuses a filter, the run goes on without, as it
      // does for the check's own (isolation/sandbox.h).
      ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
      (void)::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0);
    }
    // Only the channels and the arena go to the server: nothing else of the
    // judge's, whose result channel above all.
    // Moved out of the way first, so that none lands on another's new
    // number; dup2 leaves close-on-exec off on the copies.
    const int socket = ::fcntl(server_main.get(), F_DUPFD, kFirstFree);
    const int memory = ::fcntl(arena->descriptor(), F_DUPFD, kFirstFree);
    const int event = ::fcntl(server_events.get(), F_DUPFD, kFirstFree);
    const int report = ::fcntl(server_reports.get(), F_DUPFD, kFirstFree);
    if (socket < 0 || memory < 0 || event < 0 || report < 0 || ::dup2(socket, kServerSocket) < 0 ||
        ::dup2(memory, kServerArena) < 0 || ::dup2(event, kServerEvents) < 0 ||
        ::dup2(report, kServerCrashReports) < 0) {
      ::_exit(127);
    }
    ::close_range(kFirstFree, ~0U, 0);
    const char* arguments[] = {"sectl-plugin-server",
                               "3",
                               "4",
                               base.c_str(),
                               size.c_str(),
                               "5",
                               "6",
                               heap == PluginHeap::kGuarded ? "guarded" : "plain",
                               nullptr};
    ::execve(executable.c_str(), const_cast<char* const*>(arguments),  // NOLINT: execve's type
             const_cast<char* const*>(environment_pointers.data()));   // NOLINT: execve's type
    ::_exit(127);
  }
  server_main.Close();
  server_events.Close();
  server_reports.Close();
  if (pid < 0) {
    return Fail(ErrorCode::kInternal,
                fmt::format("cannot start the plugin server: {}", strerrorname_np(errno)));
  }
  return std::unique_ptr<PluginServer>(
      new PluginServer(pid, std::move(judge_main), std::move(judge_events),
                       std::move(judge_reports), std::move(*arena), when_it_ends));
}

PluginServer::PluginServer(pid_t pid, OwnedDescriptor main, OwnedDescriptor events,
                           OwnedDescriptor crash_reports, Arena arena,
                           WhenTheServerEnds when_it_ends)
    : pid_(pid),
      main_(std::move(main)),
      events_(std::move(events)),
      crash_reports_(std::move(crash_reports)),
      arena_(std::move(arena)),
      when_it_ends_(when_it_ends),
      callbacks_(std::make_unique<HostCallbacks>(events_.get())),
      listener_([this](const std::stop_token& stop) { ListenForEvents(stop); }) {}

PluginServer::~PluginServer() {
  // The listener first, so that the end of the event channel it is about
  // to see is not taken for the server's death.
  stopping_ = true;
  ::shutdown(events_.get(), SHUT_RDWR);  // wakes it, and any trampoline waiting
  listener_.request_stop();
  if (listener_.joinable()) listener_.join();
  callbacks_.reset();  // waits for callbacks still running
  {
    const std::lock_guard<std::mutex> held(lanes_mutex_);
    idle_lanes_.clear();  // the server's lane threads end at end of file
  }
  main_.Close();  // the server ends at end of file
  const std::lock_guard<std::mutex> held(end_mutex_);
  if (!ended_) {
    if (isolation::ReapKilled(pid_, std::chrono::milliseconds(500)) !=
        isolation::Reaping::kReaped) {
      ::kill(pid_, SIGKILL);
      (void)isolation::ReapKilled(pid_, isolation::kKilledProcessGrace);
    }
  }
}

std::optional<ServerEnd> PluginServer::ended() const {
  const std::lock_guard<std::mutex> held(end_mutex_);
  return ended_;
}

CrashReport PluginServer::crash_report() const {
  const std::lock_guard<std::mutex> held(end_mutex_);
  return crash_report_;
}

// What the dead server sent before it died: all of it queued by now. The
// last packet of each kind counts: the crash handler's come after any the
// plugin may have sent before it crashed.
void PluginServer::ReadCrashReport() {
  std::vector<char> packet(sizeof(CrashReportHeader) + kMaxCrashReportText);
  for (int read = 0; read < kMaxCrashReportPackets; ++read) {
    iovec data{packet.data(), packet.size()};
    msghdr message{};
    message.msg_iov = &data;
    message.msg_iovlen = 1;
    const ssize_t got = ::recvmsg(crash_reports_.get(), &message, MSG_DONTWAIT);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 || static_cast<size_t>(got) < sizeof(CrashReportHeader)) break;
    if ((message.msg_flags & MSG_TRUNC) != 0) continue;  // longer than the server sends
    CrashReportHeader header;
    std::memcpy(&header, packet.data(), sizeof(header));
    if (header.version != kProtocolVersion) continue;
    std::string text(packet.data() + sizeof(header), static_cast<size_t>(got) - sizeof(header));
    if (header.kind == CrashReportKind::kBacktrace) {
      crash_report_.backtrace = std::move(text);
    } else if (header.kind == CrashReportKind::kGuardPageFault) {
      crash_report_.guard_page_fault = std::move(text);
    }
  }
}

Error PluginServer::ServerGone() {
  std::unique_lock<std::mutex> held(end_mutex_);
  if (!ended_ && stopped_by_ != 0) {
    // Stopped for good: ended here, and the judge stops the same way.
    ::kill(pid_, SIGKILL);
    (void)isolation::ReapKilled(pid_, isolation::kKilledProcessGrace);
    ended_ = ServerEnd{false, stopped_by_};
    ended_->stopped = true;
    gone_ = true;
  }
  if (!ended_) {
    int status = 0;
    if (isolation::ReapKilled(pid_, isolation::kKilledProcessGrace, &status) ==
        isolation::Reaping::kReaped) {
      ended_ = ServerEnd{WIFSIGNALED(status),
                         WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status)};
      ended_->broke_protocol = broke_protocol_;
    } else {
      ::kill(pid_, SIGKILL);
      (void)isolation::ReapKilled(pid_, isolation::kKilledProcessGrace);
      ended_ = ServerEnd{true, SIGKILL, !broke_protocol_, broke_protocol_};
    }
    // Believed only of a server that did die of a crash: it can add detail
    // to that crash, never turn another end into one.
    if (ended_->signaled && IsCrashSignal(ended_->value)) ReadCrashReport();
    // Sent before any thread ends this process: the others wait on the
    // lock until the frames are out.
    if (when_it_ends_ == WhenTheServerEnds::kEndTheSameWay) ForwardCrashReport(crash_report_);
    gone_ = true;
  }
  const ServerEnd end = *ended_;
  held.unlock();
  if (when_it_ends_ == WhenTheServerEnds::kEndTheSameWay) EndTheSameWay(end);
  if (end.stopped) {
    return Error(ErrorCode::kInternal,
                 fmt::format("the plugin server stopped itself with signal {}, and sectl ended it",
                             end.value));
  }
  if (end.broke_protocol) {
    return Error(ErrorCode::kInternal,
                 "the plugin server answered what no server sends (its channel to sectl was "
                 "written to), and sectl ended it");
  }
  if (end.stopped_answering) {
    return Error(ErrorCode::kInternal,
                 "the plugin server stopped answering without ending (its descriptors to sectl "
                 "were closed or replaced), and sectl ended it");
  }
  return Error(ErrorCode::kInternal,
               end.signaled ? fmt::format("the plugin server died of signal {}", end.value)
                            : fmt::format("the plugin server exited with status {}", end.value));
}

// The events the server sends while it serves calls: a host callback the
// plugin called. Its end of file is the server's end, unless this judge is
// closing the channel itself.
bool PluginServer::ServerStopped() {
  siginfo_t info{};
  if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WSTOPPED | WNOHANG | WNOWAIT) != 0 ||
      info.si_pid != pid_ || (info.si_code != CLD_STOPPED && info.si_code != CLD_TRAPPED)) {
    return false;
  }
  stopped_by_ = info.si_status;
  return true;
}

void PluginServer::ListenForEvents(const std::stop_token& stop) {
  while (!stop.stop_requested()) {
    // Woken now and then to look for a server the plugin stopped (SIGSTOP,
    // a traced stop), which would otherwise hold every call until the
    // check's deadline, and read as a hang.
    pollfd ready{events_.get(), POLLIN, 0};
    const int polled = ::poll(&ready, 1, kStopCheckMilliseconds);
    if (stopping_) return;
    if (polled == 0 || (polled < 0 && errno == EINTR)) {
      if (polled == 0 && ServerStopped()) {
        (void)ServerGone();  // ends this process in kEndTheSameWay
        return;
      }
      continue;
    }
    Event event;
    const ssize_t got = ::recv(events_.get(), &event, sizeof(event), MSG_DONTWAIT);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (stopping_) return;
    if (got <= 0) {
      (void)ServerGone();  // ends this process in kEndTheSameWay
      return;
    }
    if (got != sizeof(event) || event.version != kProtocolVersion ||
        event.text_length > kMaxMessageText) {
      // A server that breaks the protocol is not to be listened to.
      (void)ServerBrokeProtocol();  // ends this process in kEndTheSameWay
      return;
    }
    callbacks_->Handle(event);
  }
}

class PluginServer::LaneLease {
 public:
  explicit LaneLease(PluginServer& server) : server_(server) {
    {
      const std::lock_guard<std::mutex> held(server_.lanes_mutex_);
      if (!server_.idle_lanes_.empty()) {
        lane_ = std::move(server_.idle_lanes_.back());
        server_.idle_lanes_.pop_back();
        return;
      }
      if (server_.lanes_open_ >= kMaxLanes) {
        shared_.emplace(server_.main_mutex_);
        return;
      }
      ++server_.lanes_open_;
    }
    lane_ = server_.OpenLane();
    if (lane_ == nullptr) {
      {
        const std::lock_guard<std::mutex> held(server_.lanes_mutex_);
        --server_.lanes_open_;
      }
      shared_.emplace(server_.main_mutex_);
    }
  }
  ~LaneLease() {
    if (lane_ == nullptr) return;
    const std::lock_guard<std::mutex> held(server_.lanes_mutex_);
    server_.idle_lanes_.push_back(std::move(lane_));
  }
  LaneLease(const LaneLease&) = delete;
  LaneLease& operator=(const LaneLease&) = delete;

  int socket() const { return lane_ != nullptr ? lane_->socket.get() : server_.main_.get(); }

 private:
  PluginServer& server_;
  std::unique_ptr<Lane> lane_;
  std::optional<std::unique_lock<std::mutex>> shared_;  // the main channel's
};

// A new lane: a socket pair whose other end goes to the server over the
// main channel; a server thread serves it from then on. nullptr when the
// server would not (its own bound, or no thread for it).
std::unique_ptr<PluginServer::Lane> PluginServer::OpenLane() {
  std::array<int, 2> sockets{-1, -1};
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sockets.data()) != 0) return nullptr;
  auto lane = std::make_unique<Lane>(Lane{OwnedDescriptor(sockets[0])});
  const OwnedDescriptor server_end(sockets[1]);
  Request request;
  request.kind = RequestKind::kOpenLane;
  const std::lock_guard<std::mutex> held(main_mutex_);
  auto reply = ExchangeOn(main_.get(), request, server_end.get());
  if (!reply || reply->outcome != Outcome::kReturned) return nullptr;
  return lane;
}

size_t PluginServer::lanes_open() const {
  const std::lock_guard<std::mutex> held(lanes_mutex_);
  return lanes_open_;
}

Expected<Reply> PluginServer::Exchange(const Request& request) {
  if (gone_) return tl::unexpected(ServerGone());
  const LaneLease lane(*this);
  return ExchangeOn(lane.socket(), request);
}

Expected<Reply> PluginServer::ExchangeOn(int socket, const Request& request, int attached) {
  if (gone_) return tl::unexpected(ServerGone());
  iovec data{const_cast<Request*>(&request), sizeof(request)};  // NOLINT: sendmsg's type
  alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(int))> control{};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  if (attached >= 0) {
    message.msg_control = control.data();
    message.msg_controllen = control.size();
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(header), &attached, sizeof(int));
  }
  ssize_t sent = 0;
  do {
    sent = ::sendmsg(socket, &message, MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  if (sent != sizeof(request)) return tl::unexpected(ServerGone());
  Reply reply;
  ssize_t got = 0;
  do {
    got = ::recv(socket, &reply, sizeof(reply), 0);
  } while (got < 0 && errno == EINTR);
  if (got <= 0) return tl::unexpected(ServerGone());
  if (got != sizeof(reply) || reply.version != kProtocolVersion ||
      reply.text_length > kMaxMessageText) {
    return tl::unexpected(ServerBrokeProtocol());
  }
  return reply;
}

Error PluginServer::ServerBrokeProtocol() {
  broke_protocol_ = true;
  {
    // Not a pid reaped already, which another process may have by now.
    const std::lock_guard<std::mutex> held(end_mutex_);
    if (!ended_) ::kill(pid_, SIGKILL);
  }
  return ServerGone();
}

Expected<uint64_t> PluginServer::Load(const std::string& plugin_path, bool lazy) {
  Request request;
  request.kind = RequestKind::kLoad;
  request.arguments[0] = lazy ? 1 : 0;
  request.argument_count = 1;
  PutText(request, plugin_path);
  auto reply = Exchange(request);
  if (!reply) return tl::unexpected(reply.error());
  if (reply->outcome != Outcome::kReturned) {
    return Fail(ErrorCode::kFailedPrecondition, std::string(reply->text, reply->text_length));
  }
  return reply->result;
}

Expected<void> PluginServer::LoadHostLibrary(const std::string& path) {
  Request request;
  request.kind = RequestKind::kLoadHostLibrary;
  PutText(request, path);
  auto reply = Exchange(request);
  if (!reply) return tl::unexpected(reply.error());
  if (reply->outcome != Outcome::kReturned) {
    return Fail(ErrorCode::kInternal,
                fmt::format("sectl could not load its stand-in {} in the plugin's process: {}",
                            path, std::string_view(reply->text, reply->text_length)));
  }
  return {};
}

Expected<uint64_t> PluginServer::EntryPoint(std::string_view name) {
  Request request;
  request.kind = RequestKind::kEntryPoint;
  PutText(request, std::string(name));
  auto reply = Exchange(request);
  if (!reply) return tl::unexpected(reply.error());
  if (reply->outcome != Outcome::kReturned) {
    return Fail(ErrorCode::kInternal,
                fmt::format("the plugin server could not look up {}: {}", name,
                            std::string_view(reply->text, reply->text_length)));
  }
  return reply->result;
}

Expected<std::string> PluginServer::ReadRecording(size_t limit) {
  std::string text;
  uint64_t total = 1;  // until the first answer says
  while (text.size() < total) {
    Request request;
    request.kind = RequestKind::kReadRecording;
    request.arguments[0] = text.size();
    request.argument_count = 1;
    auto reply = Exchange(request);
    if (!reply) return tl::unexpected(reply.error());
    if (reply->outcome != Outcome::kReturned) {
      return Fail(ErrorCode::kPluginError,
                  fmt::format("the plugin server could not hand over its recording: {}",
                              std::string_view(reply->text, reply->text_length)));
    }
    if (text.empty()) total = reply->result;
    // The length is the server's word, and the server is the plugin's
    // process: a document that grows, or stops short, is refused.
    if (reply->result != total || total > limit) {
      return Fail(ErrorCode::kPluginError,
                  total > limit ? fmt::format("the plugin's recording is {} bytes, more than the "
                                              "{} sectl reads",
                                              total, limit)
                                : std::string("the plugin's recording changed while it was read"));
    }
    if (total == 0) break;
    if (reply->text_length == 0 || reply->text_length > total - text.size()) {
      return Fail(ErrorCode::kPluginError,
                  "the plugin's recording does not add up to the length it gave");
    }
    text.append(reply->text, reply->text_length);
  }
  return text;
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
  std::string text(reply->text, reply->text_length);
  // A longer message than one reply holds: said as the judge cuts its own
  // (base/text.h), and short enough with the note not to be cut again.
  if (reply->full_text_length > reply->text_length) {
    const size_t note = NoteCutText("", reply->full_text_length, kMaxMessageText).size();
    text.resize(kMaxMessageText > note ? std::min(text.size(), kMaxMessageText - note) : 0);
    text = NoteCutText(text, reply->full_text_length, kMaxMessageText);
  }
  return CallAnswer{reply->outcome, reply->result, reply->status_code, std::move(text)};
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

Expected<std::vector<std::byte>> PluginServer::ReadBytes(uint64_t address, size_t size) {
  if (size > 0 && address + size < address) {
    return Fail(ErrorCode::kInvalidArgument, "the range wraps around the address space");
  }
  std::vector<std::byte> bytes;
  bytes.reserve(size);
  for (size_t done = 0; done < size;) {
    Request request;
    request.kind = RequestKind::kReadBytes;
    request.target = address + done;
    request.arguments[0] = std::min(size - done, kMaxMessageText);
    request.argument_count = 1;
    auto reply = Exchange(request);
    if (!reply) return tl::unexpected(reply.error());
    if (reply->outcome != Outcome::kReturned || reply->text_length != request.arguments[0]) {
      return Fail(ErrorCode::kFailedPrecondition,
                  fmt::format("the plugin's memory at {:#x} ({} bytes) is {}", request.target,
                              request.arguments[0], std::string(reply->text, reply->text_length)));
    }
    const auto* chunk = reinterpret_cast<const std::byte*>(reply->text);
    bytes.insert(bytes.end(), chunk, chunk + reply->text_length);
    done += reply->text_length;
  }
  return bytes;
}

Expected<void> PluginServer::WriteBytes(uint64_t address, std::span<const std::byte> bytes) {
  if (!bytes.empty() && address + bytes.size() < address) {
    return Fail(ErrorCode::kInvalidArgument, "the range wraps around the address space");
  }
  for (size_t done = 0; done < bytes.size();) {
    Request request;
    request.kind = RequestKind::kWriteBytes;
    request.target = address + done;
    request.text_length = static_cast<uint32_t>(std::min(bytes.size() - done, kMaxMessageText));
    std::memcpy(request.text, bytes.data() + done, request.text_length);
    auto reply = Exchange(request);
    if (!reply) return tl::unexpected(reply.error());
    if (reply->outcome != Outcome::kReturned) {
      return Fail(ErrorCode::kFailedPrecondition,
                  fmt::format("the plugin's memory at {:#x} ({} bytes) is {}", request.target,
                              request.text_length, std::string(reply->text, reply->text_length)));
    }
    done += request.text_length;
  }
  return {};
}

Expected<void> PluginServer::ProtectArena(const void* address, size_t bytes, bool accessible) {
  Request request;
  request.kind = RequestKind::kProtectArena;
  request.target = reinterpret_cast<uintptr_t>(address);
  request.arguments[0] = bytes;
  request.arguments[1] = accessible ? 1 : 0;
  request.argument_count = 2;
  auto reply = Exchange(request);
  if (!reply) return tl::unexpected(reply.error());
  if (reply->outcome != Outcome::kReturned) {
    return Fail(ErrorCode::kInternal,
                fmt::format("the plugin server could not protect {} bytes of its arena at {}: {}",
                            bytes, address, std::string(reply->text, reply->text_length)));
  }
  return {};
}

Expected<ServerExit> PluginServer::ExitProcess(std::chrono::milliseconds patience) {
  ReportItsEnd();
  Request request;
  request.kind = RequestKind::kExitProcess;
  const auto asked = std::chrono::steady_clock::now();
  {
    const std::lock_guard<std::mutex> held(main_mutex_);
    auto reply = ExchangeOn(main_.get(), request);
    if (!reply) return tl::unexpected(reply.error());
    if (reply->outcome != Outcome::kReturned) {
      return Fail(ErrorCode::kInternal, fmt::format("the plugin server refused to exit: {}",
                                                    std::string(reply->text, reply->text_length)));
    }
  }
  // Watched here rather than left to the event listener: a process the
  // plugin's destructors started may hold the event channel open.
  ServerExit exit;
  const auto deadline = asked + patience;
  while (true) {
    siginfo_t info{};
    const bool exited =
        ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == pid_;
    if (exited || ended()) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      exit.hung = true;
      const std::lock_guard<std::mutex> held(end_mutex_);
      if (!ended_) ::kill(pid_, SIGKILL);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  exit.took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - asked);
  (void)ServerGone();  // reaps it, once
  exit.end = *ended();
  return exit;
}

Expected<ResourceReport> PluginServer::ResourcesInUse() {
  Request request;
  request.kind = RequestKind::kResourcesInUse;
  auto reply = Exchange(request);
  if (!reply) return tl::unexpected(reply.error());
  ResourceReport heap;
  if (reply->outcome != Outcome::kReturned || reply->text_length != sizeof(heap)) {
    return Fail(ErrorCode::kInternal, "the plugin server did not report its resources");
  }
  std::memcpy(&heap, reply->text, sizeof(heap));
  return heap;
}

Expected<uint64_t> PluginServer::ResidentBytes() const { return ResidentBytesOf(pid_); }
Expected<uint64_t> PluginServer::ThreadCount() const { return ThreadCountOf(pid_); }
Expected<uint64_t> PluginServer::OpenDescriptorCount() const { return OpenDescriptorCountOf(pid_); }

}  // namespace sectl::remote
