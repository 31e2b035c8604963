#include "tvm/context_storage.h"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace sectl::tvm {
namespace {

constexpr unsigned char kPrefixPattern = 0xC5;
// The context starts 16-byte aligned, as malloc'd or static storage would.
constexpr size_t kContextAlignment = 16;

size_t PageSize() { return static_cast<size_t>(::sysconf(_SC_PAGESIZE)); }

size_t RoundUp(size_t value, size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

}  // namespace

Expected<ContextStorage> ContextStorage::Create(size_t bytes) {
  const size_t page = PageSize();
  const size_t usable = RoundUp(std::max<size_t>(bytes, 1) + kContextAlignment, page);
  const size_t total = usable + page;  // then one guard page
  void* mapping =
      ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED) {
    return Fail(ErrorCode::kIoError, fmt::format("cannot map {} bytes for the device context: {}",
                                                 total, std::strerror(errno)));
  }
  auto* base = static_cast<unsigned char*>(mapping);
  ::mprotect(base + usable, page, PROT_NONE);
  // The context ends at the guard page, or as close as alignment allows.
  const size_t offset = (usable - bytes) / kContextAlignment * kContextAlignment;
  std::memset(base, kPrefixPattern, offset);
  return ContextStorage(mapping, total, base + offset, bytes);
}

ContextStorage::ContextStorage(void* mapping, size_t mapping_bytes, void* context, size_t size)
    : mapping_(mapping), mapping_bytes_(mapping_bytes), context_(context), size_(size) {}

ContextStorage::ContextStorage(ContextStorage&& other) noexcept
    : mapping_(std::exchange(other.mapping_, nullptr)),
      mapping_bytes_(other.mapping_bytes_),
      context_(other.context_),
      size_(other.size_) {}

ContextStorage::~ContextStorage() {
  if (mapping_ != nullptr) ::munmap(mapping_, mapping_bytes_);
}

bool ContextStorage::PrefixIntact() const {
  const auto* base = static_cast<const unsigned char*>(mapping_);
  const auto* end = static_cast<const unsigned char*>(context_);
  for (const auto* at = base; at < end; ++at) {
    if (*at != kPrefixPattern) return false;
  }
  return true;
}

}  // namespace sectl::tvm
