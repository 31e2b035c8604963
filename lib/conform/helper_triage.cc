#include "conform/helper_triage.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "abi/event_status.h"
#include "base/json_text.h"
#include "conform/check_process_server.h"
#include "conform/check_support.h"
#include "host/device.h"
#include "host/event.h"
#include "host/memory.h"
#include "host/platform.h"
#include "host/stream.h"
#include "isolation/child_exit_codes.h"
#include "isolation/child_outcome.h"
#include "isolation/child_process.h"
#include "isolation/interruption.h"
#include "isolation/shared_memory.h"
#include "loader/plugin_library.h"

namespace sectl::conform {
namespace {

using abi::PluginFunction;

constexpr int kWaitMilliseconds = 20;

std::string_view Member(PluginFunction function) { return abi::InfoOf(function).member; }

long WindowSeconds() {
  return static_cast<long>(
      std::chrono::duration_cast<std::chrono::seconds>(kTriageStallWindow).count());
}

// What one probe learned in its process, sent to the parent as JSON.
class Findings {
 public:
  void Add(PluginFunction function, std::string problem,
           Misbehaviour misbehaviour = Misbehaviour::kFailure) {
    learned_.push_back({function, std::move(problem), misbehaviour});
  }
  // An error of the host runtime that blames a plugin function.
  void Add(const Error& error) {
    if (auto culprit = error.culprit()) Add(*culprit, error.message());
  }

  std::string Encode() const {
    nlohmann::json list = nlohmann::json::array();
    for (const LearnedProblem& learned : learned_) {
      list.push_back({{"function", static_cast<int>(learned.function)},
                      {"problem", learned.problem},
                      {"misbehaviour", static_cast<int>(learned.misbehaviour)}});
    }
    return EncodeJson(list);
  }

  static std::vector<LearnedProblem> Decode(const std::string& text) {
    std::vector<LearnedProblem> learned;
    try {
      for (const auto& entry : ParseUntrustedJson(text).value_or(nlohmann::json::array())) {
        const int number = entry.at("function").get<int>();
        if (number < 0 || number >= static_cast<int>(PluginFunction::kCount)) continue;
        const int misbehaviour = entry.at("misbehaviour").get<int>();
        if (misbehaviour < 0 || misbehaviour > static_cast<int>(Misbehaviour::kStall)) continue;
        learned.push_back({static_cast<PluginFunction>(number),
                           entry.at("problem").get<std::string>(),
                           static_cast<Misbehaviour>(misbehaviour)});
      }
    } catch (const nlohmann::json::exception&) {
      return {};  // framed with the child's key, so sectl wrote it: not expected
    }
    return learned;
  }

 private:
  std::vector<LearnedProblem> learned_;
};

// ---- The probes, each run in a process of its own ---------------------------

// What a probe created, kept until its process ends (with _exit, so
// never destroyed): destroying a stream waits for it, and freeing memory
// calls deallocate, with work the plugin never finished still queued; the
// probe asks only what it asks.
class Kept {
 public:
  template <typename T>
  T& Hold(T value) {
    auto held = std::make_shared<T>(std::move(value));
    T& reference = *held;
    objects_.push_back(std::move(held));
    return reference;
  }

