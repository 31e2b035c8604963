# Faults in a plugin's graph-optimizer module (TF_InitGraph), caught by the
# graph.* checks (checks/graph_checks.cc) and named in tests/plugin_modules_test.cc.
foreach(fault GRAPH_WITHOUT_OPTIMIZE_FUNC GRAPH_CONFIGS_SIZE_ZERO GRAPH_INIT_FAILS
              GRAPH_FOR_ANOTHER_DEVICE GRAPH_CONFIGS_PRE_2_10)
  sectl_add_faulty_plugin(${fault} graph_faults.c)
endforeach()
