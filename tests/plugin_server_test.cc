// The plugin server (docs/plugin-server.md): a separate executable loads the
// bundled cpu plugin and performs calls whose arguments live in the arena,
// mapped at one address in both processes; the judge reads what the plugin
// wrote there and asks the server for the plugin's strings. A server that
// dies in a call ends that call with an error that says how it died. Calls
// from several judge threads run at once, on lanes; host callbacks run in
// the judge as events; the judge reads and writes the plugin's host memory
// without a fault in the server; and it counts the server's resources.
#include "remote/plugin_server.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "host/device.h"
#include "host/dispatcher.h"
#include "host/journal.h"
#include "host/memory.h"
#include "host/platform.h"
#include "host/stream.h"
#include "loader/plugin_library.h"
#include "remote/host_callbacks.h"
#include "remote/server_resources.h"
#include "sectl_process.h"
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

namespace sectl::remote {
namespace {

constexpr size_t kArenaBytes = size_t{1} << 20;

// A struct of T in the arena, with struct_size set as TensorFlow sets it.
template <typename T>
T* InArena(Arena& arena, size_t struct_size) {
  auto* value = static_cast<T*>(arena.Allocate(sizeof(T)));
  value->struct_size = struct_size;
  return value;
}

uint64_t Word(const void* pointer) { return reinterpret_cast<uintptr_t>(pointer); }

TEST(PluginServer, RegistersThePluginThroughTheArena) {
  auto server = PluginServer::Start(SECTL_PLUGIN_SERVER, kArenaBytes);
  ASSERT_TRUE(server) << server.error().message();
  PluginServer& plugin = **server;
  auto init = plugin.Load(testing::ReferencePlugin("sectl_cpu"));
  ASSERT_TRUE(init) << init.error().message();
  ASSERT_NE(*init, 0U);

  Arena& arena = plugin.arena();
  auto* params =
      InArena<SE_PlatformRegistrationParams>(arena, SE_PLATFORM_REGISTRATION_PARAMS_STRUCT_SIZE);
  params->major_version = SE_MAJOR;
  params->minor_version = SE_MINOR;
  params->patch_version = SE_PATCH;
  params->platform = InArena<SP_Platform>(arena, SP_PLATFORM_STRUCT_SIZE);
  params->platform_fns = InArena<SP_PlatformFns>(arena, SP_PLATFORM_FNS_STRUCT_SIZE);
  const std::array<uint64_t, 2> words{Word(params), 0};
  auto registered = plugin.Call(abi::PluginFunction::kInitPlugin, *init, words);
  ASSERT_TRUE(registered) << registered.error().message();
  EXPECT_EQ(registered->outcome, Outcome::kReturned);
  EXPECT_EQ(registered->status_code, TF_OK) << registered->text;

  // The plugin filled the arena's structs; its strings stay in its process.
  ASSERT_NE(params->platform->name, nullptr);
  EXPECT_FALSE(arena.Contains(params->platform->name, 1));
  auto name = plugin.ReadString(Word(params->platform->name), 256);
  ASSERT_TRUE(name) << name.error().message();
  EXPECT_FALSE(name->empty());

  // A call through a function pointer the plugin wrote into the arena, with
  // an out-parameter in the arena.
  auto* count = static_cast<int*>(arena.Allocate(sizeof(int)));
  const std::array<uint64_t, 3> count_words{Word(params->platform), Word(count), 0};
  auto counted = plugin.Call(
      abi::PluginFunction::kGetDeviceCount,
      Word(reinterpret_cast<const void*>(params->platform_fns->get_device_count)), count_words);
  ASSERT_TRUE(counted) << counted.error().message();
  EXPECT_EQ(counted->status_code, TF_OK) << counted->text;
  EXPECT_GE(*count, 1);
  EXPECT_FALSE(plugin.ended());
}

TEST(PluginServer, ADeathInACallIsAnErrorThatSaysHow) {
  auto server = PluginServer::Start(SECTL_PLUGIN_SERVER, kArenaBytes);
  ASSERT_TRUE(server) << server.error().message();
  PluginServer& plugin = **server;
  ASSERT_TRUE(plugin.Load(testing::ReferencePlugin("sectl_cpu")));
  // A target that is no function: the server faults where the plugin would.
  const std::array<uint64_t, 2> words{0, 0};
  auto called = plugin.Call(abi::PluginFunction::kInitPlugin, 8, words);
  ASSERT_FALSE(called);
  ASSERT_TRUE(plugin.ended());
  EXPECT_TRUE(plugin.ended()->signaled);
  EXPECT_EQ(plugin.ended()->value, SIGSEGV);
  // Every later call says the same, at once.
  EXPECT_FALSE(plugin.Call(abi::PluginFunction::kInitPlugin, 8, words));
}

TEST(PluginServer, ALoadFailureIsTheDynamicLinkersWord) {
  auto server = PluginServer::Start(SECTL_PLUGIN_SERVER, kArenaBytes);
  ASSERT_TRUE(server) << server.error().message();
  auto init = (*server)->Load("/nonexistent/plugin.so");
  ASSERT_FALSE(init);
  EXPECT_NE(init.error().message().find("/nonexistent/plugin.so"), std::string::npos)
      << init.error().message();
}

// sectl's --lazy reaches the server: a plugin whose kernels need
// TensorFlow's kernel API loads there with lazy binding, and only with it.
TEST(PluginServer, LoadsWithLazyBindingWhenAsked) {
  const std::string plugin = testing::FixturePlugin("unresolved_symbol");
  auto eager = PluginServer::Start(SECTL_PLUGIN_SERVER, kArenaBytes);
  ASSERT_TRUE(eager) << eager.error().message();
  auto refused = (*eager)->Load(plugin);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message().find("TF_NewGraph"), std::string::npos)
      << refused.error().message();
  auto lazy = PluginServer::Start(SECTL_PLUGIN_SERVER, kArenaBytes);
  ASSERT_TRUE(lazy) << lazy.error().message();
  auto init = (*lazy)->Load(plugin, /*lazy=*/true);
  ASSERT_TRUE(init) << init.error().message();
  EXPECT_NE(*init, 0U);
}

TEST(Arena, AllocatesZeroedAlignedBlocksAndReusesFreedOnes) {
  auto arena = Arena::Create(kArenaBytes);
  ASSERT_TRUE(arena) << arena.error().message();
  void* first = arena->Allocate(100);
  void* second = arena->Allocate(100);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % 64, 0U);
  EXPECT_TRUE(arena->Contains(first, 100));
  EXPECT_FALSE(arena->Contains(first, kArenaBytes + 1));
  std::memset(first, 0xff, 100);
  arena->Free(first);
  void* again = arena->Allocate(64);
  EXPECT_EQ(again, first);
  EXPECT_EQ(static_cast<unsigned char*>(again)[0], 0);
  EXPECT_EQ(arena->Allocate(2 * kArenaBytes), nullptr);
}

