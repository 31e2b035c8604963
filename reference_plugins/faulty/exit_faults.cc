// Faults that show only as the plugin's process lives on and ends
// (checks/lifecycle_exit_checks.cc): a thread of the plugin's that crashes
// some time after SE_InitPlugin, and library destructors or atexit
// handlers that crash, hang, or end the process with a status of their
// own. Every other check ends its plugin process with _exit, so none of
// them sees these; the base is the cpu plugin, whose streams have worker
// threads still running at exit.
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <thread>

#include "fault_hooks.h"

namespace {

// A store to an address no process maps: the crash a use of a pointer into
// something already freed or torn down ends in.
[[maybe_unused]] void WriteThroughAStalePointer() {
  static volatile uintptr_t stale = 8;
  *reinterpret_cast<volatile int*>(stale) = 1;  // NOLINT(performance-no-int-to-ptr)
}

#if defined(FAULT_THREAD_CRASHES_LATE)
// A watchdog started at registration that crashes 300 ms later, after the
// work that would have exercised it is done.
void StartLateCrashingWatchdog() {
  std::thread([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    WriteThroughAStalePointer();
  }).detach();
}
#endif

#if defined(FAULT_DESTRUCTOR_CRASHES)
// A driver context torn down by a static destructor that uses it after
// another static object freed it: the crash is at exit, not in any call.
struct DriverContext {
  DriverContext() = default;
  DriverContext(const DriverContext&) = delete;
  DriverContext& operator=(const DriverContext&) = delete;
  ~DriverContext() { WriteThroughAStalePointer(); }
};
#endif

#if defined(FAULT_DESTRUCTOR_HANGS)
// A poller thread nothing ever tells to stop, joined by a static
// destructor: exit() waits for it forever.
struct Poller {
  std::thread thread;
  Poller() = default;
  Poller(const Poller&) = delete;
  Poller& operator=(const Poller&) = delete;
  ~Poller() {
    if (thread.joinable()) thread.join();
  }
};
#endif

#if defined(FAULT_DESTRUCTOR_CHANGES_EXIT_STATUS)
// An atexit handler that "cleans up" by ending the process itself, with a
// status of its own.
void EndWithOwnStatus() { ::_exit(3); }
#endif

}  // namespace

extern "C" void PlantRegistrationFault(SE_PlatformRegistrationParams* /*params*/,
                                       TF_Status* /*status*/) {
#if defined(FAULT_THREAD_CRASHES_LATE)
  StartLateCrashingWatchdog();
#elif defined(FAULT_DESTRUCTOR_CRASHES)
  static DriverContext context;  // destroyed at exit
#elif defined(FAULT_DESTRUCTOR_HANGS)
  // Once, however often the host registers the plugin.
  static Poller started;
  if (started.thread.joinable()) return;
  started.thread = std::thread([] {
    while (true) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  });
#elif defined(FAULT_DESTRUCTOR_CHANGES_EXIT_STATUS)
  (void)std::atexit(EndWithOwnStatus);
#endif
}

extern "C" void PlantStreamExecutorFault(SP_StreamExecutor* /*stream_executor*/) {}
