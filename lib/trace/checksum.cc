#include "trace/checksum.h"

#include <xxhash.h>

namespace sectl::trace {

uint64_t ChecksumOf(const void* data, size_t size) { return XXH3_64bits(data, size); }

}  // namespace sectl::trace
