// sectl-plugin-server CHANNEL_FD ARENA_FD ARENA_BASE ARENA_BYTES EVENT_FD
//                     CRASH_REPORT_FD guarded|plain:
// the process that loads a plugin for sectl's judge and performs the calls
// it is asked to perform (docs/plugin-server.md). A separate executable, not
// a fork of sectl: nothing of sectl's memory, code, keys or strings is here
// for the plugin to find. It knows the call protocol, the plugin ABI, the
// TF_Status functions plugins link against, and the guard-page allocator
// (`guarded`: on from the moment it loads the plugin), and nothing of any
// check. When the plugin crashes it, it reports the crash on CRASH_REPORT_FD
// (crash_report.h).
#include <dlfcn.h>
#include <fcntl.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "isolation/guard_malloc.h"
#include "remote/arena.h"
#include "remote/call_protocol.h"
#include "remote/owned_descriptor.h"
#include "remote/word_call.h"
#include "tensorflow/c/tf_status.h"
#include "tf_c_api/recorded_registrations.h"
#include "tool/plugin_server/crash_report.h"

namespace {

using sectl::remote::Event;
using sectl::remote::EventAnswer;
using sectl::remote::kMaxMessageText;
using sectl::remote::kProtocolVersion;
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
constexpr int kExitProtocol = 3;

// What the judge sent as a number: an address in this process.
template <typename Pointer>
Pointer AtAddress(uint64_t address) {
  return reinterpret_cast<Pointer>(address);  // NOLINT(performance-no-int-to-ptr)
}

template <typename Message>
void PutText(Message& message, const char* text, size_t length) {
  message.text_length = static_cast<uint32_t>(std::min(length, kMaxMessageText));
  std::memcpy(message.text, text, message.text_length);
}

void PutText(Reply& reply, const char* text) { PutText(reply, text, std::strlen(text)); }

using Descriptor = sectl::remote::OwnedDescriptor;

// Copies to and from addresses the judge names that cannot fault: the bytes
// go through a pipe, and the kernel answers EFAULT where a plain memcpy
// would die of SIGSEGV. A judge asking for an address the plugin did not
// map must get "not readable", not a dead server that reads as the
// plugin's crash. (process_vm_readv on this process would do the same, but
// the plugin process's seccomp filter refuses it.)
class FaultFreeCopy {
 public:
  bool Open() {
    int ends[2] = {-1, -1};
    if (::pipe2(ends, O_CLOEXEC | O_NONBLOCK) != 0) return false;
    read_end_ = ends[0];
    write_end_ = ends[1];
    return true;
  }

  // Whether all `bytes` at `from` could be read into `to` (this process's).
  bool Read(const void* from, void* to, size_t bytes) {
    const std::lock_guard<std::mutex> held(mutex_);
    const ssize_t in = ::write(write_end_, from, bytes);
    const bool whole = in == static_cast<ssize_t>(bytes) && ::read(read_end_, to, bytes) == in;
    Drain();
    return whole;
  }

  // Whether all `bytes` from `from` (this process's) could be written to
  // `to`. Bytes before an unwritable one may have been written.
  bool Write(void* to, const void* from, size_t bytes) {
    const std::lock_guard<std::mutex> held(mutex_);
    const ssize_t in = ::write(write_end_, from, bytes);
    const bool whole = in == static_cast<ssize_t>(bytes) && ::read(read_end_, to, bytes) == in;
    Drain();
    return whole;
  }

 private:
  // Whatever a faulting copy left in the pipe.
  void Drain() {
    char scratch[kMaxMessageText];
    while (::read(read_end_, scratch, sizeof(scratch)) > 0) {
    }
  }

  std::mutex mutex_;
  int read_end_ = -1;
  int write_end_ = -1;
};

FaultFreeCopy fault_free_copy;

// Host callbacks: the trampoline the plugin calls sends an Event to the
// judge and waits for its answer; one thread reads the answers and hands
// each to the trampoline waiting for it, so several callbacks can be in
// flight at once, on any of the plugin's threads.
class EventHub {
 public:
  explicit EventHub(int channel) : channel_(channel) {}

