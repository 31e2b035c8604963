// What sectl learned about a plugin function before the checks ran
// (conform/helper_triage.h): the function, and what it did.
#pragma once

#include <string>

#include "abi/plugin_functions.h"

namespace sectl::conform {

// How a function misbehaved.
enum class Misbehaviour {
  kCrashOrHang,  // its process died or hung inside it: a check that only uses it never calls it
  kFailure,      // it reported an error, or answered what no correct plugin answers
  kStall,        // it accepted work that never finished (a callback never run, an event never
                 // COMPLETE): helpers route around it, checks that test it wait only briefly
};

struct LearnedProblem {
  abi::PluginFunction function = abi::PluginFunction::kInitPlugin;
  // What it did, as a sentence of its own: "host_callback accepted a
  // callback on an idle stream (returned true) and had not run it 1 s later".
  std::string problem;
  Misbehaviour misbehaviour = Misbehaviour::kFailure;
};

}  // namespace sectl::conform
