# Faults in TVM's DeviceAPI contract (checks/tvm_device_api_checks.cc).
sectl_add_faulty_plugin(OUT_OF_ORDER_FREE_LEAKS tvm_device_api_faults.c)
