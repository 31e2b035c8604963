#include "isolation/file_system_view.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <filesystem>
#include <mutex>

#include "isolation/bounded_reap.h"
#include "isolation/namespaces.h"

namespace sectl::isolation {
namespace {

namespace fs = std::filesystem;

Expected<void> Failed(const std::string& step) {
  return Fail(ErrorCode::kInternal, fmt::format("{}: {}", step, strerrorname_np(errno)));
}

// A detached copy of the mount at `path`, taken while it is still
// writable, to put back over the read-only view. -1 with errno on failure.
int CloneMount(const std::string& path) {
  return ::open_tree(AT_FDCWD, path.c_str(), OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
}

// What to keep writable for `path`: the directory it names, or the one it
// is in: writers replace a file by renaming a new one over it (the
// validation layer's report, sectl's own), which takes the directory.
std::string WritableTarget(const std::string& path) {
  std::error_code error;
  if (fs::is_directory(path, error)) return path;
  const fs::path parent = fs::path(path).parent_path();
  return fs::is_directory(parent, error) ? parent.string() : std::string();
}

// A mount cloned before the read-only view, to put back at `path`.
struct KeptMount {
  std::string path;
  int mount = -1;
};

Expected<void> MakeReadOnly(const char* path, unsigned flags) {
  mount_attr attributes{};
  attributes.attr_set = MOUNT_ATTR_RDONLY;
  if (::mount_setattr(AT_FDCWD, path, flags, &attributes, sizeof(attributes)) != 0) {
    return Failed(fmt::format("cannot make {} read-only", path));
  }
  return {};
}

Expected<void> MakeWritable(const char* path) {
  mount_attr attributes{};
  attributes.attr_clr = MOUNT_ATTR_RDONLY;
  if (::mount_setattr(AT_FDCWD, path, 0, &attributes, sizeof(attributes)) != 0) {
    return Failed(fmt::format("cannot make {} writable again", path));
  }
  return {};
}

Expected<void> MountTmpfs(const std::string& path, const std::string& options) {
  if (::mount("sectl-scratch", path.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()) != 0) {
    return Failed(fmt::format("cannot mount a tmpfs on {}", path));
  }
  return {};
}

}  // namespace

namespace {

// The trial behind FileSystemViewTrialFailure.
std::string TryFileSystemView() {
  const NamespaceSupport& support = ProbeNamespaces();
  if (!support.pid) return "no mount namespace";
  std::string scratch = "/tmp/sectl-trial-XXXXXX";
  if (::mkdtemp(scratch.data()) == nullptr) {
    return fmt::format("cannot make a trial directory: {}", strerrorname_np(errno));
  }
  std::array<int, 2> answer{-1, -1};
  if (::pipe2(answer.data(), O_CLOEXEC) != 0) {
    ::rmdir(scratch.c_str());
    return fmt::format("cannot make a pipe: {}", strerrorname_np(errno));
  }
  const OuterIdentity identity = CurrentIdentity();
  const pid_t pid = CloneIntoNamespaces(support);
  if (pid == 0) {
    ::close(answer[0]);
    std::string failure;
    if (auto set_up = SetUpNamespaces(support, identity); !set_up) {
      failure = set_up.error().message();
    } else if (auto view = PrepareFileSystemView(scratch, {}, PluginIdentity{}); !view) {
      failure = view.error().message();
    } else if (::access("/", W_OK) == 0 || errno != EROFS) {
      failure = "/ is still writable";
    }
    (void)!::write(answer[1], failure.data(), failure.size());
    ::_exit(0);
  }
  ::close(answer[1]);
  std::string failure;
  if (pid < 0) {
    failure = fmt::format("cannot start a trial: {}", strerrorname_np(errno));
  } else {
    std::array<char, 1024> buffer{};
    ssize_t got = 0;
    while ((got = ::read(answer[0], buffer.data(), buffer.size())) > 0 ||
           (got < 0 && errno == EINTR)) {
      if (got > 0) failure.append(buffer.data(), static_cast<size_t>(got));
    }
    ::kill(pid, SIGKILL);
    (void)ReapKilled(pid, kKilledProcessGrace);
  }
  ::close(answer[0]);
  ::rmdir(scratch.c_str());
  return failure;
}

}  // namespace

Expected<void> PrepareFileSystemView(const std::string& scratch,
                                     const std::vector<std::string>& writable,
                                     const PluginIdentity& identity) {
  // Taken first, while every mount is still writable.
  std::vector<KeptMount> kept;
  for (const std::string& path : writable) {
    const std::string target = WritableTarget(path);
    if (target.empty()) continue;
    const int mount = CloneMount(target);
    if (mount < 0) return Failed(fmt::format("cannot keep {} writable", target));
    kept.push_back({target, mount});
  }
  const uid_t uid = identity.switch_user ? identity.uid : ::geteuid();
  const gid_t gid = identity.switch_user ? identity.gid : ::getegid();

  // The plugin's own storage: its scratch directory, a bounded tmpfs.
  const std::string& store = scratch;
  if (auto mounted = MountTmpfs(store, fmt::format("size={},mode=0700", kScratchBytes)); !mounted) {
    return mounted;
  }
  if (::chown(store.c_str(), uid, gid) != 0) {
    return Failed("cannot give the scratch directory to the plugin's user");
  }
  if (auto read_only = MakeReadOnly("/", AT_RECURSIVE); !read_only) return read_only;
  if (auto own = MakeWritable(store.c_str()); !own) return own;
  struct stat shm {};
  if (::stat("/dev/shm", &shm) == 0 && S_ISDIR(shm.st_mode)) {
    if (auto mounted = MountTmpfs("/dev/shm", fmt::format("size={},mode=1777", kScratchBytes));
        !mounted) {
      return mounted;
    }
  }
  // A plain user's own /proc/self stays writable; uid 0 without
  // capabilities could still write /proc/sysrq-trigger and kernel settings.
  if (identity.switch_user || ::geteuid() != 0) {
    if (auto writable_proc = MakeWritable("/proc"); !writable_proc) return writable_proc;
  }
  for (const KeptMount& keep : kept) {
    const int moved =
        ::move_mount(keep.mount, "", AT_FDCWD, keep.path.c_str(), MOVE_MOUNT_F_EMPTY_PATH);
    ::close(keep.mount);
    if (moved != 0) return Failed(fmt::format("cannot put {} back in view", keep.path));
  }
  return {};
}

const std::string& FileSystemViewTrialFailure() {
  static std::once_flag tried;
  static std::string failure;
  std::call_once(tried, [] { failure = TryFileSystemView(); });
  return failure;
}

std::string DescribeFileSystemView(bool namespaced) {
  const std::string& trial_failure = namespaced ? FileSystemViewTrialFailure() : std::string();
  if (!namespaced) {
    return "file system: as writable as for its user (no mount namespace); its scratch "
           "directory is not size-limited";
  }
  if (!trial_failure.empty()) {
    return fmt::format("file system: as writable as for its user ({})", trial_failure);
  }
  return fmt::format(
      "file system: read-only but for its scratch directory (working directory and TMPDIR, "
      "at most {} MiB), a private /dev/shm and what --plugin-writes names",
      kScratchBytes / (uint64_t{1024} * 1024));
}

}  // namespace sectl::isolation
