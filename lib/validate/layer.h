// The validation layer of one process: the vendor plugin it loaded, the
// plugin's own function pointers (the "originals" every wrapper calls),
// what it knows of the plugin's objects, its findings and its trace.
//
// There is one per process, as there is one plugin per library in
// TensorFlow. The wrappers reach it through Layer::Get(); the C API gives
// them no context pointer to carry it.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "abi/plugin_functions.h"
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"
#include "trace/trace_record.h"
#include "validate/finding_log.h"
#include "validate/layer_config.h"
#include "validate/object_tracker.h"
#include "validate/short_lock.h"

namespace sectl::trace {
class TraceWriter;
}

namespace sectl::validate {

// The symbol only the layer exports (entry_points.cc).
inline constexpr const char* kLayerIdentitySymbol = "sectl_validate_layer_identity";

inline constexpr size_t kFunctionCount = static_cast<size_t>(abi::PluginFunction::kCount);

class Layer {
 public:
  // The process's layer, configured on first use.
  static Layer& Get();

  Layer(const Layer&) = delete;
  Layer& operator=(const Layer&) = delete;
  Layer(Layer&&) = delete;
  Layer& operator=(Layer&&) = delete;
  ~Layer() = default;  // never run: see Get()

  // SE_InitPlugin: loads the vendor plugin, lets it register exactly as the
  // host asked, and wraps every function it provides.
  void InitPlugin(SE_PlatformRegistrationParams* params, TF_Status* status);

  // A symbol of the vendor library (loading it if needed), for the entry
  // points the layer forwards untouched (TF_InitKernel, ...). Null when the
  // vendor does not export it or cannot be loaded.
  void* VendorSymbol(const char* name);

  const LayerConfig& config() const { return config_; }
  ObjectTracker& objects() { return objects_; }
  FindingLog& findings() { return findings_; }

  // The vendor's function for `function`, as it filled its table.
  void* original(abi::PluginFunction function) const {
    return originals_[static_cast<size_t>(function)];
  }
  void set_original(abi::PluginFunction function, void* pointer) {
    originals_[static_cast<size_t>(function)] = pointer;
  }

  // Calls.
  // Sequentially consistent: a number read after a call returned orders
  // that return against every call begun since (happens-before from
  // returns, as OverdueCallbacks needs).
  uint64_t NextSequence() { return next_sequence_.fetch_add(1) + 1; }
  // The last number NextSequence handed out.
  uint64_t LastSequence() const { return next_sequence_.load(); }
  bool tracing() const { return tracing_; }
  // Nanoseconds since the layer started.
  uint64_t Now() const;
  void AppendToTrace(const trace::TraceRecord& record);
  // The host is done with the platform: an end record, and the trace
  // written out, so a reader can tell a clean end from a cut-off one.
  void EndTrace();

  // Writes the report now (atomically). `how_ended` says why ("teardown",
  // "exit", "signal SIGSEGV", "abort on first error").
  void WriteReport(const std::string& how_ended);
  // For a fatal-signal handler: flushes the trace and writes the report.
  void OnFatalSignal(int signal);
  // SIGTERM, SIGINT or SIGHUP arrived: the report says so (the process may
  // go on, if the host handles the signal; its exit rewrites the report).
  void OnTerminationSignal(int signal);
  // After an error-severity finding: aborts when SECTL_VALIDATE_ABORT asks.
  void AfterError();
  // A wrapper failed in the layer's own code (an exception of its own, such
  // as memory exhausted): counted for the report, said once on stderr.
  void NoteOwnFailure() noexcept;
  uint64_t own_failures() const { return own_failures_.load(); }

 private:
  Layer();
  bool LoadVendor(std::string* error);
  void OpenTrace();

  std::string library_directory_;
  LayerConfig config_;
  void* vendor_ = nullptr;  // dlopen handle; never closed (the host keeps calling)
  std::string vendor_sha256_;
  std::string platform_name_;
  std::mutex load_mutex_;

  std::array<void*, kFunctionCount> originals_{};
  std::atomic<uint64_t> next_sequence_{0};
  uint64_t started_ns_ = 0;
  int64_t started_unix_ms_ = 0;

  ObjectTracker objects_;
  FindingLog findings_;

  bool tracing_ = false;
  ShortLock trace_mutex_;  // held for one record's encoding (or a flush)
  std::unique_ptr<trace::TraceWriter> trace_;
  std::string trace_error_;

  std::mutex report_mutex_;
  bool wrote_final_report_ = false;
  std::atomic<bool> crashing_{false};
  std::atomic<uint64_t> own_failures_{0};  // a fatal signal's report is being written
};

}  // namespace sectl::validate