// ---- Lanes -----------------------------------------------------------------

// The rendezvous fixture's function returns only once a second call has
// arrived: two judge threads calling it at once both succeed only if the
// server runs their calls at the same time.
TEST(PluginServerLanes, CallsFromTwoJudgeThreadsRunAtOnce) {
  auto server = PluginServer::Start(SECTL_PLUGIN_SERVER, kArenaBytes);
  ASSERT_TRUE(server) << server.error().message();
  PluginServer& plugin = **server;
  auto rendezvous = plugin.Load(testing::FixturePlugin("rendezvous"));
  ASSERT_TRUE(rendezvous) << rendezvous.error().message();
  auto* arrived = static_cast<int*>(plugin.arena().Allocate(sizeof(int)));
  const std::array<uint64_t, 2> words{Word(arrived), 0};
  std::array<Expected<CallAnswer>, 2> answers{Fail(ErrorCode::kInternal, "not called"),
                                              Fail(ErrorCode::kInternal, "not called")};
  {
    std::vector<std::jthread> judges;
    judges.reserve(answers.size());
    for (auto& answer : answers) {
      judges.emplace_back(
          [&] { answer = plugin.Call(abi::PluginFunction::kInitPlugin, *rendezvous, words); });
    }
  }
  for (const auto& answer : answers) {
    ASSERT_TRUE(answer) << answer.error().message();
    EXPECT_EQ(answer->status_code, TF_OK) << answer->text;
  }
  EXPECT_EQ(*arrived, 2);
  EXPECT_EQ(plugin.lanes_open(), 2U);
}

