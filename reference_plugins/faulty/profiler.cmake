# Faults in a plugin's profiler module (TF_InitProfiler), caught by the
# profiler.* checks (checks/profiler_checks.cc) and named in
# tests/plugin_modules_test.cc.
foreach(fault PROFILER_WITHOUT_DESTROY PROFILER_DEVICE_TYPE_INVALID PROFILER_INIT_FAILS
              PROFILER_FOR_ANOTHER_DEVICE
              PROFILER_COLLECT_OVERRUNS PROFILER_SIZE_NOT_SET)
  sectl_add_faulty_plugin(${fault} profiler_faults.c)
endforeach()