 private:
  std::vector<std::shared_ptr<void>> objects_;
};

host::Stream* NewStream(const host::Device& device, Kept& kept, Findings& findings) {
  auto stream = device.CreateStream();
  if (!stream) {
    findings.Add(stream.error());
    return nullptr;
  }
  return kept.Hold(std::move(*stream)).get();
}

// create_stream, then destroy_stream (with the wait TensorFlow does first).
void ProbeStream(const host::Device& device, Kept& /*kept*/, Findings& findings) {
  auto stream = device.CreateStream();
  if (!stream) findings.Add(stream.error());
}

// A host callback on an idle stream runs.
void ProbeHostCallback(const host::Device& device, Kept& kept, Findings& findings) {
  host::Stream* stream = NewStream(device, kept, findings);
  if (!stream) return;
  auto ran = std::make_shared<std::atomic<bool>>(false);
  auto enqueued = stream->EnqueueHostCallback([ran](TF_Status*) { ran->store(true); });
  if (!enqueued) {
    findings.Add(enqueued.error());
    return;
  }
  if (!WaitUntil([&] { return ran->load(); }, kTriageStallWindow)) {
    findings.Add(PluginFunction::kHostCallback,
                 fmt::format("host_callback accepted a callback on an idle stream (returned "
                             "true) and had not run it {} s later",
                             WindowSeconds()),
                 Misbehaviour::kStall);
  }
}

// An event recorded on an idle stream reaches COMPLETE.
void ProbeEvent(const host::Device& device, Kept& kept, Findings& findings) {
  host::Stream* stream = NewStream(device, kept, findings);
  if (!stream) return;
  auto created = device.CreateEvent();
  if (!created) {
    findings.Add(created.error());
    return;
  }
  const host::Event& event = *kept.Hold(std::move(*created));
  if (auto recorded = stream->RecordEvent(event); !recorded) {
    findings.Add(recorded.error());
    return;
  }
  SE_EventStatus last = SE_EVENT_UNKNOWN;
  const bool completed = WaitUntil(
      [&] {
        auto status = event.Status();
        last = status ? *status : SE_EVENT_UNKNOWN;
        return status && last == SE_EVENT_COMPLETE;
      },
      kTriageStallWindow);
  if (completed) return;
  if (last == SE_EVENT_PENDING) {
    findings.Add(PluginFunction::kGetEventStatus,
                 fmt::format("an event recorded on an idle stream was still PENDING {} s later",
                             WindowSeconds()),
                 Misbehaviour::kStall);
    return;
  }
  findings.Add(PluginFunction::kGetEventStatus,
               fmt::format("get_event_status answered {} for an event recorded on an idle "
                           "stream, still {} s later",
                           abi::EventStatusName(last), WindowSeconds()));
}

// The size of the probe's copy: the functions BusyWork's copy route calls,
// at a size that costs the run nothing (BusyWork's own 16 MiB take a
// tenth of a second to fill and compare). An allocate that fails only at
// 16 MiB still fails BusyWork's copy route, which then goes its own way.
constexpr size_t kProbeCopyBytes = size_t{64} << 10;

// The copy round trip BusyWork keeps a stream busy with lands, once the
// stream has been waited for, as checks wait for it.
void ProbeCopyRoundTrip(const host::Device& device, Kept& kept, Findings& findings) {
  host::Stream* stream = NewStream(device, kept, findings);
  if (!stream) return;
  auto allocated = device.Allocate(kProbeCopyBytes);
  if (!allocated) {
    findings.Add(allocated.error());
    return;
  }
  const host::DeviceMemory& memory = kept.Hold(std::move(*allocated));
  const auto& sent = kept.Hold(TestPattern(kProbeCopyBytes, 11));
  auto& landing = kept.Hold(HostBytes(sent));
  for (unsigned char& byte : landing) byte = static_cast<unsigned char>(~byte);
  if (auto copied = stream->MemcpyHtoD(memory.base(), sent.data(), sent.size()); !copied) {
    findings.Add(copied.error());
    return;
  }
  if (auto copied = stream->MemcpyDtoH(landing.data(), memory.base(), sent.size()); !copied) {
    findings.Add(copied.error());
    return;
  }
  (void)stream->BlockHostUntilDone();
  const bool landed =
      WaitUntil([&] { return std::memcmp(landing.data(), sent.data(), sent.size()) == 0; },
                kTriageStallWindow);
  if (!landed) {
    findings.Add(PluginFunction::kMemcpyDtoH,
                 fmt::format("a copy of {} KiB to the device and back (memcpy_htod, memcpy_dtoh) "
                             "had not come back intact {} s after the stream was waited for",
                             kProbeCopyBytes >> 10, WindowSeconds()),
                 Misbehaviour::kStall);
  }
}

// Waiting for an idle stream returns.
void ProbeWait(const host::Device& device, Kept& kept, Findings& findings) {
  host::Stream* stream = NewStream(device, kept, findings);
  if (!stream) return;
  if (auto waited = stream->BlockHostUntilDone(); !waited) findings.Add(waited.error());
}

struct Probe {
  std::string_view doing;
  // Every one provided, or the probe is not run (a missing member is
  // registration's finding).
  std::vector<PluginFunction> needs;
  // A crash or a hang inside one of these is learned; elsewhere (loading,
  // registering) it is the checks' to find.
  std::vector<PluginFunction> exercises;
  void (*run)(const host::Device&, Kept&, Findings&);
  // The longest probe starts first, beside the others.
  bool start_first = false;
};

const std::vector<Probe>& Probes() {
  using enum PluginFunction;
  static const std::vector<Probe> probes = {
      {"creating and destroying a stream",
       {kCreateStream},
       {kCreateStream, kDestroyStream},
       ProbeStream},
      {"a host callback on an idle stream",
       {kCreateStream, kHostCallback},
       {kCreateStream, kHostCallback},
       ProbeHostCallback},
      {"an event recorded on an idle stream",
       {kCreateStream, kCreateEvent, kRecordEvent, kGetEventStatus},
       {kCreateStream, kCreateEvent, kRecordEvent, kGetEventStatus},
       ProbeEvent},
      {"a copy to the device and back",
       {kCreateStream, kAllocate, kMemcpyHtoD, kMemcpyDtoH},
       {kCreateStream, kAllocate, kMemcpyHtoD, kMemcpyDtoH, kBlockHostUntilDone, kCreateEvent,
        kRecordEvent, kBlockHostForEvent},
       ProbeCopyRoundTrip,
       /*start_first=*/true},
      {"waiting for an idle stream",
       {kCreateStream},
       {kCreateStream, kBlockHostUntilDone, kCreateEvent, kRecordEvent, kBlockHostForEvent},
       ProbeWait},
  };
  return probes;
}

// Ends a probe's process at once: no teardown calls the plugin again
// beyond what the probe asks (see Kept).
[[noreturn]] void EndProbe(int code) {
  std::fflush(nullptr);
  ::_exit(code);
}

// A probe's one report, sent by whichever comes first: the probe, done, or
// its watchdog, when a call has not returned within kTriageHangWindow.
class ProbeReport {
 public:
  explicit ProbeReport(int result_fd) : result_fd_(result_fd) {}