// A lane is held for one call, not for a thread's life: threads that call
// one after another reuse one lane, so short-lived judge threads never
// exhaust kMaxLanes.
TEST(PluginServerLanes, ThreadsThatCallInTurnShareOneLane) {
  auto server = PluginServer::Start(SECTL_PLUGIN_SERVER, kArenaBytes);
  ASSERT_TRUE(server) << server.error().message();
  PluginServer& plugin = **server;
  auto init = plugin.Load(testing::ReferencePlugin("sectl_cpu"));
  ASSERT_TRUE(init) << init.error().message();
  for (int thread = 0; thread < 10; ++thread) {
    std::jthread([&] {
      auto name = plugin.ReadString(*init, 4);
      EXPECT_TRUE(name) << name.error().message();
    }).join();
  }
  EXPECT_EQ(plugin.lanes_open(), 1U);
}

// A server that dies while two judge threads wait on their lanes: both
// calls end with the same error, which says how it died.
TEST(PluginServerLanes, ADeathSeenOnAnyLaneEndsEveryCallAlike) {
  auto server = PluginServer::Start(SECTL_PLUGIN_SERVER, kArenaBytes);
  ASSERT_TRUE(server) << server.error().message();
  PluginServer& plugin = **server;
  auto rendezvous = plugin.Load(testing::FixturePlugin("rendezvous"));
  ASSERT_TRUE(rendezvous) << rendezvous.error().message();
  auto* arrived = static_cast<int*>(plugin.arena().Allocate(sizeof(int)));
  const std::array<uint64_t, 2> words{Word(arrived), 0};
  std::array<Expected<CallAnswer>, 2> answers{Fail(ErrorCode::kInternal, "not called"),
                                              Fail(ErrorCode::kInternal, "not called")};
  // Outlives the threads that call with it.
  const std::array<uint64_t, 2> nothing{0, 0};
  {
    std::vector<std::jthread> judges;
    // One call waits in the fixture for a second that never comes...
    judges.emplace_back(
        [&] { answers[0] = plugin.Call(abi::PluginFunction::kInitPlugin, *rendezvous, words); });
    while (__atomic_load_n(arrived, __ATOMIC_SEQ_CST) < 1) std::this_thread::yield();
    // ...while another crashes the server.
    judges.emplace_back(
        [&] { answers[1] = plugin.Call(abi::PluginFunction::kInitPlugin, 8, nothing); });
  }
  for (const auto& answer : answers) {
    ASSERT_FALSE(answer);
    EXPECT_NE(answer.error().message().find("signal 11"), std::string::npos)
        << answer.error().message();
  }
  ASSERT_TRUE(plugin.ended());
  EXPECT_EQ(plugin.ended()->value, SIGSEGV);
}

// A server that dies while no call is in flight (a plugin thread of its
// own crashed) ends a kEndTheSameWay judge the same way at once, as the
// crash would have ended a judge with the plugin in it: the event
// channel's end tells the judge, not only a later call.
TEST(PluginServerLanes, ADeathBetweenCallsEndsTheJudgeTheSameWay) {
  const pid_t judge = ::fork();
  ASSERT_GE(judge, 0);
  if (judge == 0) {
    auto server =
        PluginServer::Start(SECTL_PLUGIN_SERVER, kArenaBytes, WhenTheServerEnds::kEndTheSameWay);
    if (!server || !(*server)->Load(testing::ReferencePlugin("sectl_cpu"))) ::_exit(100);
    ::kill((*server)->pid(), SIGSEGV);
    std::this_thread::sleep_for(std::chrono::seconds(10));
    ::_exit(101);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(judge, &status, 0), judge);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exited " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGSEGV);
}