  // Runs the judge's callback `callback` with `status` going in, and puts
  // what the callback set into `status`.
  void Deliver(uint64_t callback, TF_Status* status) {
    Event event;
    event.callback = callback;
    event.status_code = TF_GetCode(status);
    const char* message = TF_Message(status);
    if (message != nullptr) PutText(event, message, std::strlen(message));
    std::unique_lock<std::mutex> held(mutex_);
    if (judge_gone_) {
      TF_SetStatus(status, TF_INTERNAL, "the judge is gone: the host callback did not run");
      return;
    }
    event.sequence = ++last_sequence_;
    auto& slot = answers_[event.sequence];
    held.unlock();
    // One packet per event: sends from several threads do not interleave.
    const bool sent = ::send(channel_, &event, sizeof(event), MSG_NOSIGNAL) == sizeof(event);
    held.lock();
    if (sent) answered_.wait(held, [&] { return slot.has_value() || judge_gone_; });
    if (slot.has_value()) {
      const std::string text(slot->text, slot->text_length);
      TF_SetStatus(status, static_cast<TF_Code>(slot->status_code), text.c_str());
    } else {
      TF_SetStatus(status, TF_INTERNAL, "the judge is gone: the host callback did not finish");
    }
    answers_.erase(event.sequence);
  }

  // The answers' reader, until the judge closes the channel.
  void ReadAnswers() {
    while (true) {
      EventAnswer answer;
      const ssize_t got = ::recv(channel_, &answer, sizeof(answer), 0);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) break;
      if (got != sizeof(answer) || answer.version != kProtocolVersion ||
          answer.text_length > kMaxMessageText) {
        ::_exit(kExitProtocol);
      }
      const std::lock_guard<std::mutex> held(mutex_);
      const auto waiting = answers_.find(answer.sequence);
      // An answer nobody waits for is dropped: the judge's mistake, and
      // harmless here.
      if (waiting == answers_.end() || waiting->second.has_value()) continue;
      waiting->second = answer;
      answered_.notify_all();
    }
    const std::lock_guard<std::mutex> held(mutex_);
    judge_gone_ = true;
    answered_.notify_all();
  }

 private:
  int channel_;
  std::mutex mutex_;
  std::condition_variable answered_;
  uint64_t last_sequence_ = 0;
  bool judge_gone_ = false;
  std::map<uint64_t, std::optional<EventAnswer>> answers_;
};

EventHub* event_hub = nullptr;

// What the plugin is handed as every host callback: its argument is the
// judge's id for the real one.
void HostCallbackTrampoline(void* callback, TF_Status* status) {
  event_hub->Deliver(reinterpret_cast<uintptr_t>(callback), status);
}

// Whether the plugin's small heap blocks go against guard pages
// (isolation/guard_malloc.h): the judge's choice, at start.
bool guard_plugin_heap = false;
std::once_flag guard_enabled;

// The plugin kLoad opened; never closed (loader/plugin_library.h says why).
std::atomic<void*> loaded_plugin{nullptr};

Reply Load(const Request& request) {
  Reply reply;
  const std::string path(request.text, request.text_length);
  // Right before the plugin is loaded: the code mapped now is the server's,
  // and what the plugin (and the libraries it brings) allocates from here
  // on is guarded, its constructors' blocks included.
  if (guard_plugin_heap) {
    std::call_once(guard_enabled, [&] { sectl::isolation::EnableGuardMalloc(path.c_str()); });
  }
  ::dlerror();
  // arguments[0]: 1 for lazy binding (sectl's --lazy), as sectl loads it
  // in its own process.
  const int binding =
      request.argument_count > 0 && request.arguments[0] != 0 ? RTLD_LAZY : RTLD_NOW;
  void* library = ::dlopen(path.c_str(), binding | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = ::dlerror();
    reply.outcome = Outcome::kFailed;
    PutText(reply, why != nullptr ? why : "dlopen failed");
    return reply;
  }
  loaded_plugin = library;
  reply.result = reinterpret_cast<uintptr_t>(::dlsym(library, "SE_InitPlugin"));
  return reply;
}

Reply EntryPoint(const Request& request) {
  Reply reply;
  const std::string name(request.text, request.text_length);
  const bool known = std::any_of(std::begin(sectl::remote::kModuleEntryPointNames),
                                 std::end(sectl::remote::kModuleEntryPointNames),
                                 [&](const char* entry_point) { return name == entry_point; });
  void* plugin = loaded_plugin.load();
  if (!known || plugin == nullptr) {
    reply.outcome = Outcome::kFailed;
    PutText(reply, known ? "no plugin is loaded" : "not a module entry point");
    return reply;
  }
  reply.result = reinterpret_cast<uintptr_t>(::dlsym(plugin, name.c_str()));
  return reply;
}

