// The one dispatch point: every call from sectl into plugin code goes
// through Dispatcher, which refuses null function pointers, journals the
// call, catches exceptions thrown across the C API and turns a non-OK
// TF_Status into an Error. Nothing else in sectl calls a plugin pointer.
//
// A call names the ABI table member it calls, `Call<&SP_StreamExecutor::
// allocate>(stream_executor, ...)`, and the function the journal records is
// derived from that member at compile time (abi::kFunctionOf), so the name
// in a report and the pointer called cannot disagree. The two kinds of
// plugin function that are no table's member, the entry point SE_InitPlugin
// and TVM's looked-up C Device hooks, have entry points of their own.
#pragma once

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "abi/plugin_functions.h"
#include "base/error.h"
#include "host/call_recording.h"
#include "host/host_defects.h"
#include "host/journal.h"
#include "host/plugin_string.h"
#include "host/remote_arguments.h"
#include "host/tf_status_handle.h"
#include "remote/plugin_server.h"
#include "remote/word_call.h"
#include "tensorflow/c/experimental/grappler/grappler.h"
#include "tensorflow/c/experimental/pluggable_profiler/pluggable_profiler.h"

namespace sectl::host {

// The table a member pointer belongs to and what its function returns.
template <typename MemberPointer>
struct TableMember;
template <typename Table, typename R, typename... Params>
struct TableMember<R (*Table::*)(Params...)> {
  using TableType = Table;
  using Result = R;
};

template <auto Member>
using TableOf = typename TableMember<decltype(Member)>::TableType;
template <auto Member>
using ResultOf = typename TableMember<decltype(Member)>::Result;

class Dispatcher {
 public:
  explicit Dispatcher(Journal& journal) : journal_(journal) {}

  Journal& journal() const { return journal_; }

  // From now on every call is performed by `server`, in its process
  // (docs/plugin-server.md); host-owned objects are staged in its arena.
  void UseServer(remote::PluginServer* server) {
    server_ = server;
    staging_ = server != nullptr ? std::make_unique<RemoteStaging>(*server) : nullptr;
  }
  remote::PluginServer* server() const { return server_; }
  // Where host-owned structs go for the plugin: the server's arena, or
  // nullptr (this process).
  remote::Arena* arena() const { return server_ != nullptr ? &server_->arena() : nullptr; }

  // A string the plugin handed over (a name, a device's vendor), read where
  // the plugin lives; at most kMaxPluginString bytes, empty for null.
  std::string ReadPluginText(const char* text) const {
    if (server_ == nullptr || text == nullptr) return ReadPluginString(text);
    auto read = server_->ReadString(reinterpret_cast<uintptr_t>(text), kMaxPluginString);
    return read ? *read : std::string();
  }

  // Host memory the plugin allocated (host_memory_allocate,
  // unified_memory_allocate), which TensorFlow reads and writes directly:
  // read or written where the plugin lives. Through a server, in bounded
  // chunks, and memory the server cannot read or write is an error, not a
  // crash (remote::PluginServer::ReadBytes); in this process, a plain copy.
  Expected<std::vector<std::byte>> ReadPluginMemory(const void* address, size_t size) const {
    if (server_ != nullptr) return server_->ReadBytes(reinterpret_cast<uintptr_t>(address), size);
    const auto* bytes = static_cast<const std::byte*>(address);
    return std::vector<std::byte>(bytes, bytes + size);
  }
  Expected<void> WritePluginMemory(void* address, std::span<const std::byte> bytes) const {
    if (server_ != nullptr) return server_->WriteBytes(reinterpret_cast<uintptr_t>(address), bytes);
    if (!bytes.empty()) std::memcpy(address, bytes.data(), bytes.size());
    return {};
  }

  // Calls `(table.*Member)(args...)`, journalled as the function Member is.
  // A null pointer in the table is an Unimplemented error and calls nothing.
  template <auto Member, typename... Args>
  Expected<ResultOf<Member>> Call(const TableOf<Member>& table, Args... args) const {
    static_assert(abi::IsPluginFunction(abi::kFunctionOf<Member>),
                  "the member is not in abi/plugin_functions.def");
    return Invoke(abi::kFunctionOf<Member>, table.*Member, args...);
  }

  // Calls a member whose last parameter is a TF_Status*, passing a fresh
  // status, and returns the plugin's error if it left one.
  template <auto Member, typename... Args>
  Expected<void> CallWithStatus(const TableOf<Member>& table, Args... args) const {
    static_assert(abi::IsPluginFunction(abi::kFunctionOf<Member>),
                  "the member is not in abi/plugin_functions.def");
    return InvokeWithStatus(abi::kFunctionOf<Member>, table.*Member, args...);
  }

