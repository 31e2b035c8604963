// The guard-page allocator (guard_malloc.h).
//
// Everything here may run inside malloc or a signal handler: no allocation,
// no locks that malloc could hold, only atomics, system calls and
// fixed-size tables mapped once by EnableGuardMalloc.
#include "isolation/guard_malloc.h"

#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <string_view>

// glibc's allocator, for a guarded block that realloc moves out of the guard.
// NOLINTBEGIN(bugprone-reserved-identifier)
extern "C" {
void* __libc_malloc(size_t size);
}
// NOLINTEND(bugprone-reserved-identifier)

// An allocator turns addresses into pointers by design.
// NOLINTBEGIN(performance-no-int-to-ptr)
namespace sectl::isolation {
namespace {

constexpr uintptr_t kPage = 4096;
constexpr size_t kReservedPages = kGuardedReservationBytes / kPage;

// What the guard knows about one page of its reservation.
enum class PageKind : uint16_t {
  kUnused = 0,
  kBlock,  // holds (part of) a live block
  kGuard,  // the inaccessible page right after a live block
  kFreed,  // a block's pages or guard, after the block was freed
};

struct PageEntry {
  uintptr_t block;  // the block's first byte
  uint32_t size;    // bytes requested
  uint16_t pages;   // accessible pages before the guard
  PageKind kind;
};
static_assert(sizeof(PageEntry) == 16);

// Code mapped when the guard was enabled: sectl's own (and its libraries').
struct CodeRange {
  uintptr_t begin;
  uintptr_t end;
};
constexpr size_t kMaxCodeRanges = 256;

struct State {
  std::atomic<bool> enabled{false};
  uintptr_t base = 0;
  PageEntry* pages = nullptr;
  std::array<CodeRange, kMaxCodeRanges> sectl_code{};
  size_t sectl_code_count = 0;
  std::atomic<size_t> next_page{0};
  std::atomic<uint64_t> guarded_allocations{0};
  std::atomic<uint64_t> live_blocks{0};
  std::atomic<uint64_t> live_bytes{0};
  std::atomic<uint64_t> fallbacks{0};
  struct sigaction previous_segv {};
  struct sigaction previous_trap {};
  dev_t plugin_device = 0;
  ino_t plugin_inode = 0;
  bool exclude_plugin = false;
};

// Constant-initialised: malloc may run before any constructor does.
constinit State the_state;

State& TheState() { return the_state; }

bool IsSectlCode(const void* caller) {
  const State& state = TheState();
  const auto address = reinterpret_cast<uintptr_t>(caller);
  if (address == 0) return true;
  for (size_t i = 0; i < state.sectl_code_count; ++i) {
    if (address >= state.sectl_code[i].begin && address < state.sectl_code[i].end) return true;
  }
  return false;
}

bool InReservation(uintptr_t address) {
  const State& state = TheState();
  return state.base != 0 && address >= state.base &&
         address < state.base + kGuardedReservationBytes;
}

PageEntry& EntryFor(uintptr_t address) {
  const State& state = TheState();
  return state.pages[(address - state.base) / kPage];
}

uintptr_t RoundUp(uintptr_t value, uintptr_t to) { return (value + to - 1) / to * to; }

// Whether `address` starts a live block: one with pages of its own, or a
// 0-byte block, which lies at the start of its guard page (see MapGuarded).
bool StartsLiveBlock(const PageEntry& entry, uintptr_t address) {
  if (entry.block != address) return false;
  return entry.kind == PageKind::kBlock || (entry.kind == PageKind::kGuard && entry.size == 0);
}

// ---------------------------------------------------------------------------
// Messages written from the signal handler: no allocation, no stdio.
// ---------------------------------------------------------------------------

class SignalSafeText {
 public:
  SignalSafeText& operator<<(const char* text) {
    while (*text != '\0' && length_ + 1 < buffer_.size()) buffer_[length_++] = *text++;
    return *this;
  }
  SignalSafeText& operator<<(uint64_t number) {
    std::array<char, 24> digits{};
    size_t count = 0;
    do {
      digits[count++] = static_cast<char>('0' + number % 10);
      number /= 10;
    } while (number != 0);
    while (count > 0 && length_ + 1 < buffer_.size()) buffer_[length_++] = digits[--count];
    return *this;
  }
  SignalSafeText& Hex(uintptr_t number) {
    *this << "0x";
    std::array<char, 16> digits{};
    size_t count = 0;
    do {
      digits[count++] = "0123456789abcdef"[number % 16];
      number /= 16;
    } while (number != 0);
    while (count > 0 && length_ + 1 < buffer_.size()) buffer_[length_++] = digits[--count];
    return *this;
  }
  SignalSafeText& Bytes(uint64_t count) {
    return *this << count << (count == 1 ? " byte" : " bytes");
  }
  // "a 1-byte block", "an 8-byte block", "an 18-byte block".
  SignalSafeText& BlockOf(uint64_t size) {
    uint64_t leading = size;  // the group of digits said first
    while (leading >= 1000) leading /= 1000;
    uint64_t first_digit = leading;
    while (first_digit >= 10) first_digit /= 10;
    const bool vowel = first_digit == 8 || leading == 11 || leading == 18;
    return *this << (vowel ? "an " : "a ") << size << "-byte block";
  }
  void WriteTo(int fd) const { (void)!::write(fd, buffer_.data(), length_); }
  std::string_view view() const { return {buffer_.data(), length_}; }

