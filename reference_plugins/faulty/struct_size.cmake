# Faults in struct_size handling (checks/struct_size_checks.cc) and in the
# layout an older TensorFlow reads (checks/compat_checks.cc).
sectl_add_faulty_plugin(ZERO_STRUCT_SIZE struct_size_faults.c)
sectl_add_faulty_plugin(SIZEOF_PLATFORM struct_size_faults.c)
# Writes all 288 bytes of SP_StreamExecutor whatever size the host
# announced: harmless to 2.7 and later, an overrun in 2.5 (--tf-version 2.5).
# On the cpu base, which has the timers 2.5 requires: only the layout is wrong.
sectl_add_faulty_plugin(OVERRUNS_OLDER_HOST struct_size_faults.c BASE cpu)
# Writes 8 bytes past the end of every TensorFlow's SP_StreamExecutor.
sectl_add_faulty_plugin(WRITES_PAST_STREAM_EXECUTOR struct_size_faults.c)
sectl_add_faulty_plugin(CONFUSED_BY_NEWER_HOST struct_size_faults.c)
# The cpu base fills timers and the 264-byte layout, so TensorFlow 2.5 would
# load it: only the layout mix-up stands between them.
sectl_add_faulty_plugin(FILLS_NEW_LAYOUT_ON_OLD_HOST struct_size_faults.c BASE cpu)