// Whether `pid` has ended (gone, or a zombie nobody has reaped yet).
bool HasEnded(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const size_t name_end = line.rfind(')');
  return name_end == std::string::npos || name_end + 2 >= line.size() ||
         line[name_end + 2] == 'Z' || line[name_end + 2] == 'X';
}

// A judge killed while one of its lanes is busy in the plugin: the server
// ends with it, at once, rather than when the plugin's call returns. The
// server's main thread sees its channel close and ends the process; the
// lane thread stuck in the plugin does not keep it alive.
TEST(PluginServerLanes, AServerEndsWithItsJudgeEvenWithALaneInThePlugin) {
  std::array<int, 2> report{-1, -1};
  ASSERT_EQ(::pipe2(report.data(), O_CLOEXEC), 0);
  const OwnedDescriptor read_end(report[0]);
  OwnedDescriptor write_end(report[1]);
  const pid_t judge = ::fork();
  ASSERT_GE(judge, 0);
  if (judge == 0) {
    auto server = PluginServer::Start(SECTL_PLUGIN_SERVER, kArenaBytes);
    if (!server) ::_exit(100);
    auto rendezvous = (*server)->Load(testing::FixturePlugin("rendezvous"));
    if (!rendezvous) ::_exit(101);
    const pid_t server_pid = (*server)->pid();
    if (::write(write_end.get(), &server_pid, sizeof(server_pid)) != sizeof(server_pid)) {
      ::_exit(102);
    }
    auto* arrived = static_cast<int*>((*server)->arena().Allocate(sizeof(int)));
    const std::array<uint64_t, 2> words{Word(arrived), 0};
    // Waits five seconds in the plugin for a second call.
    (void)(*server)->Call(abi::PluginFunction::kInitPlugin, *rendezvous, words);
    ::_exit(103);
  }
  write_end.Close();
  pid_t server = 0;
  ASSERT_EQ(::read(read_end.get(), &server, sizeof(server)), sizeof(server));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // into the plugin
  ::kill(judge, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(judge, &status, 0), judge);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (!HasEnded(server) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(HasEnded(server));
  if (!HasEnded(server)) ::kill(server, SIGKILL);
}

// ---- The host runtime on a server -------------------------------------------

// The bundled plugin registered in a server, one device, as a judge sees it.
class PluginServerHost : public ::testing::Test {
 protected:
  void Start(const std::string& plugin_path) {
    auto server = PluginServer::Start(SECTL_PLUGIN_SERVER, size_t{16} << 20);
    ASSERT_TRUE(server) << server.error().message();
    server_ = std::move(*server);
    auto library = loader::PluginLibrary::OpenInServer(plugin_path, {}, *server_);
    ASSERT_TRUE(library) << library.error().message();
    library_ = std::make_unique<loader::PluginLibrary>(std::move(*library));
    auto platform = host::Platform::Create(*library_, journal_, {.server = server_.get()});
    ASSERT_TRUE(platform) << platform.error().message();
    platform_ = std::move(*platform);
    auto device = platform_->CreateDevice(0);
    ASSERT_TRUE(device) << device.error().message();
    device_ = std::move(*device);
  }
  void SetUp() override { Start(testing::ReferencePlugin("sectl_cpu")); }
  void TearDown() override {
    device_.reset();
    platform_.reset();
    library_.reset();
    server_.reset();
  }
  std::unique_ptr<host::Stream> NewStream() {
    auto stream = device_->CreateStream();
    EXPECT_TRUE(stream) << stream.error().message();
    return stream ? std::move(*stream) : nullptr;
  }

  host::Journal journal_;
  std::unique_ptr<PluginServer> server_;
  std::unique_ptr<loader::PluginLibrary> library_;
  std::unique_ptr<host::Platform> platform_;
  std::unique_ptr<host::Device> device_;
};

// ---- Host callbacks as events -------------------------------------------------

TEST_F(PluginServerHost, AHostCallbackRunsInTheJudge) {
  auto stream = NewStream();
  ASSERT_NE(stream, nullptr);
  std::atomic<pid_t> ran_in{0};
  std::atomic<int> code_going_in{-1};
  auto record = stream->EnqueueHostCallback([&](TF_Status* status) {
    ran_in = ::getpid();
    code_going_in = TF_GetCode(status);
  });
  ASSERT_TRUE(record) << record.error().message();
  auto done = stream->BlockHostUntilDone();
  ASSERT_TRUE(done) << done.error().message();
  EXPECT_EQ((*record)->calls.load(), 1);
  EXPECT_EQ(ran_in.load(), ::getpid());
  EXPECT_EQ(code_going_in.load(), TF_OK);
  EXPECT_EQ(server_->unknown_callback_events(), 0U);
}

// The status the judge's callback sets reaches the plugin, which makes it
// the stream's error, as TensorFlow's trampoline would.
TEST_F(PluginServerHost, TheStatusAHostCallbackSetsReachesThePlugin) {
  auto stream = NewStream();
  ASSERT_NE(stream, nullptr);
  auto record = stream->EnqueueHostCallback(
      [](TF_Status* status) { TF_SetStatus(status, TF_DATA_LOSS, "set by the judge's callback"); });
  ASSERT_TRUE(record) << record.error().message();
  (void)stream->BlockHostUntilDone();
  auto status = stream->Status();
  ASSERT_FALSE(status);
  EXPECT_NE(status.error().message().find("set by the judge's callback"), std::string::npos)
      << status.error().message();
}

// A callback blocked in the judge until another thread releases it holds up
// neither the other judge thread's calls nor the other callback that
// releases it: one stream's worker waits in the first callback while a
// judge thread waits in block_host_until_done on that stream.
TEST_F(PluginServerHost, ABlockedHostCallbackHoldsUpNoOtherCall) {
  auto first = NewStream();
  auto second = NewStream();
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> released_in_time{false};
  auto blocked = first->EnqueueHostCallback([&](TF_Status* /*status*/) {
    released_in_time = released.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
  });
  ASSERT_TRUE(blocked) << blocked.error().message();
  Expected<void> first_done = Fail(ErrorCode::kInternal, "not called");
  std::jthread waiter([&] { first_done = first->BlockHostUntilDone(); });
  auto releaser = second->EnqueueHostCallback([&](TF_Status* /*status*/) { release.set_value(); });
  ASSERT_TRUE(releaser) << releaser.error().message();
  auto second_done = second->BlockHostUntilDone();
  ASSERT_TRUE(second_done) << second_done.error().message();
  waiter.join();
  ASSERT_TRUE(first_done) << first_done.error().message();
  EXPECT_TRUE(released_in_time.load());
}

// A plugin that calls the callback inside host_callback itself (the minimal
// plugin runs every operation at once): the event is handled while the
// judge thread still waits for host_callback's answer.
TEST_F(PluginServerHost, AHostCallbackCalledInsideHostCallbackRuns) {
  TearDown();
  Start(testing::ReferencePlugin("sectl_minimal"));
  auto stream = NewStream();
  ASSERT_NE(stream, nullptr);
  auto record = stream->EnqueueHostCallback([](TF_Status* /*status*/) {});
  ASSERT_TRUE(record) << record.error().message();
  EXPECT_EQ((*record)->calls.load(), 1);
}

// An event naming an id the judge never registered is answered with an
// error and counted, never run.
TEST(PluginServerCallbacks, AnUnknownIdIsAnsweredWithAnErrorAndCounted) {
  std::array<int, 2> channel{-1, -1};
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, channel.data()), 0);
  const OwnedDescriptor judge(channel[0]);
  const OwnedDescriptor server(channel[1]);
  std::atomic<int> ran{0};
  {
    HostCallbacks callbacks(judge.get());
    const uint64_t known = callbacks.Register(
        [](void* ran, TF_Status* /*status*/) { static_cast<std::atomic<int>*>(ran)->fetch_add(1); },
        &ran);
    ASSERT_EQ(known, 1U);
    Event event;
    event.sequence = 7;
    event.callback = known + 41;
    callbacks.Handle(event);
    EventAnswer answer;
    ASSERT_EQ(::recv(server.get(), &answer, sizeof(answer), 0), sizeof(answer));
    EXPECT_EQ(answer.sequence, 7U);
    EXPECT_EQ(answer.status_code, TF_INTERNAL);
    EXPECT_NE(std::string(answer.text, answer.text_length).find("42"), std::string::npos);
    EXPECT_EQ(callbacks.unknown_events(), 1U);
    EXPECT_EQ(callbacks.last_unknown_id(), 42U);
    // The known one still runs.
    event.sequence = 8;
    event.callback = known;
    callbacks.Handle(event);
    ASSERT_EQ(::recv(server.get(), &answer, sizeof(answer), 0), sizeof(answer));
    EXPECT_EQ(answer.sequence, 8U);
    EXPECT_EQ(answer.status_code, TF_OK);
  }
  EXPECT_EQ(ran.load(), 1);
}