  // From now on answers every call of `function` with an error that says
  // `reason`, blamed on it, without calling the plugin: for a function a
  // conformance check only uses and that is known to crash or hang, so that
  // the check is blocked by it at once rather than dying in it again.
  void Refuse(abi::PluginFunction function, std::string reason) {
    refused_[function] = std::move(reason);
  }

  // Calls the plugin's exported SE_InitPlugin.
  Expected<void> CallInitPlugin(void (*init_plugin)(SE_PlatformRegistrationParams*, TF_Status*),
                                SE_PlatformRegistrationParams* params) const {
    return InvokeWithStatus(abi::PluginFunction::kInitPlugin, init_plugin, params);
  }

  // Calls the plugin's exported TF_InitKernel, after SE_InitPlugin, as
  // TensorFlow's loader does; what it registers is recorded by sectl's
  // TensorFlow C API (host/kernel_module.h reads it).
  Expected<void> CallInitKernel(void (*init_kernel)()) const {
    return Invoke(abi::PluginFunction::kInitKernel, init_kernel);
  }

  // Calls the plugin's exported TF_InitGraph with the registration params
  // TensorFlow pre-fills (host/graph_module.h).
  Expected<void> CallInitGraph(void (*init_graph)(TP_OptimizerRegistrationParams*, TF_Status*),
                               TP_OptimizerRegistrationParams* params) const {
    return InvokeWithStatus(abi::PluginFunction::kInitGraph, init_graph, params);
  }

  // Calls the plugin's exported TF_InitProfiler with the registration
  // params TensorFlow pre-fills (host/profiler_module.h).
  Expected<void> CallInitProfiler(void (*init_profiler)(TF_ProfilerRegistrationParams*, TF_Status*),
                                  TF_ProfilerRegistrationParams* params) const {
    return InvokeWithStatus(abi::PluginFunction::kInitProfiler, init_profiler, params);
  }

  // Calls one of TVM's C Device API hooks, looked up by symbol name (no
  // table has them): `hook` must be one of abi::TvmDeviceHooks().
  Expected<int32_t> CallTvmDeviceHook(abi::PluginFunction hook, int32_t (*fn)(void*),
                                      void* context) const {
    if (!IsTvmDeviceHook(hook)) {
      return tl::unexpected(
          Error(ErrorCode::kInternal,
                fmt::format("{} is not a TVM C Device API hook", abi::QualifiedName(hook))));
    }
    return Invoke(hook, fn, context);
  }

 private:
  static bool IsTvmDeviceHook(abi::PluginFunction function) {
    const auto hooks = abi::TvmDeviceHooks();
    return !hooks.empty() && function >= hooks.front().function &&
           function <= hooks.back().function;
  }

  // Calls `fn(args...)` as plugin function `function`. A null `fn` is an
  // Unimplemented error and calls nothing. Private: a caller names a table
  // member (Call) and never pairs a function number with a pointer by hand.
  template <typename R, typename... Params, typename... Args>
  Expected<R> Invoke(abi::PluginFunction function, R (*fn)(Params...), Args... args) const {
    if (!refused_.empty()) {
      if (const auto refused = refused_.find(function); refused != refused_.end()) {
        return PluginFailure(function, refused->second);
      }
    }
    if (fn == nullptr) {
      journal_.RecordMissing(function);
      return tl::unexpected(
          Error(ErrorCode::kUnimplemented,
                fmt::format("the plugin does not provide {}", abi::QualifiedName(function)))
              .BlamedOn(function));
    }
    if (server_ != nullptr) return InvokeRemotely(function, fn, args...);
    std::array<uint64_t, kMaxRecordedArguments> recorded{};
    const uint8_t count = RecordArguments(recorded, args...);
    JournalEntry* entry = journal_.Begin(function, recorded, count);
    try {
      if constexpr (std::is_void_v<R>) {
        fn(args...);
        journal_.Finish(entry, CallState::kReturned, StatusCodeOf(args...), 0);
        return {};
      } else {
        R result = fn(args...);
        journal_.Finish(entry, CallState::kReturned, StatusCodeOf(args...),
                        AsRecordedResult(result));
        return result;
      }
    } catch (...) {
      journal_.Finish(entry, CallState::kThrew, kNoStatus, 0);
      return PluginFailure(function, fmt::format("{} threw a C++ exception across the C API",
                                                 abi::QualifiedName(function)));
    }
  }