// The recording's JSON as made at the last read from offset 0.
std::mutex recording_mutex;
std::string recording_text;

Reply ReadRecording(const Request& request) {
  Reply reply;
  const std::lock_guard held(recording_mutex);
  const uint64_t offset = request.argument_count > 0 ? request.arguments[0] : 0;
  if (offset == 0) {
    try {
      recording_text = sectl::tf_c_api::RecordingToJson(sectl::tf_c_api::RecordedSoFar());
    } catch (const std::bad_alloc&) {
      reply.outcome = Outcome::kFailed;
      PutText(reply, "the plugin server ran out of memory making the recording's text");
      return reply;
    }
  }
  reply.result = recording_text.size();
  if (offset < recording_text.size()) {
    PutText(reply, recording_text.data() + offset,
            std::min<size_t>(recording_text.size() - offset, kMaxMessageText));
  }
  return reply;
}

Reply LoadHostLibrary(const Request& request) {
  Reply reply;
  const std::string path(request.text, request.text_length);
  ::dlerror();
  // Never closed: the plugin may need it for the life of the process.
  if (::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL) == nullptr) {
    const char* why = ::dlerror();
    reply.outcome = Outcome::kFailed;
    PutText(reply, why != nullptr ? why : "dlopen failed");
  }
  return reply;
}

Reply Call(const Request& request) {
  Reply reply;
  const auto function = static_cast<sectl::abi::PluginFunction>(request.function);
  const sectl::remote::WordCaller caller =
      sectl::abi::IsPluginFunction(function) ? sectl::remote::CallerOf(function) : nullptr;
  if (caller == nullptr || request.target == 0) {
    reply.outcome = Outcome::kFailed;
    PutText(reply, "the plugin server cannot make this call");
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
  // An overrun into the padding of an aligned block this call allocated
  // crashes here, while the judge still waits for this call, rather than
  // at the plugin's next allocation (nothing when the guard is off).
  sectl::isolation::VerifyRecentGuardedBlocks();
  reply.status_code = TF_GetCode(status);
  const char* message = TF_Message(status);
  if (message != nullptr) {
    reply.full_text_length = std::strlen(message);
    PutText(reply, message, reply.full_text_length);
  }
  TF_DeleteStatus(status);
  return reply;
}

Reply ReadString(const Request& request) {
  Reply reply;
  const char* text = AtAddress<const char*>(request.target);
  if (text != nullptr) {
    const size_t limit = std::min<size_t>(request.arguments[0], kMaxMessageText);
    PutText(reply, text, ::strnlen(text, limit));
  }
  return reply;
}

Reply ReadBytes(const Request& request) {
  Reply reply;
  const size_t bytes = std::min<size_t>(request.arguments[0], kMaxMessageText);
  if (!fault_free_copy.Read(AtAddress<const void*>(request.target), reply.text, bytes)) {
    reply.outcome = Outcome::kFailed;
    PutText(reply, "not readable in the plugin's process");
    return reply;
  }
  reply.text_length = static_cast<uint32_t>(bytes);
  return reply;
}

Reply WriteBytes(const Request& request) {
  Reply reply;
  if (!fault_free_copy.Write(AtAddress<void*>(request.target), request.text, request.text_length)) {
    reply.outcome = Outcome::kFailed;
    PutText(reply, "not writable in the plugin's process");
  }
  return reply;
}

// The judge's arena as mapped here; set once in main before any request.
const sectl::remote::Arena* served_arena = nullptr;

Reply ProtectArena(const Request& request) {
  Reply reply;
  const uintptr_t start = request.target;
  const size_t length = request.arguments[0];
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  // NOLINTNEXTLINE(performance-no-int-to-ptr)
  if (served_arena == nullptr || !served_arena->Contains(AtAddress<const void*>(start), length) ||
      start % page != 0 || length % page != 0) {
    reply.outcome = Outcome::kFailed;
    PutText(reply, "not a whole-page range of the arena");
    return reply;
  }
  const int access = request.arguments[1] != 0 ? PROT_READ | PROT_WRITE : PROT_NONE;
  if (::mprotect(AtAddress<void*>(start), length, access) != 0) {
    reply.outcome = Outcome::kFailed;
    PutText(reply, std::strerror(errno));
  }
  return reply;
}

// The number after `field:` in this process's /proc/self/status; 0 if none.
uint64_t OwnStatusField(std::string_view field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.size() > field.size() && line.starts_with(field) && line[field.size()] == ':') {
      return std::strtoull(line.c_str() + field.size() + 1, nullptr, 10);
    }
  }
  return 0;
}

