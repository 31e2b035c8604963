// How plugin_entry.cc fills the function tables that live in other files.
// Each function writes only the members that fit the host's struct_size.

#ifndef SECTL_REFERENCE_PLUGINS_CPU_PLUGIN_FNS_H_
#define SECTL_REFERENCE_PLUGINS_CPU_PLUGIN_FNS_H_

#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

namespace sectl_plugin::cpu {

void FillDeviceFns(SP_DeviceFns* device_fns);          // device_fns.cc
void FillStreamExecutor(SP_StreamExecutor* executor);  // stream_executor_fns.cc
void FillTimerFns(SP_TimerFns* timer_fns);             // timer_fns.cc

}  // namespace sectl_plugin::cpu

#endif  // SECTL_REFERENCE_PLUGINS_CPU_PLUGIN_FNS_H_