 private:
  std::array<char, 512> buffer_{};
  size_t length_ = 0;
};

// Constant-initialised, as the state is: set before the guard is enabled.
constinit std::atomic<GuardPageFaultSink> fault_sink{nullptr};

// To stderr, for whoever reads the check's log, and to the sink (a frame on
// the result channel, isolation/result_channel.h, in a check's child),
// which is what sectl believes: a plugin can print the marker, not send the
// frame.
void WriteLine(SignalSafeText& text) {
  const std::string_view line = text.view();
  const GuardPageFaultSink sink = fault_sink.load();
  if (sink != nullptr && line.starts_with(kGuardPageFaultMarker)) {
    sink(line.substr(kGuardPageFaultMarker.size()));
  }
  text << "\n";
  text.WriteTo(STDERR_FILENO);
}

// Hands the signal on to whoever handled it before (sectl's backtrace
// handler in a check's child), or dies of it.
void ChainTo(const struct sigaction& previous, int signal, siginfo_t* info, void* context) {
  if ((previous.sa_flags & SA_SIGINFO) != 0 && previous.sa_sigaction != nullptr) {
    previous.sa_sigaction(signal, info, context);
  } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN &&
             previous.sa_handler != nullptr) {
    previous.sa_handler(signal);
  }
  ::signal(signal, SIG_DFL);
  ::raise(signal);
}

// ---------------------------------------------------------------------------
// Measuring an overrun: on x86-64, the faulting write is let through once,
// onto the guard page filled with a pattern, one instruction at a time
// (the trap flag), and the bytes it changed say exactly how far it wrote.
// ---------------------------------------------------------------------------

constexpr unsigned char kGuardPattern = 0xA5;
constexpr int kMaxSteps = 4096;  // a `rep movsb` steps once per byte

struct Overrun {
  std::atomic<bool> measuring{false};
  PageEntry entry{};
  uintptr_t fault_address = 0;
  uintptr_t instruction = 0;
  int steps = 0;
  siginfo_t info{};
};
constinit Overrun overrun;

uint64_t BytesChangedPastEnd(uintptr_t guard) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(guard);
  uint64_t furthest = 0;
  for (uint64_t i = 0; i < kPage; ++i) {
    if (bytes[i] != kGuardPattern) furthest = i + 1;
  }
  return furthest;
}

[[noreturn]] void ReportOverrunAndDie(uint64_t bytes_past, bool measured, siginfo_t* info,
                                      void* context) {
  const PageEntry& entry = overrun.entry;
  SignalSafeText text;
  text << kGuardPageFaultMarker.data() << "the plugin wrote ";
  if (!measured) text << "at least ";
  text.Bytes(bytes_past) << " past the end of ";
  text.BlockOf(entry.size) << " it allocated (block at ";
  text.Hex(entry.block) << ", the write reached ";
  text.Hex(entry.block + entry.size + bytes_past - 1) << ")";
  WriteLine(text);
  ChainTo(TheState().previous_segv, SIGSEGV, info, context);
  ::_exit(139);
}

#if defined(__x86_64__)
constexpr greg_t kTrapFlag = 0x100;