Reply ResourcesInUse() {
  Reply reply;
  const struct mallinfo2 info = ::mallinfo2();
  sectl::remote::ResourceReport heap;
  heap.threads = OwnStatusField("Threads");
  heap.resident_bytes = OwnStatusField("VmRSS") * 1024;
  heap.malloc_bytes = info.uordblks + info.hblkhd;
  const auto guarded = sectl::isolation::GuardMallocCountersNow();
  heap.guarded_allocations = guarded.guarded_allocations;
  heap.guarded_live_blocks = guarded.live_blocks;
  heap.guarded_live_bytes = guarded.live_bytes;
  heap.guard_fallbacks = guarded.fallbacks;
  static_assert(sizeof(heap) <= kMaxMessageText);
  std::memcpy(reply.text, &heap, sizeof(heap));
  reply.text_length = sizeof(heap);
  return reply;
}

bool IsValid(const Request& request, ssize_t got) {
  return got == sizeof(request) && request.version == kProtocolVersion &&
         request.argument_count <= sectl::remote::kMaxCallArguments &&
         request.text_length <= kMaxMessageText;
}

// The answer to any request but kOpenLane; nullopt for one the protocol
// does not know.
std::optional<Reply> Answer(const Request& request) {
  switch (request.kind) {
    case RequestKind::kLoad:
      return Load(request);
    case RequestKind::kLoadHostLibrary:
      return LoadHostLibrary(request);
    case RequestKind::kEntryPoint:
      return EntryPoint(request);
    case RequestKind::kReadRecording:
      return ReadRecording(request);
    case RequestKind::kCall:
      return Call(request);
    case RequestKind::kReadString:
      return ReadString(request);
    case RequestKind::kReadBytes:
      return ReadBytes(request);
    case RequestKind::kWriteBytes:
      return WriteBytes(request);
    case RequestKind::kProtectArena:
      return ProtectArena(request);
    case RequestKind::kResourcesInUse:
      return ResourcesInUse();
    case RequestKind::kOpenLane:
    case RequestKind::kExitProcess:
      break;
  }
  return std::nullopt;
}

std::atomic<size_t> lanes_open{0};

