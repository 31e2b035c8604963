#include "validate/layer.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <memory>
#include <mutex>
#include <new>

#include "base/atomic_file.h"
#include "base/file_digest.h"
#include "base/text.h"
#include "loader/exported_symbols.h"
#include "trace/trace_writer.h"
#include "validate/call.h"
#include "validate/fatal_signals.h"
#include "validate/table_wrapping.h"
#include "validate/validate_report.h"

namespace sectl::validate {
namespace {

// The most of the vendor's SE_InitPlugin message the report quotes, as
// sectl's host quotes a TF_Status message (host/tf_status_handle.h).
constexpr size_t kMaxInitMessage = 4096;

using InitPluginFunction = void (*)(SE_PlatformRegistrationParams*, TF_Status*);

uint64_t MonotonicNanoseconds() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000U + static_cast<uint64_t>(now.tv_nsec);
}

// The directory this library was loaded from, for sectl_validate.conf.
std::string LibraryDirectory() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&MonotonicNanoseconds), &info) == 0 ||
      info.dli_fname == nullptr) {
    return ".";
  }
  return std::filesystem::path(info.dli_fname).parent_path().string();
}

void SayOnStderr(const std::string& text) {
  const std::string line = "sectl-validate: " + text + "\n";
  std::fputs(line.c_str(), stderr);
}

// The struct_size a host pre-filled, 0 for a null struct.
template <typename T>
size_t HostSize(const T* table) {
  return table == nullptr ? 0 : table->struct_size;
}

}  // namespace

Layer& Layer::Get() {
  // Never destroyed: TensorFlow's threads may call the plugin while the
  // process exits, after static destructors have begun.
  alignas(Layer) static std::byte storage[sizeof(Layer)];
  // Placed, never freed (above).
  // NOLINTNEXTLINE(cppcoreguidelines-owning-memory,modernize-use-auto)
  static Layer* const layer = ::new (storage) Layer();
  return *layer;
}

Layer::Layer()
    : library_directory_(LibraryDirectory()),
      config_(ReadLayerConfig(library_directory_)),
      started_ns_(MonotonicNanoseconds()),
      started_unix_ms_(std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count()),
      findings_(config_.announce) {}

uint64_t Layer::Now() const { return MonotonicNanoseconds() - started_ns_; }

