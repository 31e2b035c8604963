// The file tested is the file hashed.
//
// A report names the plugin by its SHA-256, taken once; every process that
// runs a check loads the plugin again by its path. Pinning the path when it
// is hashed makes every later PluginLibrary::Open of it, in this process or
// in a child forked from it, verify that it still loads exactly the file
// hashed (same device and inode, unchanged since), and refuse to load
// anything else with "the plugin file changed during the run".
#pragma once

#include <optional>
#include <string>

#include "base/error.h"
#include "base/file_digest.h"

namespace sectl::loader {

// A pin on one plugin path; the path stays pinned while any pin on it lives.
class PluginFilePin {
 public:
  PluginFilePin(PluginFilePin&& other) noexcept;
  PluginFilePin& operator=(PluginFilePin&&) = delete;
  PluginFilePin(const PluginFilePin&) = delete;
  PluginFilePin& operator=(const PluginFilePin&) = delete;
  ~PluginFilePin();

  // The SHA-256 of the file pinned (64 lowercase hex digits).
  const std::string& sha256() const { return sha256_; }

 private:
  friend Expected<PluginFilePin> PinPluginFile(const std::string& path);
  PluginFilePin(std::string key, std::string sha256)
      : key_(std::move(key)), sha256_(std::move(sha256)) {}

  std::string key_;  // empty once moved from
  std::string sha256_;
};

// Hashes the file at `path` and pins it. A path already pinned (a child
// process inherits its parent's pins) is not hashed again: the file is
// verified to be the one pinned, and the first digest is returned.
Expected<PluginFilePin> PinPluginFile(const std::string& path);

// What `path` was when it was pinned, if it is pinned.
std::optional<FileIdentity> PinnedIdentity(const std::string& path);

// The one-line error for a pinned plugin file that is no longer the file
// hashed: `what` says what was found instead.
Error PluginFileChanged(const std::string& path, std::string_view what);

}  // namespace sectl::loader