void OnTrap(int signal, siginfo_t* info, void* raw_context) {
  if (!overrun.measuring.load()) {
    ChainTo(TheState().previous_trap, signal, info, raw_context);
    return;
  }
  auto* context = static_cast<ucontext_t*>(raw_context);
  const auto instruction = static_cast<uintptr_t>(context->uc_mcontext.gregs[REG_RIP]);
  // A repeated string instruction stays at the same address until done.
  if (instruction == overrun.instruction && ++overrun.steps < kMaxSteps) return;
  context->uc_mcontext.gregs[REG_EFL] &= ~kTrapFlag;
  const uintptr_t guard = overrun.entry.block + overrun.entry.size;
  const uintptr_t guard_page = RoundUp(guard, kPage);
  // A write that covered the whole guard page may have gone on: "at least".
  const uint64_t changed = BytesChangedPastEnd(guard_page);
  const uint64_t past =
      changed != 0 ? (guard_page - guard) + changed : overrun.fault_address - guard + 1;
  ReportOverrunAndDie(past, changed != 0 && changed < kPage, &overrun.info, raw_context);
}
#endif

void OnSegv(int signal, siginfo_t* info, void* raw_context) {
  State& state = TheState();
  const auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  if (!InReservation(address)) {
    ChainTo(state.previous_segv, signal, info, raw_context);
    return;
  }
  const PageEntry entry = EntryFor(address);
  auto* context = static_cast<ucontext_t*>(raw_context);
#if defined(__x86_64__)
  const bool is_write = (context->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#else
  const bool is_write = true;
  (void)context;
#endif
  const uintptr_t end = entry.block + entry.size;
  if (entry.kind == PageKind::kGuard && is_write) {
    bool expected = false;
    if (!overrun.measuring.compare_exchange_strong(expected, true)) {
      // A second fault while measuring: the write went on past the guard.
      ReportOverrunAndDie(address - end + 1, false, info, raw_context);
    }
    overrun.entry = entry;
    overrun.fault_address = address;
    overrun.info = *info;
#if defined(__x86_64__)
    const uintptr_t guard_page = RoundUp(end, kPage);
    if (::mprotect(reinterpret_cast<void*>(guard_page), kPage, PROT_READ | PROT_WRITE) == 0) {
      std::memset(reinterpret_cast<void*>(guard_page), kGuardPattern, kPage);
      overrun.instruction = static_cast<uintptr_t>(context->uc_mcontext.gregs[REG_RIP]);
      context->uc_mcontext.gregs[REG_EFL] |= kTrapFlag;
      return;  // the write runs once more, then OnTrap
    }
#endif
    ReportOverrunAndDie(address - end + 1, false, info, raw_context);
  }
  SignalSafeText text;
  text << kGuardPageFaultMarker.data();
  if (entry.kind == PageKind::kGuard) {
    text << "the plugin read past the end of ";
    text.BlockOf(entry.size) << " it allocated: the read reached ";
    text.Bytes(address - end + 1) << " past its end (block at ";
    text.Hex(entry.block) << ")";
  } else if (entry.kind == PageKind::kFreed) {
    text << "the plugin " << (is_write ? "wrote to " : "read ");
    text.BlockOf(entry.size) << " it allocated, after it was freed (block at ";
    text.Hex(entry.block) << ", access at ";
    text.Hex(address) << ")";
  } else {
    text << "an access to the guarded allocator's reserved addresses at ";
    text.Hex(address) << ", outside every block";
  }
  WriteLine(text);
  ChainTo(state.previous_segv, signal, info, raw_context);
}

// Executable segments of every object mapped now, except the plugin's own
// file should it already be loaded.
int RecordCode(dl_phdr_info* info, size_t /*size*/, void* /*data*/) {
  State& state = TheState();
  if (state.exclude_plugin && info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') {
    struct stat file {};
    if (::stat(info->dlpi_name, &file) == 0 && file.st_dev == state.plugin_device &&
        file.st_ino == state.plugin_inode) {
      return 0;
    }
  }
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& header = info->dlpi_phdr[i];
    if (header.p_type != PT_LOAD || (header.p_flags & PF_X) == 0) continue;
    if (state.sectl_code_count == kMaxCodeRanges) return 1;
    const uintptr_t begin = info->dlpi_addr + header.p_vaddr;
    state.sectl_code[state.sectl_code_count++] = {begin, begin + header.p_memsz};
  }
  return 0;
}

// An aligned block cannot always end at its guard page: the bytes between
// its end and the guard (fewer than the alignment) hold this canary, checked
// for the calling thread's recent blocks at its next allocator call and for
// every block when it is freed (see VerifyRecentGuardedBlocks).
constexpr unsigned char kSlackCanary = 0xCB;
constexpr size_t kRecentSlackBlocks = 64;
__attribute__((tls_model("initial-exec"))) thread_local std::array<uintptr_t, kRecentSlackBlocks>
    recent_slack_blocks{};
__attribute__((tls_model("initial-exec"))) thread_local size_t recent_slack_count = 0;

