// The checksum a trace keeps of copied host bytes: XXH3-64 (libxxhash),
// fast enough to take on every copy of a traced run.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sectl::trace {

uint64_t ChecksumOf(const void* data, size_t size);

}  // namespace sectl::trace
