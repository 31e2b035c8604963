// Putting the layer's wrappers into the tables the host owns. The host
// reads each table at the offsets of its own header, whatever struct_size
// the plugin reported (TensorFlow never reads by the plugin's size), so the
// layer swaps the pointers where the host will read them: at the offsets of
// the layout the host's pre-filled struct_size names.
#pragma once

#include <cstddef>

#include "abi/struct_layouts.h"
#include "validate/call.h"

namespace sectl::validate {

// The struct sizes the host pre-filled, taken before the plugin writes.
struct HostSizes {
  size_t registration_params = 0;
  size_t platform = 0;
  size_t platform_fns = 0;
};

// Replaces every non-null function pointer of `table` (a host-owned struct
// of `kind` whose host size is `host_size`) with the layer's wrapper, and
// keeps the vendor's pointers as the originals. Compares the plugin's
// reported struct_size with the host's (findings on `call`).
void WrapTable(Call& call, abi::StructKind kind, void* table, size_t host_size);

// Only the size comparison, for structs without functions (SP_Platform,
// SP_Device).
void CompareStructSize(Call& call, abi::StructKind kind, const void* table, size_t host_size);

}  // namespace sectl::validate