// How many bytes past its end a live block's slack was written, 0 if none.
uint64_t SlackWrittenPastEnd(const PageEntry& entry) {
  const uintptr_t end = entry.block + entry.size;
  const uintptr_t guard = RoundUp(end, kPage);
  uint64_t furthest = 0;
  for (uintptr_t address = end; address < guard; ++address) {
    if (*reinterpret_cast<const unsigned char*>(address) != kSlackCanary) {
      furthest = address - end + 1;
    }
  }
  return furthest;
}

// Reports an overrun found in a block's slack and dies as a faulty write
// would (SIGSEGV), in whatever plugin call is in flight.
[[noreturn]] void ReportSlackOverrun(const PageEntry& entry, uint64_t bytes_past) {
  SignalSafeText text;
  text << kGuardPageFaultMarker.data() << "the plugin wrote ";
  text.Bytes(bytes_past) << " past the end of ";
  text.BlockOf(entry.size) << " it allocated (block at ";
  text.Hex(entry.block) << "; found in the padding its alignment left before the guard page)";
  WriteLine(text);
  ::raise(SIGSEGV);
  ::_exit(139);
}

void VerifySlackOf(uintptr_t block) {
  const PageEntry& entry = EntryFor(block);
  if (entry.kind != PageKind::kBlock || entry.block != block) return;  // freed since
  if (const uint64_t past = SlackWrittenPastEnd(entry); past != 0) ReportSlackOverrun(entry, past);
}

void RememberSlackBlock(uintptr_t block) {
  if (recent_slack_count == kRecentSlackBlocks) {
    for (uintptr_t recent : recent_slack_blocks) VerifySlackOf(recent);
    recent_slack_count = 0;
  }
  recent_slack_blocks[recent_slack_count++] = block;
}

void* MapGuarded(size_t size, size_t alignment) {
  State& state = TheState();
  if (state.live_blocks.load(std::memory_order_relaxed) >= kMaxLiveGuardedBlocks) return nullptr;
  // A 0-byte block has no accessible page: it is the first byte of its
  // guard page (page-aligned, so any alignment up to a page holds), and
  // the first byte written or read there faults.
  const uintptr_t span = size == 0 ? 0 : size + (alignment > 1 ? alignment - 1 : 0);
  const size_t pages = RoundUp(span, kPage) / kPage;
  const size_t first = state.next_page.fetch_add(pages + 1, std::memory_order_relaxed);
  if (first + pages + 1 > kReservedPages) return nullptr;  // address space used up
  const uintptr_t start = state.base + first * kPage;
  const uintptr_t guard = start + pages * kPage;
  if (pages != 0 &&
      ::mprotect(reinterpret_cast<void*>(start), pages * kPage, PROT_READ | PROT_WRITE) != 0) {
    return nullptr;  // out of mappings or memory: the real allocator takes over
  }
  uintptr_t block = guard - size;
  if (alignment > 1) block &= ~(static_cast<uintptr_t>(alignment) - 1);
  const PageEntry entry{block, static_cast<uint32_t>(size), static_cast<uint16_t>(pages),
                        PageKind::kBlock};
  for (size_t page = 0; page < pages; ++page) state.pages[first + page] = entry;
  PageEntry guard_entry = entry;
  guard_entry.kind = PageKind::kGuard;
  state.pages[first + pages] = guard_entry;
  state.guarded_allocations.fetch_add(1, std::memory_order_relaxed);
  state.live_blocks.fetch_add(1, std::memory_order_relaxed);
  state.live_bytes.fetch_add(size, std::memory_order_relaxed);
  if (block + size != guard) {
    std::memset(reinterpret_cast<void*>(block + size), kSlackCanary, guard - block - size);
    RememberSlackBlock(block);
  }
  return reinterpret_cast<void*>(block);
}

}  // namespace

void SetGuardPageFaultSink(GuardPageFaultSink sink) { fault_sink.store(sink); }

bool EnableGuardMalloc(const char* plugin_path) {
  State& state = TheState();
  if (state.enabled.load()) return true;
  struct stat plugin {};
  if (plugin_path != nullptr && ::stat(plugin_path, &plugin) == 0) {
    state.exclude_plugin = true;
    state.plugin_device = plugin.st_dev;
    state.plugin_inode = plugin.st_ino;
  }
  void* reservation = ::mmap(nullptr, kGuardedReservationBytes, PROT_NONE,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (reservation == MAP_FAILED) return false;
  void* table = ::mmap(nullptr, kReservedPages * sizeof(PageEntry), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (table == MAP_FAILED) {
    ::munmap(reservation, kGuardedReservationBytes);
    return false;
  }
  state.base = reinterpret_cast<uintptr_t>(reservation);
  state.pages = static_cast<PageEntry*>(table);
  state.sectl_code_count = 0;
  ::dl_iterate_phdr(RecordCode, nullptr);

  struct sigaction action {};
  action.sa_sigaction = OnSegv;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGSEGV, &action, &state.previous_segv);
#if defined(__x86_64__)
  struct sigaction trap {};
  trap.sa_sigaction = OnTrap;
  trap.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&trap.sa_mask);
  ::sigaction(SIGTRAP, &trap, &state.previous_trap);
#endif
  state.enabled.store(true);
  return true;
}

