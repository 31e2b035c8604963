// How the dispatcher hands a call's arguments to a plugin server
// (remote/plugin_server.h): each argument becomes a word the server can
// unpack into the same parameter type (remote/word_call.h).
//
//  - numbers, as they are; the plugin's handles (pointers to types only the
//    plugin defines: SP_Stream, SP_Event, SP_Timer) and untyped pointers, as
//    they are: they are the plugin's values;
//  - a pointer to a host-owned object outside the arena (an SP_Device the
//    host keeps, an int64_t to fill in): an arena copy of it, the same one
//    each time for the same object, copied back after the call unless the
//    parameter is const;
//  - the call's TF_Status: made by the server, its code and message carried
//    both ways;
//  - a host callback (SE_StatusCallbackFn) and the callback_arg after it:
//    registered with the server (remote::PluginServer::RegisterHostCallback),
//    the id passed as the argument word; the server hands the plugin a
//    trampoline of its own and the id, and runs the callback here as an
//    event when the plugin calls it;
//  - any other host function: not carried; the call is refused.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include "remote/arena.h"
#include "remote/plugin_server.h"
#include "remote/word_call.h"
#include "tensorflow/c/tf_status.h"

namespace sectl::host {

template <typename T, typename = void>
struct IsCompleteType : std::false_type {};
template <typename T>
struct IsCompleteType<T, std::void_t<decltype(sizeof(T))>> : std::true_type {};

// The arena copies of host objects, one per host address, kept for the
// dispatcher's life: a plugin that remembers the SP_Device* it was given
// sees the same address on every call, as it would in TensorFlow.
class RemoteStaging {
 public:
  explicit RemoteStaging(remote::PluginServer& server) : server_(server), arena_(server.arena()) {}
  remote::Arena& arena() const { return arena_; }
  remote::PluginServer& server() const { return server_; }

  // Host memory the plugin allocated (host_memory_allocate,
  // unified_memory_allocate): an address of the server's that sectl may
  // hand back to the plugin, unlike any other outside the arena. Kept after
  // it is freed, so that a check may hand a freed address back on purpose.
  void NotePluginHostMemory(uint64_t address, uint64_t bytes) {
    if (address == 0) return;
    const std::lock_guard<std::mutex> held(mutex_);
    uint64_t& kept = plugin_host_memory_[address];
    kept = std::max(kept, std::max<uint64_t>(bytes, 1));
  }
  bool IsPluginHostMemory(const void* address) const {
    const auto at = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(address));
    const std::lock_guard<std::mutex> held(mutex_);
    auto after = plugin_host_memory_.upper_bound(at);
    if (after == plugin_host_memory_.begin()) return false;
    --after;
    return at - after->first < after->second;
  }

  // The arena copy of `bytes` at `host`, refreshed from it; nullptr when
  // the arena is full.
  void* CopyIn(const void* host, size_t bytes) {
    const std::lock_guard<std::mutex> held(mutex_);
    auto& copy = copies_[host];
    if (copy.bytes < bytes) {
      arena_.Free(copy.address);
      copy = {arena_.Allocate(bytes), bytes};
      if (copy.address == nullptr) return nullptr;
    }
    std::memcpy(copy.address, host, bytes);
    return copy.address;
  }

 private:
  struct Copy {
    void* address = nullptr;
    size_t bytes = 0;
  };
  remote::PluginServer& server_;
  remote::Arena& arena_;
  mutable std::mutex mutex_;
  std::map<const void*, Copy> copies_;
  std::map<uint64_t, uint64_t> plugin_host_memory_;  // address -> bytes
};

// One call's words, and what to do with them after it.
struct RemoteCallArguments {
  std::vector<uint64_t> words;
  TF_Status* status = nullptr;  // the host's, to fill from the server's answer
  bool unsupported = false;     // an argument the server cannot be given
  bool arena_full = false;
  bool callbacks_full = false;  // no more host callbacks can be registered
  // An untyped pointer that is neither in the arena nor the plugin's host
  // memory: memory of the judge's, meaningless in the server. sectl's
  // defect (a host buffer not made a HostBytes), refused rather than passed.
  bool outside_arena = false;
  struct CopyBack {
    void* host;
    const void* staged;
    size_t bytes;
  };
  std::vector<CopyBack> copy_back;

  template <typename Argument>
  void Add(Argument argument, RemoteStaging& staging) {
    words.push_back(WordOf(argument, staging));
  }

 private:
  // The host callback whose callback_arg comes next (host_callback's
  // parameters are the function, then its argument).
  remote::StatusCallback pending_callback_ = nullptr;

  template <typename Argument>
  uint64_t WordOf(Argument argument, RemoteStaging& staging) {
    if constexpr (std::is_same_v<Argument, TF_Status*>) {
      status = argument;
      return 0;
    } else if constexpr (std::is_same_v<Argument, remote::StatusCallback>) {
      // The server puts its trampoline in this word's place; 0 stays a null
      // function, for a check that passes one on purpose.
      if (argument == nullptr) return 0;
      pending_callback_ = argument;
      return 1;
    } else if constexpr (std::is_pointer_v<Argument>) {
      using Pointee = std::remove_pointer_t<Argument>;
      using Object = std::remove_cv_t<Pointee>;
      if constexpr (std::is_function_v<Pointee>) {
        unsupported = true;
        return 0;
      } else if constexpr (std::is_void_v<Object> || !IsCompleteType<Object>::value) {
        if constexpr (std::is_same_v<Object, void>) {
          if (pending_callback_ != nullptr) {
            const uint64_t id = staging.server().RegisterHostCallback(
                std::exchange(pending_callback_, nullptr), const_cast<void*>(argument));  // NOLINT
            if (id == 0) callbacks_full = true;
            return id;
          }
          if (argument != nullptr && !staging.arena().Contains(argument, 1) &&
              !staging.IsPluginHostMemory(argument)) {
            outside_arena = true;
          }
        }
        return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(argument));  // NOLINT
      } else {
        if (argument == nullptr || staging.arena().Contains(argument, sizeof(Object))) {
          return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(argument));  // NOLINT
        }
        void* staged = staging.CopyIn(argument, sizeof(Object));
        if (staged == nullptr) {
          arena_full = true;
          return 0;
        }
        if constexpr (!std::is_const_v<Pointee>) {
          copy_back.push_back({const_cast<Object*>(argument), staged, sizeof(Object)});  // NOLINT
        }
        return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(staged));  // NOLINT
      }
    } else if constexpr (std::is_same_v<Argument, double>) {
      return std::bit_cast<uint64_t>(argument);
    } else {
      return static_cast<uint64_t>(argument);
    }
  }
};

}  // namespace sectl::host
