// The key to the plugin's raw function tables.
//
// Every call into a plugin goes through the Dispatcher with the table that
// holds the function, and the runtime's objects (Platform, Device, Stream,
// Event, Timer) are the only code that picks the table. Checks and commands
// call the plugin through those objects, or through the few named calls in
// host/unusual_calls.h; they cannot reach a table, so they cannot call a
// function from the wrong one or around the journal.
#pragma once

namespace sectl::host {

class TableAccess {
 private:
  TableAccess() = default;

  friend class Platform;
  friend class Device;
  friend class Stream;
  friend class Event;
  friend class Timer;
  friend class UnusualCalls;
  // bench/dispatch_benchmark.cc: times the Dispatcher against a direct call
  // through the same table.
  friend class DispatchBenchmarkPlugin;
  // bench/validate_layer_benchmark.cc: times calls through the validation
  // layer's tables against the plugin's own.
  friend class ValidateLayerBenchmarkPlugin;
};

}  // namespace sectl::host
