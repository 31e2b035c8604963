#include "conform/check_support.h"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "conform/check_context.h"

namespace sectl::conform {

void SkipUnlessProvided(CheckContext& check, std::initializer_list<abi::PluginFunction> needed) {
  for (abi::PluginFunction function : needed) {
    if (!check.platform().Provides(function)) {
      check.Skip(fmt::format(
          "the plugin does not provide {} (registration.required_callbacks reports missing "
          "required members)",
          abi::QualifiedName(function)));
    }
  }
}

std::vector<unsigned char> TestPattern(size_t size, unsigned seed) {
  std::vector<unsigned char> bytes(size);
  for (size_t i = 0; i < size; ++i) {
    bytes[i] = static_cast<unsigned char>((i * 7 + i / 251 + size_t{seed} * 13 + 1) & 0xFF);
  }
  return bytes;
}

std::string FirstDifference(const unsigned char* expected, const unsigned char* actual,
                            size_t size) {
  for (size_t i = 0; i < size; ++i) {
    if (expected[i] != actual[i]) {
      return fmt::format("byte {} reads back as 0x{:02x}, 0x{:02x} was written", i, actual[i],
                         expected[i]);
    }
  }
  return {};
}

GuardedHostBuffer::GuardedHostBuffer(size_t size) : size_(size) {
  const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t usable = (size + page - 1) / page * page;
  // A guard page on each side; the buffer ends exactly at the back guard.
  mapping_size_ = usable + 2 * page;
  void* mapping = ::mmap(nullptr, mapping_size_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED) return;
  auto* base = static_cast<unsigned char*>(mapping);
  if (::mprotect(base + page, usable, PROT_READ | PROT_WRITE) != 0) {
    ::munmap(mapping, mapping_size_);
    return;
  }
  mapping_ = mapping;
  data_ = base + page + usable - size;
}

GuardedHostBuffer::~GuardedHostBuffer() {
  if (mapping_ != nullptr) ::munmap(mapping_, mapping_size_);
}

int ThreadCount() {
  std::error_code error;
  int count = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/task", error);
       !error && it != std::filesystem::directory_iterator(); it.increment(error)) {
    ++count;
  }
  return count;
}

uint64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size_pages = 0;
  uint64_t resident_pages = 0;
  if (!(statm >> size_pages >> resident_pages)) return 0;
  return resident_pages * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

}  // namespace sectl::conform