bool Layer::LoadVendor(std::string* error) {
  std::lock_guard lock(load_mutex_);
  if (vendor_ != nullptr) return true;
  if (config_.plugin_path.empty()) {
    *error =
        "no plugin to check: set SECTL_VALIDATE_PLUGIN to the vendor plugin's path (or "
        "SECTL_VALIDATE_PLUGIN=... in " +
        library_directory_ + "/sectl_validate.conf)";
    return false;
  }
  // From the file, before loading it: a copy of the layer would resolve
  // its entry points through itself while it loads, without end.
  if (auto exported = loader::ExportedFunctions(config_.plugin_path);
      exported &&
      std::binary_search(exported->begin(), exported->end(), std::string(kLayerIdentitySymbol))) {
    *error = fmt::format(
        "SECTL_VALIDATE_PLUGIN names the validation layer itself (or a copy of it), {}: name "
        "the vendor's plugin, which the layer loads and checks",
        config_.plugin_path);
    return false;
  }
  ::dlerror();
  vendor_ = ::dlopen(config_.plugin_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (vendor_ == nullptr) {
    const char* reason = ::dlerror();
    *error = fmt::format("cannot load the plugin {}: {}", config_.plugin_path,
                         reason != nullptr ? reason : "dlopen failed");
    return false;
  }
  if (auto digest = Sha256OfFile(config_.plugin_path)) vendor_sha256_ = *digest;
  return true;
}

void* Layer::VendorSymbol(const char* name) {
  // An entry point's resolver asking again while it resolves (a vendor
  // library that reaches back into the layer): no answer, not recursion.
  thread_local bool resolving = false;
  if (resolving) return nullptr;
  resolving = true;
  std::string error;
  void* symbol = LoadVendor(&error) ? ::dlsym(vendor_, name) : nullptr;
  resolving = false;
  return symbol;
}

void Layer::InitPlugin(SE_PlatformRegistrationParams* params, TF_Status* status) {
  // Before the vendor's library is loaded: a crash in its constructors or
  // in its SE_InitPlugin still leaves a report naming the call.
  InstallFatalSignalHandlers();
  Call call(abi::PluginFunction::kInitPlugin, nullptr);
  call.Address("params", params);
  std::string error;
  InitPluginFunction vendor_init = nullptr;
  bool loaded = false;
  {
    const InFlight loading(call);
    loaded = LoadVendor(&error);
  }
  if (loaded) {
    vendor_init = reinterpret_cast<InitPluginFunction>(::dlsym(vendor_, "SE_InitPlugin"));
    if (vendor_init == nullptr) {
      error = fmt::format("the plugin {} exports no SE_InitPlugin", config_.plugin_path);
    }
  }
  if (vendor_init == nullptr) {
    SayOnStderr(error);
    const std::string message = "sectl-validate: " + error;
    TF_SetStatus(status, TF_FAILED_PRECONDITION, message.c_str());
    call.record().status = TF_FAILED_PRECONDITION;
    WriteReport("SE_InitPlugin failed: " + error);
    return;
  }
  // The sizes the host pre-filled, before the plugin overwrites them.
  const size_t params_size = HostSize(params);
  const size_t platform_size = HostSize(params->platform);
  const size_t platform_fns_size = HostSize(params->platform_fns);
  try {
    call.MarkForwarded();
    const InFlight in_flight(call);
    vendor_init(params, status);
  } catch (...) {
    call.Raise(FindingKind::kExceptionEscaped, "SE_InitPlugin threw a C++ exception");
    TF_SetStatus(status, TF_INTERNAL, "sectl-validate: SE_InitPlugin threw a C++ exception");
  }
  call.record().status = TF_GetCode(status);
  if (TF_GetCode(status) != TF_OK) {
    // The host rejects the plugin; nothing to wrap. The report says why, in
    // case the host gives up now (a later registration rewrites it).
    // The vendor's message, cut as every report cuts a plugin's message.
    const char* message = TF_Message(status);
    WriteReport(fmt::format("SE_InitPlugin failed: {} {}", static_cast<int>(TF_GetCode(status)),
                            CutLongText(message != nullptr ? message : "", kMaxInitMessage)));
    return;
  }

  CompareStructSize(call, abi::StructKind::kPlatform, params->platform, platform_size);
  WrapTable(call, abi::StructKind::kPlatformFns, params->platform_fns, platform_fns_size);
  WrapTable(call, abi::StructKind::kRegistrationParams, params, params_size);
  if (params->platform != nullptr && params->platform->name != nullptr) {
    platform_name_ = params->platform->name;
  }
  OpenTrace();
  // Again: a plugin that installed handlers of its own during registration
  // goes after the layer's, which must see the crash first.
  InstallFatalSignalHandlers();
  // A host may register the plugin more than once (sectl probe does, once
  // per TensorFlow generation): one report at exit is enough.
  static std::once_flag report_at_exit;
  std::call_once(report_at_exit, [] {
    // The catalogue's names are built on first use and destroyed at exit in
    // reverse order of construction: built now, they outlive the handler.
    (void)abi::QualifiedName(abi::PluginFunction::kInitPlugin);
    std::atexit([] { Get().WriteReport("exit"); });
  });
}

void Layer::OpenTrace() {
  if (config_.trace_path.empty() || tracing_) return;
  trace::TraceHeader header;
  header.sectl_version = SECTL_VERSION;
  header.plugin_path = config_.plugin_path;
  header.plugin_sha256 = vendor_sha256_;
  header.platform_name = platform_name_;
  std::error_code ignored;
  header.host_program = std::filesystem::read_symlink("/proc/self/exe", ignored).string();
  header.started_unix_ms = started_unix_ms_;
  header.process_id = static_cast<uint32_t>(::getpid());
  auto writer = trace::TraceWriter::Create(config_.trace_path, header);
  if (!writer) {
    trace_error_ = writer.error().message();
    SayOnStderr("no trace: " + trace_error_);
    return;
  }
  std::lock_guard lock(trace_mutex_);
  trace_ = std::move(*writer);
  tracing_ = true;
}

void Layer::AppendToTrace(const trace::TraceRecord& record) {
  std::lock_guard lock(trace_mutex_);
  if (trace_ != nullptr) trace_->Append(record);
}

void Layer::EndTrace() {
  if (!tracing_) return;
  trace::TraceRecord end;
  end.kind = trace::RecordKind::kEnd;
  end.sequence = NextSequence();
  end.start_ns = Now();
  end.thread = ThisThreadNumber();
  std::lock_guard lock(trace_mutex_);
  if (trace_ == nullptr) return;
  trace_->Append(end);
  trace_->Flush();
}

void Layer::WriteReport(const std::string& how_ended) {
  std::unique_lock lock(report_mutex_, std::try_to_lock);
  if (!lock.owns_lock()) return;  // another thread is writing it (a signal during a write)
  {
    std::unique_lock trace_lock(trace_mutex_, std::try_to_lock);
    if (trace_lock.owns_lock() && trace_ != nullptr) trace_->Flush();
  }
  ValidateReportContent content;
  content.config = &config_;
  content.plugin_sha256 = vendor_sha256_;
  content.platform_name = platform_name_;
  content.how_ended = how_ended;
  content.started_unix_ms = started_unix_ms_;
  content.trace_error = trace_error_;
  const CallCounts counts = CountsOfEveryThread();
  for (size_t i = 0; i < kFunctionCount; ++i) {
    const auto function = static_cast<abi::PluginFunction>(i);
    if (counts.forwarded[i] > 0) content.calls.emplace_back(function, counts.forwarded[i]);
    if (counts.withheld[i] > 0) content.withheld.emplace_back(function, counts.withheld[i]);
  }
  content.findings = findings_.Snapshot();
  const auto written = WriteFileAtomically(config_.report_path, RenderValidateReport(content));
  if (!written) SayOnStderr("cannot write the report: " + written.error().message());
}

void Layer::OnFatalSignal(int signal) {
  crashing_.store(true);
  const char* abbreviation = sigabbrev_np(signal);  // "SEGV"
  const std::string name = abbreviation != nullptr ? fmt::format("SIG{}", abbreviation)
                                                   : fmt::format("signal {}", signal);
  // The call this thread was making into the plugin: named in the report,
  // and traced (it never returned, so its record is written here), so that
  // a replay issues it too.
  if (Call* in_flight = InFlightOnThisThread()) {
    in_flight->Raise(FindingKind::kCrashedInCall,
                     fmt::format("{} while the plugin ran {} (call {} on thread {})", name,
                                 abi::QualifiedName(in_flight->function()), in_flight->sequence(),
                                 in_flight->record().thread));
    if (tracing_) {
      trace::TraceRecord record = in_flight->record();
      record.kind = trace::RecordKind::kCallInFlight;
      record.duration_ns = Now() - record.start_ns;
      std::unique_lock trace_lock(trace_mutex_, std::try_to_lock);
      if (trace_lock.owns_lock() && trace_ != nullptr) trace_->Append(record);
    }
  }
  // TraceWriter::Flush takes no lock and allocates nothing: safe even when
  // the crash interrupted an Append on this very thread.
  if (tracing_ && trace_ != nullptr) trace_->Flush();
  WriteReport("signal " + name);
}

void Layer::OnTerminationSignal(int signal) {
  const char* name = sigabbrev_np(signal);  // "TERM"
  WriteReport(name != nullptr ? fmt::format("signal SIG{}", name)
                              : fmt::format("signal {}", signal));
}

void Layer::NoteOwnFailure() noexcept {
  if (own_failures_.fetch_add(1) == 0) {
    // A fixed text: the failure may be memory exhausted.
    std::fputs(
        "sectl-validate: the layer failed while checking a call; the call answered an error\n",
        stderr);
  }
}

void Layer::AfterError() {
  // Not while a crash is being reported: that report is the one to write.
  if (!config_.abort_on_error || crashing_.load()) return;
  SayOnStderr("aborting at the first error (SECTL_VALIDATE_ABORT=1)");
  WriteReport("abort on first error");
  // The layer's own SIGABRT handler would rewrite the report as a crash.
  ::signal(SIGABRT, SIG_DFL);
  std::abort();
}

}  // namespace sectl::validate