// One lane: its own thread, its own channel, until the judge closes it.
void ServeLane(Descriptor channel) {
  const sectl::plugin_server::AlternateSignalStack crash_stack;
  while (true) {
    Request request;
    const ssize_t got = ::recv(channel.get(), &request, sizeof(request), 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    if (!IsValid(request, got)) ::_exit(kExitProtocol);
    std::optional<Reply> reply;
    if (request.kind == RequestKind::kOpenLane || request.kind == RequestKind::kExitProcess) {
      reply = Reply{};
      reply->outcome = Outcome::kFailed;
      PutText(*reply, "lanes are opened, and the server ended, on the main channel");
    } else {
      reply = Answer(request);
    }
    if (!reply) ::_exit(kExitProtocol);
    if (::send(channel.get(), &*reply, sizeof(*reply), MSG_NOSIGNAL) != sizeof(*reply)) break;
  }
  lanes_open.fetch_sub(1);
}

// A new lane's thread. Detached: the server ends when the judge closes its
// main channel, and a lane whose thread is stuck in the plugin must not
// keep it alive then.
Reply OpenLane(std::optional<Descriptor>& lane) {
  Reply reply;
  int type = 0;
  socklen_t length = sizeof(type);
  if (!lane || ::getsockopt(lane->get(), SOL_SOCKET, SO_TYPE, &type, &length) != 0 ||
      type != SOCK_SEQPACKET) {
    reply.outcome = Outcome::kFailed;
    PutText(reply, "a lane needs one SOCK_SEQPACKET socket attached");
    return reply;
  }
  if (lanes_open.fetch_add(1) >= sectl::remote::kMaxLanes) {
    lanes_open.fetch_sub(1);
    reply.outcome = Outcome::kFailed;
    PutText(reply, "the plugin server serves no more lanes");
    return reply;
  }
  try {
    std::thread(ServeLane, std::move(*lane)).detach();
  } catch (const std::exception& error) {
    lanes_open.fetch_sub(1);
    reply.outcome = Outcome::kFailed;
    PutText(reply, error.what());
  }
  return reply;
}

// A request on the main channel, and the descriptors attached to it: the
// first one kept (a lane), any others closed at once.
ssize_t ReceiveOnMain(int channel, Request& request, std::optional<Descriptor>& attached) {
  iovec data{&request, sizeof(request)};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 4)] = {};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof(control);
  const ssize_t got = ::recvmsg(channel, &message, MSG_CMSG_CLOEXEC);
  if (got < 0) return got;
  for (cmsghdr* header = CMSG_FIRSTHDR(&message); header != nullptr;
       header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
    const size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t index = 0; index < count; ++index) {
      int descriptor = -1;
      std::memcpy(&descriptor, CMSG_DATA(header) + index * sizeof(int), sizeof(int));
      if (!attached) {
        attached.emplace(descriptor);
      } else {
        ::close(descriptor);
      }
    }
  }
  // A truncated request or an attachment cut short is not a request.
  if ((message.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0) {
    errno = EPROTO;
    return -1;
  }
  return got;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 8) return kExitUsage;
  const int channel = std::atoi(argv[1]);
  const int arena_descriptor = std::atoi(argv[2]);
  const uintptr_t base = std::strtoull(argv[3], nullptr, 16);
  const size_t bytes = std::strtoull(argv[4], nullptr, 10);
  const int event_channel = std::atoi(argv[5]);
  const int crash_report_channel = std::atoi(argv[6]);
  const std::string heap = argv[7];
  if (heap != "guarded" && heap != "plain") return kExitUsage;
  guard_plugin_heap = heap == "guarded";
  // Before any plugin code: a crash from here on is reported to the judge.
  const sectl::plugin_server::AlternateSignalStack crash_stack;
  sectl::plugin_server::InstallCrashReport(crash_report_channel);
  auto arena = sectl::remote::Arena::Adopt(arena_descriptor, base, bytes);
  if (!arena || !fault_free_copy.Open()) return kExitUsage;
  served_arena = &*arena;
  EventHub events(event_channel);
  event_hub = &events;
  sectl::remote::status_callback_trampoline = &HostCallbackTrampoline;
  // Detached, as lanes are: it ends when the judge closes the event channel.
  std::thread([&events] { events.ReadAnswers(); }).detach();
  while (true) {
    Request request;
    std::optional<Descriptor> attached;
    const ssize_t got = ReceiveOnMain(channel, request, attached);
    // The judge is done. Not a return from main: lane and event threads may
    // still be in the plugin, and static destructors (the plugin's, this
    // program's) must not run under them.
    if (got == 0) ::_exit(0);
    if (got < 0 && errno == EINTR) continue;
    if (!IsValid(request, got)) return kExitProtocol;
    if (request.kind == RequestKind::kExitProcess) {
      const Reply exiting;
      (void)::send(channel, &exiting, sizeof(exiting), MSG_NOSIGNAL);
      // As TensorFlow's process ends: the plugin's destructors and atexit
      // handlers run now, with its own threads still running. A crash in
      // them is reported as any other; a hang is the judge's to end. Lane
      // threads are idle; the plugin's own threads are its business.
      std::exit(0);  // NOLINT(concurrency-mt-unsafe)
    }
    std::optional<Reply> reply =
        request.kind == RequestKind::kOpenLane ? OpenLane(attached) : Answer(request);
    if (!reply) return kExitProtocol;
    if (::send(channel, &*reply, sizeof(*reply), MSG_NOSIGNAL) != sizeof(*reply)) ::_exit(0);
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
  // No leak check at exit either: its status would replace the plugin's
  // (the judge appends the same to an ASAN_OPTIONS it passes on; a
  // confined judge's environment has none).
  return "handle_segv=0:handle_sigbus=0:handle_sigill=0:handle_sigfpe=0:handle_abort=0:"
         "detect_leaks=0";
}
#endif