bool GuardMallocEnabled() { return TheState().enabled.load(std::memory_order_relaxed); }

GuardMallocCounters GuardMallocCountersNow() {
  const State& state = TheState();
  return {state.guarded_allocations.load(), state.live_blocks.load(), state.live_bytes.load(),
          state.fallbacks.load()};
}

std::optional<std::string> FindGuardPageFault(std::string_view output) {
  const auto marker = output.find(kGuardPageFaultMarker);
  if (marker == std::string_view::npos) return std::nullopt;
  const auto begin = marker + kGuardPageFaultMarker.size();
  const auto end = output.find('\n', begin);
  return std::string(output.substr(begin, end == std::string_view::npos ? end : end - begin));
}

void VerifyRecentGuardedBlocks() {
  if (!GuardMallocEnabled()) return;
  for (size_t i = 0; i < recent_slack_count; ++i) VerifySlackOf(recent_slack_blocks[i]);
  recent_slack_count = 0;
}

void* GuardedAllocate(size_t size, size_t alignment, const void* caller) {
  State& state = TheState();
  if (!state.enabled.load(std::memory_order_relaxed)) return nullptr;
  VerifyRecentGuardedBlocks();
  if (size > kLargestGuardedBlock || alignment > kPage) return nullptr;
  if (IsSectlCode(caller)) return nullptr;
  void* block = MapGuarded(size, alignment);
  if (block == nullptr) state.fallbacks.fetch_add(1, std::memory_order_relaxed);
  return block;
}

bool GuardedFree(void* pointer) {
  State& state = TheState();
  const auto address = reinterpret_cast<uintptr_t>(pointer);
  if (!state.enabled.load(std::memory_order_relaxed) || !InReservation(address)) return false;
  PageEntry& entry = EntryFor(address);
  if (!StartsLiveBlock(entry, address)) {
    SignalSafeText text;
    text << kGuardPageFaultMarker.data() << "the plugin freed ";
    if (entry.kind == PageKind::kFreed && entry.block == address) {
      text.BlockOf(entry.size) << " twice (block at ";
      text.Hex(address) << ")";
    } else {
      text << "an address that is not the start of a block it allocated (";
      text.Hex(address) << ")";
    }
    WriteLine(text);
    ::abort();
  }
  if (const uint64_t past = SlackWrittenPastEnd(entry); past != 0) ReportSlackOverrun(entry, past);
  VerifyRecentGuardedBlocks();
  const size_t pages = entry.pages;
  const uintptr_t guard = RoundUp(entry.block + entry.size, kPage);
  const uintptr_t start = guard - pages * kPage;
  state.live_blocks.fetch_sub(1, std::memory_order_relaxed);
  state.live_bytes.fetch_sub(entry.size, std::memory_order_relaxed);
  // Inaccessible from now on, and its memory given back; never reused.
  PageEntry* first = &EntryFor(start);
  for (size_t page = 0; page <= pages; ++page) first[page].kind = PageKind::kFreed;
  if (pages != 0) {
    (void)::mmap(reinterpret_cast<void*>(start), pages * kPage, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  }
  return true;
}

bool GuardedReallocate(void* pointer, size_t size, const void* caller, void** result) {
  const auto address = reinterpret_cast<uintptr_t>(pointer);
  if (!GuardMallocEnabled() || !InReservation(address)) return false;
  const size_t old_size = EntryFor(address).size;
  void* moved = nullptr;
  if (size != 0) {
    moved = GuardedAllocate(size, 1, caller);
    if (moved == nullptr) moved = __libc_malloc(size);
    if (moved == nullptr) {
      *result = nullptr;  // the old block stays, as realloc promises
      return true;
    }
    std::memcpy(moved, pointer, std::min(old_size, size));
  }
  GuardedFree(pointer);
  *result = moved;
  return true;
}

}  // namespace sectl::isolation
// NOLINTEND(performance-no-int-to-ptr)