  [[noreturn]] void Send(const Findings& findings) {
    if (sent_.exchange(true)) {
      // The other is sending, and ends the process when it has.
      for (;;) ::pause();
    }
    isolation::WriteResult(result_fd_, findings.Encode());
    EndProbe(isolation::kChildReported);
  }

 private:
  int result_fd_;
  std::atomic<bool> sent_{false};
};

bool Exercises(const Probe& probe, PluginFunction function) {
  return std::find(probe.exercises.begin(), probe.exercises.end(), function) !=
         probe.exercises.end();
}

// Reports the call the probe is stuck in, if it still is after
// kTriageHangWindow; the process then ends.
void StartWatchdog(const Probe& probe, const host::Journal& journal, ProbeReport& report) {
  std::thread([&probe, &journal, &report] {
    std::this_thread::sleep_for(kTriageHangWindow);
    Findings hung;
    if (auto stuck = journal.LastUnfinished(); stuck && Exercises(probe, stuck->function)) {
      hung.Add(
          stuck->function,
          fmt::format("{} did not return within {} s (call #{}) while sectl tried {} before "
                      "the checks",
                      Member(stuck->function),
                      std::chrono::duration_cast<std::chrono::seconds>(kTriageHangWindow).count(),
                      stuck->sequence, probe.doing),
          Misbehaviour::kCrashOrHang);
    }
    report.Send(hung);
  }).detach();
}

// The probe's process: register the plugin, create the device, probe, and
// report. Registration that fails is the checks' to report.
int RunProbeInChild(const Probe& probe, const CheckSettings& settings, host::Journal& journal,
                    int result_fd) {
  // In the plugin server, as the checks run it (check_process_server.h):
  // what the plugin's process writes cannot reach what this one learns.
  auto library = [&]() -> Expected<loader::PluginLibrary> {
    if (settings.plugin_server.empty()) {
      return loader::PluginLibrary::Open(settings.plugin_path, {.lazy = settings.lazy});
    }
    auto server = StartCheckProcessServer(settings.plugin_server, settings.guard_malloc);
    if (!server) return tl::unexpected(server.error());
    return loader::PluginLibrary::OpenInServer(settings.plugin_path, {.lazy = settings.lazy},
                                               **server);
  }();
  if (!library) EndProbe(isolation::kChildFailed);
  auto platform = host::Platform::Create(
      *library, journal, {.generation = settings.generation, .server = library->server()});
  if (!platform) EndProbe(isolation::kChildFailed);
  for (PluginFunction needed : probe.needs) {
    if (!(*platform)->Provides(needed)) EndProbe(isolation::kChildFailed);
  }
  auto device = (*platform)->CreateDevice(settings.device_ordinal);
  if (!device) EndProbe(isolation::kChildFailed);
  ProbeReport report(result_fd);
  StartWatchdog(probe, journal, report);
  Kept kept;
  Findings findings;
  probe.run(**device, kept, findings);
  report.Send(findings);
}

// What a probe's process that did not report says: the function it died
// or hung in, when the probe exercises it.
std::optional<LearnedProblem> LearnFromEnd(const Probe& probe, const isolation::ChildResult& child,
                                           const host::Journal& journal,
                                           const isolation::Confinement& confinement) {
  const isolation::ChildOutcome judged = isolation::JudgeChild(child, confinement);
  if (judged.blame != isolation::Blame::kPlugin) return std::nullopt;
  const auto stuck = journal.LastUnfinished();
  if (!stuck || !Exercises(probe, stuck->function)) return std::nullopt;
  return LearnedProblem{
      stuck->function,
      fmt::format("{} {} (call #{}) while sectl tried {} before the checks",
                  Member(stuck->function), judged.description, stuck->sequence, probe.doing),
      Misbehaviour::kCrashOrHang};
}

// One job slot, as the runner's: a journal in shared memory, the child.
struct Slot {
  isolation::SharedObject<host::JournalRegion> region;
  std::optional<isolation::ChildProcess> child;
  const Probe* probe = nullptr;
};

// Only the chosen slot's journal is inherited by the next fork (see
// check_runner.cc): a probe cannot reach the journal of another.
void InheritOnlyJournalOf(const Slot& chosen, const std::vector<Slot>& slots) {
  for (const Slot& slot : slots) {
    (void)::madvise(slot.region.get(), sizeof(host::JournalRegion),
                    &slot == &chosen ? MADV_DOFORK : MADV_DONTFORK);
  }
}

// Keeps the first problem learned about each function, in probe order.
void Merge(std::vector<LearnedProblem>& into, std::vector<LearnedProblem> learned) {
  for (LearnedProblem& problem : learned) {
    const bool known = std::any_of(into.begin(), into.end(), [&](const LearnedProblem& known) {
      return known.function == problem.function;
    });
    if (!known) into.push_back(std::move(problem));
  }
}

}  // namespace

std::vector<LearnedProblem> TriageHelpers(const TriageOptions& options) {
  if (options.settings.plugin_reports_no_devices) return {};
  std::vector<Slot> slots;
  for (int i = 0; i < std::max(1, options.jobs); ++i) {
    auto region = isolation::SharedObject<host::JournalRegion>::Create();
    if (!region) break;
    slots.push_back({std::move(*region), std::nullopt, nullptr});
  }
  if (slots.empty()) return {};  // the checks find what the triage would have

  std::deque<const Probe*> waiting;
  for (const Probe& probe : Probes()) {
    if (probe.start_first) {
      waiting.push_front(&probe);
    } else {
      waiting.push_back(&probe);
    }
  }
  // Per probe, in probe order, so the result does not depend on timing.
  std::vector<std::vector<LearnedProblem>> learned(Probes().size());
  size_t running = 0;
  while ((!waiting.empty() || running > 0) && isolation::InterruptedBy() == 0) {
    for (Slot& slot : slots) {
      if (slot.child || waiting.empty()) continue;
      const Probe* probe = waiting.front();
      waiting.pop_front();
      host::Journal journal(slot.region.get());
      journal.Clear();
      InheritOnlyJournalOf(slot, slots);
      auto child = isolation::ChildProcess::Start(
          [&](int result_fd) {
            return RunProbeInChild(*probe, options.settings, journal, result_fd);
          },
          {.timeout = options.timeout, .confinement = options.confinement});
      if (!child) continue;  // sectl's failure: the checks find what this would have
      slot.child.emplace(std::move(*child));
      slot.probe = probe;
      ++running;
    }
    std::vector<pollfd> descriptors;
    for (const Slot& slot : slots) {
      if (!slot.child) continue;
      auto own = slot.child->PollDescriptors();
      descriptors.insert(descriptors.end(), own.begin(), own.end());
    }
    ::poll(descriptors.data(), descriptors.size(), kWaitMilliseconds);
    for (Slot& slot : slots) {
      if (!slot.child || !slot.child->Poll()) continue;
      const isolation::ChildResult& child = slot.child->result();
      const auto index = static_cast<size_t>(slot.probe - Probes().data());
      if (child.end == isolation::ChildEnd::kExited &&
          child.exit_code == isolation::kChildReported && child.reported) {
        learned[index] = Findings::Decode(child.result);
      } else if (auto problem = LearnFromEnd(*slot.probe, child, host::Journal(slot.region.get()),
                                             options.confinement)) {
        learned[index] = {*problem};
      }
      slot.child.reset();
      --running;
    }
  }
  if (isolation::InterruptedBy() != 0) return {};
  std::vector<LearnedProblem> merged;
  for (auto& from_probe : learned) Merge(merged, std::move(from_probe));
  return merged;
}

std::vector<report::LearnedBeforeChecks> LearnBeforeChecks(RunnerOptions& runner,
                                                           std::string_view profile) {
  // --isolation none runs the plugin in sectl's own process, where a probe
  // that crashes would end the run.
  if (!runner.isolate || profile != kTensorFlowProfile ||
      runner.settings.abi != loader::PluginAbi::kStreamExecutor) {
    return {};
  }
  CheckSettings& settings = runner.settings;
  settings.learned_before_checks = TriageHelpers({.settings = settings,
                                                  .jobs = runner.jobs,
                                                  .timeout = runner.timeout,
                                                  .confinement = runner.confinement});
  std::vector<report::LearnedBeforeChecks> learned;
  for (const LearnedProblem& problem : settings.learned_before_checks) {
    if (std::find(settings.avoid.begin(), settings.avoid.end(), problem.function) ==
        settings.avoid.end()) {
      settings.avoid.push_back(problem.function);
    }
    learned.push_back({std::string(abi::QualifiedName(problem.function)), problem.problem});
  }
  return learned;
}

}  // namespace sectl::conform
