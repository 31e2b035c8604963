# Faults in memory (checks/memory_checks.cc).
sectl_add_faulty_plugin(MISALIGNED_ALLOCATION memory_faults.c)
sectl_add_faulty_plugin(SIZE_NOT_REPORTED memory_faults.c)
sectl_add_faulty_plugin(ALLOCATE_ZERO_CRASH memory_faults.c)
sectl_add_faulty_plugin(DEALLOCATE_NEEDS_SIZE memory_faults.c)
sectl_add_faulty_plugin(OVERLAPPING_ALLOCATIONS memory_faults.c)
# Every small block is one and the same: copies between two live blocks
# cannot be judged, and the copy checks are blocked by allocate.
sectl_add_faulty_plugin(ALLOCATE_ONE_BLOCK memory_faults.c)
sectl_add_faulty_plugin(UNALIGNED_HOST_MEMORY memory_faults.c)
# The minimal plugin has no unified memory.
sectl_add_faulty_plugin(UNALIGNED_UNIFIED_MEMORY memory_faults.c BASE cpu)
# get_allocator_stats crashes: its recommended check becomes required, as
# TensorFlow calls it in normal use (conform/check_runner.cc, escalation).
sectl_add_faulty_plugin(STATS_CRASH memory_faults.c)
sectl_add_faulty_plugin(STATS_NOT_RELEASED memory_faults.c)
sectl_add_faulty_plugin(LIMIT_NOT_ENFORCED memory_faults.c)
sectl_add_faulty_plugin(USAGE_RETURNS_FALSE memory_faults.c)
sectl_add_faulty_plugin(FREE_NEVER_DROPS memory_faults.c)
sectl_add_faulty_plugin(ALLOCATE_OVERRUNS_SMALL_BLOCK memory_faults.c)
# A 4-byte tag written into a 0-byte heap block (malloc(0)) the plugin keeps.
sectl_add_faulty_plugin(ALLOCATE_ZERO_OVERRUNS_SHADOW memory_faults.c)
