# Faults in a plugin's kernel module (TF_InitKernel), judged by probe
# (probe/kernel_module_description.cc) and named in tests/kernel_module_test.cc.
foreach(fault KERNEL_FOR_UNKNOWN_DEVICE KERNEL_REGISTERED_TWICE KERNEL_WITHOUT_COMPUTE
              KERNEL_INIT_READS_INPUT KERNEL_INIT_CRASHES KERNEL_BUILDER_USED_AFTER_REGISTERING)
  sectl_add_faulty_plugin(${fault} kernel_faults.c)
endforeach()
