// The findings of one traced process: each kept with its first occurrence
// in full (the call, its arguments, the thread) and a count of the rest, so
// a defect hit a million times in a training loop is one entry, not a
// million. The first occurrence of each finding at each function is also
// one line on stderr, as it happens.
#pragma once

#include <cstdint>
#include <memory_resource>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "abi/plugin_functions.h"
#include "validate/finding_catalog.h"
#include "validate/layer_heap.h"

namespace sectl::validate {

// One argument of the call a finding is about, as the report shows it.
struct CallArgument {
  std::string name;
  std::string value;
};

struct Finding {
  FindingKind kind = FindingKind::kCount;
  abi::PluginFunction function = abi::PluginFunction::kInitPlugin;
  std::string message;  // what was wrong with this call, in a sentence
  std::vector<CallArgument> arguments;
  uint64_t sequence = 0;  // the call's place in the process's sequence of calls
  uint32_t thread = 0;    // the layer's thread number (1, 2, ...)
  int64_t os_thread = 0;  // gettid()
  uint64_t occurrences = 1;
};

class FindingLog {
 public:
  // Whether stderr gets a line at each first occurrence.
  explicit FindingLog(bool announce) : announce_(announce) {}

  // Adds `finding`, or counts it when the same kind was already seen at the
  // same function. Returns whether it was the first of its kind there.
  bool Add(const Finding& finding);

  std::vector<Finding> Snapshot() const;
  // Error-severity findings so far, counting repeats.
  uint64_t ErrorCount() const;

 private:
  // A finding as the log keeps it: in the layer's own guarded mappings
  // (layer_heap.h), strings included, where a stray heap write of the
  // plugin's or the host's cannot rewrite it.
  struct KeptFinding {
    FindingKind kind;
    abi::PluginFunction function;
    std::pmr::string message;
    std::pmr::vector<std::pmr::string> argument_names;
    std::pmr::vector<std::pmr::string> argument_values;
    uint64_t sequence;
    uint32_t thread;
    int64_t os_thread;
    uint64_t occurrences;
  };

  mutable std::mutex mutex_;
  bool announce_;
  std::pmr::vector<KeptFinding> findings_{LayerHeap()};
};

}  // namespace sectl::validate
