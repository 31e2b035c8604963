// sectl-plugin-server CHANNEL_FD ARENA_FD ARENA_BASE ARENA_BYTES: the
// process that loads a plugin for sectl's judge and performs the calls it
// is asked to perform (docs/plugin-server.md). A separate executable, not a
// fork of sectl: nothing of sectl's memory, code, keys or strings is here
// for the plugin to find. It knows the call protocol, the plugin ABI and
// the TF_Status functions plugins link against, and nothing of any check.
#include <dlfcn.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "remote/arena.h"
#include "remote/call_protocol.h"
#include "remote/word_call.h"
#include "tensorflow/c/tf_status.h"

namespace {

using sectl::remote::Outcome;
using sectl::remote::Reply;
using sectl::remote::Request;
using sectl::remote::RequestKind;

// Not dumpable before any other code runs (as sectl itself).
void MakeNotDumpable(int /*argc*/, char** /*argv*/, char** /*envp*/) {
  ::prctl(PR_SET_DUMPABLE, 0);
}
__attribute__((section(".preinit_array"),
               used)) void (*const make_not_dumpable)(int, char**, char**) = MakeNotDumpable;

constexpr int kExitUsage = 2;

// What the judge sent as a number: an address in this process.
template <typename Pointer>
Pointer AtAddress(uint64_t address) {
  return reinterpret_cast<Pointer>(address);  // NOLINT(performance-no-int-to-ptr)
}
constexpr int kExitProtocol = 3;

void PutText(Reply& reply, const char* text, size_t length) {
  reply.text_length = static_cast<uint32_t>(std::min(length, sectl::remote::kMaxMessageText));
  std::memcpy(reply.text, text, reply.text_length);
}

Reply Load(const Request& request) {
  Reply reply;
  const std::string path(request.text, request.text_length);
  ::dlerror();
  void* library = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = ::dlerror();
    reply.outcome = Outcome::kFailed;
    const std::string text = why != nullptr ? why : "dlopen failed";
    PutText(reply, text.data(), text.size());
    return reply;
  }
  reply.result = reinterpret_cast<uintptr_t>(::dlsym(library, "SE_InitPlugin"));
  return reply;
}

Reply Call(const Request& request) {
  Reply reply;
  const auto function = static_cast<sectl::abi::PluginFunction>(request.function);
  const sectl::remote::WordCaller caller =
      sectl::abi::IsPluginFunction(function) ? sectl::remote::CallerOf(function) : nullptr;
  if (caller == nullptr || request.target == 0) {
    reply.outcome = Outcome::kFailed;
    constexpr char kWhy[] = "the plugin server cannot make this call";
    PutText(reply, kWhy, sizeof(kWhy) - 1);
    return reply;
  }
  TF_Status* status = TF_NewStatus();
  const std::string text_in(request.text, request.text_length);
  TF_SetStatus(status, static_cast<TF_Code>(request.status_code), text_in.c_str());
  try {
    reply.result = caller(AtAddress<void*>(request.target), request.arguments, status);
  } catch (...) {
    reply.outcome = Outcome::kThrew;
  }
  reply.status_code = TF_GetCode(status);
  const char* message = TF_Message(status);
  if (message != nullptr) PutText(reply, message, std::strlen(message));
  TF_DeleteStatus(status);
  return reply;
}

Reply ReadString(const Request& request) {
  Reply reply;
  const char* text = AtAddress<const char*>(request.target);
  if (text != nullptr) {
    const size_t limit = std::min<size_t>(request.arguments[0], sectl::remote::kMaxMessageText);
    PutText(reply, text, ::strnlen(text, limit));
  }
  return reply;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) return kExitUsage;
  const int channel = std::atoi(argv[1]);
  const int arena_descriptor = std::atoi(argv[2]);
  const uintptr_t base = std::strtoull(argv[3], nullptr, 16);
  const size_t bytes = std::strtoull(argv[4], nullptr, 10);
  auto arena = sectl::remote::Arena::Adopt(arena_descriptor, base, bytes);
  if (!arena) return kExitUsage;
  while (true) {
    Request request;
    const ssize_t got = ::recv(channel, &request, sizeof(request), 0);
    if (got == 0) return 0;  // the judge is done
    if (got < 0 && errno == EINTR) continue;
    if (got != sizeof(request) || request.version != sectl::remote::kProtocolVersion ||
        request.argument_count > sectl::remote::kMaxCallArguments ||
        request.text_length > sectl::remote::kMaxMessageText) {
      return kExitProtocol;
    }
    Reply reply;
    switch (request.kind) {
      case RequestKind::kLoad:
        reply = Load(request);
        break;
      case RequestKind::kCall:
        reply = Call(request);
        break;
      case RequestKind::kReadString:
        reply = ReadString(request);
        break;
      default:
        return kExitProtocol;
    }
    if (::send(channel, &reply, sizeof(reply), MSG_NOSIGNAL) != sizeof(reply)) return 0;
  }
}

// Sanitized builds: the sanitizer's own handler of SIGSEGV and friends would
// turn the plugin's crash into an exit(1) of the server, and the judge would
// end with that instead of the signal (isolation/child_process.cc says the
// same for sectl's processes). ASAN_OPTIONS in the environment still wins.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SECTL_SERVER_ADDRESS_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SECTL_SERVER_ADDRESS_SANITIZER 1
#endif
#if defined(SECTL_SERVER_ADDRESS_SANITIZER)
extern "C" const char* __asan_default_options() {  // NOLINT(bugprone-reserved-identifier)
  return "handle_segv=0:handle_sigbus=0:handle_sigill=0:handle_sigfpe=0:handle_abort=0";
}
#endif