// ---- The plugin's host memory ------------------------------------------------

// The judge writes a pinned host buffer of the plugin's, the plugin copies
// it to the device and back into another, and the judge reads that: more
// than one message's worth, so both directions are chunked.
TEST_F(PluginServerHost, TheJudgeReadsAndWritesThePluginsHostMemory) {
  constexpr uint64_t kSize = 3 * kMaxMessageText + 100;
  auto source = device_->AllocateHost(host::HostMemoryKind::kPinned, kSize);
  auto target = device_->AllocateHost(host::HostMemoryKind::kPinned, kSize);
  auto on_device = device_->Allocate(kSize);
  ASSERT_TRUE(source && target && on_device);
  std::vector<std::byte> pattern(kSize);
  for (size_t index = 0; index < pattern.size(); ++index) {
    pattern[index] = static_cast<std::byte>(index * 7 + 3);
  }
  ASSERT_TRUE(server_->WriteBytes(Word(source->data()), pattern));
  ASSERT_TRUE(device_->SyncMemcpyHtoD(on_device->base(), source->data(), kSize));
  ASSERT_TRUE(device_->SyncMemcpyDtoH(target->data(), on_device->base(), kSize));
  auto read = server_->ReadBytes(Word(target->data()), kSize);
  ASSERT_TRUE(read) << read.error().message();
  EXPECT_EQ(*read, pattern);
}

