// The defects the faulty variants of the reference TVM runtimes seed, one
// FAULT_* macro per variant (CMakeLists.txt), each caught by exactly one
// tvm_device_api.* check. The device core's faults (device_core.cc,
// stream_queue.cc) are built into both flavours, faulty_tvm_runtime_<fault>
// (tests/tvm_runtime_test.cc) and faulty_tvm_ffi_runtime_<fault>
// (tests/tvm_ffi_runtime_test.cc), but for IGNORES_STREAM_DEPENDENCY, which
// tvm-ffi cannot show (CMakeLists.txt says why):
//
//   FAULT_MISALIGNED_4096              4096-byte data spaces lose their 64-byte
//                                      alignment                   -> alignment
//   FAULT_ALIGNMENT_ONLY_64            alignments above 64 are honoured only to
//                                      64                          -> alignment_exact
//   FAULT_DTOD_IGNORES_TARGET_OFFSET   device-to-device copies drop the target's
//                                      byte_offset                 -> copy_with_offsets
//   FAULT_READS_HOST_BUFFER_LATE       the null stream queues host-to-device
//                                      copies and reads the host buffer later
//                                                                  -> host_buffer_reuse
//   FAULT_IGNORES_STREAM_DEPENDENCY    TVMStreamStreamSynchronize does nothing
//                                                                  -> sync_stream_from_to
//   FAULT_SET_STREAM_REJECTS_STREAMS   TVMSetStream fails for any stream but the
//                                      null one                    -> streams
//   FAULT_WORKSPACE_NEVER_REUSED       freed workspace blocks are leaked
//                                                                  -> workspace_reuse
//   FAULT_WORKSPACE_SHARED_BLOCK       two live workspaces of one size share a
//                                      block                       -> workspace_stack
//   FAULT_EXIST_BEYOND_COUNT           kExist answers 1 for cpu device 2, which
//                                      cannot be used              -> exist
//   FAULT_AVAILABLE_NEVER_CHANGES      kAvailableGlobalMemory ignores what is held
//                                                                  -> memory_attributes
//   FAULT_SILENT_ALLOCATION_FAILURE    a failed allocation returns 0 and a null
//                                      pointer, with no error (on tvm-ffi: a
//                                      Tensor whose data is null)  -> errors_reported
//   FAULT_WORKSPACE_THROWS             as TVM's own backends: a workspace that
//                                      cannot be had throws std::bad_alloc, and
//                                      freeing one never handed out throws,
//                                      through TVMBackendAllocWorkspace and
//                                      TVMBackendFreeWorkspace     -> c_error_contract
//   FAULT_STREAM_CREATE_CRASHES_ON_ABSENT_DEVICE
//                                      TVMStreamCreate on a device id past the
//                                      count raises SIGSEGV        -> c_error_contract
//                                                                     (crash)
//
// Runtime shapes sectl must recognise, not checks' faults (reference_plugins/
// tvm_runtime/CMakeLists.txt, "TVM runtime shapes"; tests/tvm_runtime_shapes_test.cc):
//
//   FAULT_EXIST_CRASHES_BEYOND_TABLE   kExist for a device type above 32 crashes
//                                      (SIGSEGV), as TVM's unchecked DeviceAPI table
//   EXT_DEV_FROM_BACKEND               ext_dev is served only once a backend
//                                      library registered device_api.ext_dev
//
// The tvm-ffi front end's own (ffi_globals.cc), in faulty_tvm_ffi_runtime_<fault>:
//
//   FAULT_ERROR_WITHOUT_MESSAGE        a failed TVMTensorAllocWithScope raises an
//                                      Error whose message is empty
//                                                                  -> errors_reported
//
// The opaque-handle core's own (handle_backend_core.cc), in
// faulty_tvm_handle_backend_<fault> and faulty_tvm_ffi_handle_backend_<fault>
// (tests/tvm_handle_backend_test.cc), run with --tvm-device-type opencl:
//
//   FAULT_WORKSPACE_SHARED_STORAGE     a workspace asked while one of its size
//                                      is held gets a new descriptor over that
//                                      one's buffer: distinct handles, one
//                                      storage                     -> workspace_stack
//   FAULT_DROPS_WRITES_AT_256_MULTIPLES host-to-device copies at a byte_offset
//                                      that is a non-zero multiple of 256 are
//                                      dropped                     -> alignment
//                                      (and alignment_exact, which judges the
//                                      same round trips on a handle)
#pragma once