  // Invoke, performed by the plugin server: the call is journalled here,
  // before it is sent, so a server that dies in it leaves the call
  // unfinished in memory it never maps.
  template <typename R, typename... Params, typename... Args>
  Expected<R> InvokeRemotely(abi::PluginFunction function, R (*fn)(Params...), Args... args) const {
    RemoteCallArguments call;
    (call.template Add<Params>(args, *staging_), ...);
    if (call.unsupported || call.arena_full || call.callbacks_full || call.outside_arena) {
      Error refused(
          ErrorCode::kInternal,
          fmt::format("sectl cannot pass {} to the plugin server{}", abi::QualifiedName(function),
                      call.arena_full       ? ": its arena is full"
                      : call.callbacks_full ? ": too many host callbacks registered"
                      : call.outside_arena  ? ": a host buffer of sectl's is outside the arena"
                                            : " (a host function it cannot stand in for)"));
      // Never the plugin's doing, whatever the caller makes of the error.
      NoteHostDefect(refused.message());
      return tl::unexpected(std::move(refused));
    }
    // A server known to have ended (one whose end a check made its finding,
    // lifecycle.process_exit) performs nothing more: the call is neither
    // sent nor journalled, so no call is shown as never returning.
    if (server_->gone()) {
      return tl::unexpected(Error(ErrorCode::kFailedPrecondition,
                                  fmt::format("{} not called: the plugin's process has ended",
                                              abi::QualifiedName(function))));
    }
    std::array<uint64_t, kMaxRecordedArguments> recorded{};
    const uint8_t count = RecordArguments(recorded, args...);
    JournalEntry* entry = journal_.Begin(function, recorded, count);
    const int32_t status_in = call.status != nullptr ? TF_GetCode(call.status) : 0;
    const std::string text_in =
        call.status != nullptr && TF_Message(call.status) != nullptr ? TF_Message(call.status) : "";
    auto answer =
        server_->Call(function, reinterpret_cast<uintptr_t>(fn), call.words, status_in, text_in);
    // A server that died: the judge has ended the same way already, or
    // (WhenTheServerEnds::kReportIt) the error says how it died.
    if (!answer) return tl::unexpected(answer.error());
    if ((function == abi::PluginFunction::kHostMemoryAllocate ||
         function == abi::PluginFunction::kUnifiedMemoryAllocate) &&
        !call.words.empty()) {
      staging_->NotePluginHostMemory(answer->result, call.words.back());
    }
    for (const auto& copy : call.copy_back) std::memcpy(copy.host, copy.staged, copy.bytes);
    if (call.status != nullptr) {
      TF_SetStatus(call.status, static_cast<TF_Code>(answer->status_code), answer->text.c_str());
    }
    switch (answer->outcome) {
      case remote::Outcome::kReturned:
        break;
      case remote::Outcome::kThrew:
        journal_.Finish(entry, CallState::kThrew, kNoStatus, 0);
        return PluginFailure(function, fmt::format("{} threw a C++ exception across the C API",
                                                   abi::QualifiedName(function)));
      case remote::Outcome::kFailed:
        journal_.Finish(entry, CallState::kReturned, kNoStatus, 0);
        return tl::unexpected(
            Error(ErrorCode::kInternal, fmt::format("the plugin server could not call {}: {}",
                                                    abi::QualifiedName(function), answer->text)));
    }
    journal_.Finish(entry, CallState::kReturned,
                    call.status != nullptr ? answer->status_code : kNoStatus,
                    static_cast<int64_t>(answer->result));
    if constexpr (std::is_void_v<R>) {
      return {};
    } else {
      return remote::FromWord<R>(answer->result, nullptr);
    }
  }

  template <typename... Params, typename... Args>
  Expected<void> InvokeWithStatus(abi::PluginFunction function, void (*fn)(Params...),
                                  Args... args) const {
    TfStatusHandle status;
    auto called = Invoke(function, fn, args..., status.get());
    if (!called) return called;
    if (!status.ok()) {
      return PluginFailure(function, fmt::format("{} failed: {}: {}", abi::QualifiedName(function),
                                                 TfCodeName(status.code()), status.message()));
    }
    return {};
  }

  // The code the plugin left in the call's TF_Status argument, if it has one.
  template <typename... Args>
  static int32_t StatusCodeOf(Args... args) {
    int32_t code = kNoStatus;
    (
        [&](auto arg) {
          if constexpr (std::is_same_v<decltype(arg), TF_Status*>) code = TF_GetCode(arg);
        }(args),
        ...);
    return code;
  }

  Journal& journal_;
  std::map<abi::PluginFunction, std::string> refused_;
  remote::PluginServer* server_ = nullptr;
  std::unique_ptr<RemoteStaging> staging_;
};

}  // namespace sectl::host