// The dispatcher's way to the same memory, as a check would use it.
TEST_F(PluginServerHost, TheDispatcherReachesThePluginsHostMemoryThroughTheServer) {
  auto buffer = device_->AllocateHost(host::HostMemoryKind::kUnified, 64);
  ASSERT_TRUE(buffer) << buffer.error().message();
  const std::vector<std::byte> bytes(64, std::byte{0x5a});
  const host::Dispatcher& dispatcher = device_->dispatcher();
  ASSERT_TRUE(dispatcher.WritePluginMemory(buffer->data(), bytes));
  auto read = dispatcher.ReadPluginMemory(buffer->data(), bytes.size());
  ASSERT_TRUE(read) << read.error().message();
  EXPECT_EQ(*read, bytes);
  // And memory the server cannot write (the plugin's code) is the
  // dispatcher's error too.
  EXPECT_FALSE(dispatcher.WritePluginMemory(reinterpret_cast<void*>(library_->init_plugin()),
                                            bytes));  // NOLINT: the plugin's address
}

// Without a server the plugin's memory is this process's: a plain copy.
TEST(PluginServerMemory, WithoutAServerTheDispatcherCopiesInThisProcess) {
  host::Journal journal;
  const host::Dispatcher dispatcher(journal);
  std::array<std::byte, 8> plugin_memory{};
  const std::vector<std::byte> bytes(plugin_memory.size(), std::byte{0x42});
  ASSERT_TRUE(dispatcher.WritePluginMemory(plugin_memory.data(), bytes));
  EXPECT_EQ(plugin_memory[7], std::byte{0x42});
  auto read = dispatcher.ReadPluginMemory(plugin_memory.data(), plugin_memory.size());
  ASSERT_TRUE(read);
  EXPECT_EQ(*read, bytes);
}

