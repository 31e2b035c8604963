// Who a plugin's process runs as, and the private directory it may write.
//
// A plugin process holds no capability in any set (the bounding set
// included) and runs with no_new_privs (isolation/sandbox.h). Where sectl
// runs as root that is not enough: uid 0 without capabilities still owns
// every root-owned file (a cgroup's freezer, root's secrets), so the plugin
// runs as the unprivileged user "nobody" instead. That user must be able to
// read the plugin and the files it names (the validation layer's wrapped
// plugin, a TVM core), write where the validation layer reports, and open
// the machine's accelerators (/dev/dri, /dev/kfd, /dev/nvidia*, ..., often
// root's and a group's only); where it cannot (a plugin under a private
// directory such as /root, a GPU only the "render" group may open), the
// plugin stays uid 0 without capabilities, and the report says why.
//
// Every plugin process also gets a scratch directory of its own: its
// working directory and TMPDIR, on a size-limited tmpfs private to its
// mount namespace (file_system_view.h; a plain directory under
// --no-namespaces), removed when the process ends. What it writes there
// cannot fill sectl's disk, and sectl's own files never depend on the
// plugin's working directory.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/error.h"

namespace sectl::isolation {

// The most a plugin may keep in its scratch directory, in its namespace.
inline constexpr uint64_t kScratchBytes = uint64_t{64} * 1024 * 1024;
// Processes and threads of the plugin's user in its namespace, and open
// descriptors per process: far beyond what a device runtime needs, far
// below what would starve the machine.
inline constexpr uint64_t kMaxPluginProcesses = 4096;
inline constexpr uint64_t kMaxPluginDescriptors = 16384;

struct PluginIdentity {
  bool switch_user = false;  // to uid/gid below (sectl runs as root)
  uid_t uid = 0;
  gid_t gid = 0;
  std::string user_name;  // "nobody"
  // When sectl runs as root but the plugin stays root: why.
  std::string why_root;
};

// In sectl, before forking: the identity for a plugin process that must
// read `readable` and write in the directories of `writable`.
PluginIdentity ChoosePluginIdentity(const std::vector<std::string>& readable,
                                    const std::vector<std::string>& writable);

// The files a plugin process needs besides `plugin_files`, from the
// environment it will see: the validation layer's wrapped plugin (read),
// its report and trace (written).
void AddValidationLayerFiles(std::vector<std::string>& readable,
                             std::vector<std::string>& writable);

// In the child, while it still may: switches to `identity` (groups, gid,
// uid; the bounding set emptied first, as that takes a capability the
// switch ends), and caps processes and descriptors. An error says what
// failed; nothing else is tried after it.
Expected<void> AssumePluginIdentity(const PluginIdentity& identity);

// A scratch directory made by sectl for one plugin process, removed with
// everything in it when this object goes.
class ScratchDirectory {
 public:
  static Expected<ScratchDirectory> Create(const PluginIdentity& identity);
  ScratchDirectory(ScratchDirectory&& other) noexcept;
  ScratchDirectory& operator=(ScratchDirectory&& other) noexcept;
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  ~ScratchDirectory();

  const std::string& path() const { return path_; }

 private:
  explicit ScratchDirectory(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// In the child: makes `path` the working directory and TMPDIR.
Expected<void> EnterScratch(const std::string& path);

// "user: nobody (uid 65534) ...", for the report's confinement lines.
std::string DescribePluginIdentity(const PluginIdentity& identity);

}  // namespace sectl::isolation
