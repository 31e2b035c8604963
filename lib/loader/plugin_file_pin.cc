#include "loader/plugin_file_pin.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>

namespace sectl::loader {
namespace {

struct Pinned {
  FileIdentity identity;
  std::string sha256;
  int pins = 0;
};

// The pins of this process, by absolute path. A forked child inherits a
// copy; sectl forks only from one thread, so the lock is never held across
// a fork.
struct PinTable {
  std::mutex lock;
  std::map<std::string, Pinned> by_path;
};

PinTable& Pins() {
  static PinTable table;
  return table;
}

// The same text for every spelling of one path that a process can hand to
// Open ("plugin.so", "./plugin.so", "dir/../plugin.so").
std::string PinKey(const std::string& path) {
  std::error_code ignored;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ignored);
  return (absolute.empty() ? std::filesystem::path(path) : absolute).lexically_normal().string();
}

// What the path names now, read through a descriptor opened on it.
Expected<FileIdentity> CurrentIdentity(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Fail(ErrorCode::kIoError, std::strerror(errno));
  auto identity = IdentityOfOpenFile(fd);
  ::close(fd);
  return identity;
}

}  // namespace

Error PluginFileChanged(const std::string& path, std::string_view what) {
  return Error(ErrorCode::kInputChanged,
               fmt::format("{}: the plugin file changed during the run ({}); sectl tests only "
                           "the file whose SHA-256 the report names",
                           path, what));
}

PluginFilePin::PluginFilePin(PluginFilePin&& other) noexcept
    : key_(std::move(other.key_)), sha256_(std::move(other.sha256_)) {
  other.key_.clear();
}

PluginFilePin::~PluginFilePin() {
  if (key_.empty()) return;
  PinTable& table = Pins();
  const std::lock_guard<std::mutex> held(table.lock);
  auto found = table.by_path.find(key_);
  if (found != table.by_path.end() && --found->second.pins <= 0) table.by_path.erase(found);
}

Expected<PluginFilePin> PinPluginFile(const std::string& path) {
  std::string key = PinKey(path);
  PinTable& table = Pins();
  {
    const std::lock_guard<std::mutex> held(table.lock);
    if (auto found = table.by_path.find(key); found != table.by_path.end()) {
      auto now = CurrentIdentity(path);
      if (!now) return tl::unexpected(PluginFileChanged(path, now.error().message()));
      if (*now != found->second.identity) {
        return tl::unexpected(PluginFileChanged(path, "it is not the file hashed"));
      }
      ++found->second.pins;
      return PluginFilePin(std::move(key), found->second.sha256);
    }
  }
  // Hashed without the lock: a large file takes a while.
  auto digest = DigestFile(path);
  if (!digest) return tl::unexpected(digest.error());
  const std::lock_guard<std::mutex> held(table.lock);
  Pinned& pinned = table.by_path[key];
  if (pinned.pins > 0 && pinned.identity != digest->identity) {
    return tl::unexpected(PluginFileChanged(path, "it is not the file hashed"));
  }
  if (pinned.pins == 0) pinned = {digest->identity, digest->sha256, 0};
  ++pinned.pins;
  return PluginFilePin(std::move(key), pinned.sha256);
}

std::optional<FileIdentity> PinnedIdentity(const std::string& path) {
  PinTable& table = Pins();
  const std::lock_guard<std::mutex> held(table.lock);
  auto found = table.by_path.find(PinKey(path));
  if (found == table.by_path.end()) return std::nullopt;
  return found->second.identity;
}

}  // namespace sectl::loader