// Memory the server cannot read or write is an answer that says so; the
// server lives on and serves the next call.
TEST_F(PluginServerHost, UnreadableMemoryIsAnAnswerNotACrash) {
  auto unmapped = server_->ReadBytes(8, 16);
  ASSERT_FALSE(unmapped);
  EXPECT_EQ(unmapped.error().code(), ErrorCode::kFailedPrecondition);
  EXPECT_NE(unmapped.error().message().find("not readable"), std::string::npos)
      << unmapped.error().message();
  // The plugin's code is readable, and not writable.
  const auto code = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(library_->init_plugin()));
  auto instructions = server_->ReadBytes(code, 16);
  ASSERT_TRUE(instructions) << instructions.error().message();
  auto written = server_->WriteBytes(code, *instructions);
  ASSERT_FALSE(written);
  EXPECT_NE(written.error().message().find("not writable"), std::string::npos)
      << written.error().message();
  EXPECT_FALSE(server_->ended());
  EXPECT_TRUE(device_->CreateStream());
}

// ---- The server's own resources -----------------------------------------------

// Read by the judge from /proc: a second lane adds exactly one thread and
// one descriptor to the server (the rendezvous fixture makes neither).
TEST(PluginServerResources, TheJudgeCountsTheServersThreadsAndDescriptors) {
  auto server = PluginServer::Start(SECTL_PLUGIN_SERVER, kArenaBytes);
  ASSERT_TRUE(server) << server.error().message();
  PluginServer& plugin = **server;
  auto rendezvous = plugin.Load(testing::FixturePlugin("rendezvous"));
  ASSERT_TRUE(rendezvous) << rendezvous.error().message();
  ASSERT_EQ(plugin.lanes_open(), 1U);
  auto resident = plugin.ResidentBytes();
  ASSERT_TRUE(resident) << resident.error().message();
  EXPECT_GT(*resident, 0U);
  auto threads = plugin.ThreadCount();
  ASSERT_TRUE(threads) << threads.error().message();
  // The main thread, the event reader and the first lane's (a sanitizer
  // may add one of its own).
  EXPECT_GE(*threads, 3U);
  auto descriptors = plugin.OpenDescriptorCount();
  if (!descriptors) {
    // Only a judge that may read a non-dumpable process's /proc/PID/fd
    // (root, as in CI's container) counts them; the error says why not.
    ASSERT_NE(::geteuid(), 0U) << descriptors.error().message();
    GTEST_SKIP() << descriptors.error().message();
  }
  auto* arrived = static_cast<int*>(plugin.arena().Allocate(sizeof(int)));
  const std::array<uint64_t, 2> words{Word(arrived), 0};
  {
    std::vector<std::jthread> judges;
    judges.reserve(2);
    for (int judge = 0; judge < 2; ++judge) {
      judges.emplace_back([&] {
        auto answer = plugin.Call(abi::PluginFunction::kInitPlugin, *rendezvous, words);
        EXPECT_TRUE(answer && answer->status_code == TF_OK);
      });
    }
  }
  ASSERT_EQ(plugin.lanes_open(), 2U);
  auto more_threads = plugin.ThreadCount();
  auto more_descriptors = plugin.OpenDescriptorCount();
  ASSERT_TRUE(more_threads && more_descriptors);
  EXPECT_EQ(*more_threads, *threads + 1);
  EXPECT_EQ(*more_descriptors, *descriptors + 1);
}

// A process that is gone has no counts: an error, not zero.
TEST(PluginServerResources, AProcessThatIsGoneHasNoCounts) {
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_FALSE(ResidentBytesOf(child));
  EXPECT_FALSE(ThreadCountOf(child));
  EXPECT_FALSE(OpenDescriptorCountOf(child));
}

}  // namespace
}  // namespace sectl::remote
