#include "tool/plugin_server/crash_report.h"

#include <execinfo.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <csignal>
#include <string_view>

#include "isolation/guard_malloc.h"
#include "remote/call_protocol.h"

namespace sectl::plugin_server {
namespace {

using remote::CrashReportHeader;
using remote::CrashReportKind;
using remote::kMaxCrashReportText;

constexpr size_t kAlternateStackBytes = size_t{64} * 1024;

int report_channel = -1;

// One packet, without waiting: a channel the plugin filled loses the
// report rather than hang the crash. sendmsg is async-signal-safe.
void Send(CrashReportKind kind, const char* text, size_t size) {
  CrashReportHeader header;
  header.kind = kind;
  std::array<iovec, 2> pieces{iovec{&header, sizeof(header)},
                              iovec{const_cast<char*>(text),  // NOLINT: sendmsg's type
                                    std::min(size, kMaxCrashReportText)}};
  msghdr message{};
  message.msg_iov = pieces.data();
  message.msg_iovlen = pieces.size();
  (void)::sendmsg(report_channel, &message, MSG_DONTWAIT | MSG_NOSIGNAL);
}

void SendGuardPageFault(std::string_view description) {
  Send(CrashReportKind::kGuardPageFault, description.data(), description.size());
}

// As a check's child does (isolation/child_process.cc): backtrace() was
// called once at set-up, so that nothing is loaded here; the lines go
// through a pipe made here, then out as one packet.
void SendBacktraceAndDie(int signal) {
  constexpr int kMaxFrames = 64;
  static std::array<void*, kMaxFrames> frames{};
  const int count = ::backtrace(frames.data(), kMaxFrames);
  std::array<int, 2> staging{-1, -1};
  if (::pipe2(staging.data(), O_CLOEXEC | O_NONBLOCK) == 0) {
    ::backtrace_symbols_fd(frames.data(), count, staging[1]);
    static std::array<char, kMaxCrashReportText> lines{};
    const ssize_t got = ::read(staging[0], lines.data(), lines.size());
    if (got > 0) Send(CrashReportKind::kBacktrace, lines.data(), static_cast<size_t>(got));
  }
  ::signal(signal, SIG_DFL);
  ::raise(signal);
}

}  // namespace

void InstallCrashReport(int channel) {
  report_channel = channel;
  isolation::SetGuardPageFaultSink(SendGuardPageFault);
  std::array<void*, 1> warm_up{};
  ::backtrace(warm_up.data(), 1);
  struct sigaction action {};
  action.sa_handler = SendBacktraceAndDie;
  action.sa_flags = SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  for (int signal : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) {
    ::sigaction(signal, &action, nullptr);
  }
}

AlternateSignalStack::AlternateSignalStack() {
  void* memory = ::mmap(nullptr, kAlternateStackBytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED) return;  // the handler runs on the thread's own stack
  stack_t stack{};
  stack.ss_sp = memory;
  stack.ss_size = kAlternateStackBytes;
  if (::sigaltstack(&stack, nullptr) != 0) {
    ::munmap(memory, kAlternateStackBytes);
    return;
  }
  memory_ = memory;
}

AlternateSignalStack::~AlternateSignalStack() {
  if (memory_ == nullptr) return;
  stack_t off{};
  off.ss_flags = SS_DISABLE;
  ::sigaltstack(&off, nullptr);
  ::munmap(memory_, kAlternateStackBytes);
}

}  // namespace sectl::plugin_server
