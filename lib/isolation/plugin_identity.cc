#include "isolation/plugin_identity.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "isolation/bounded_reap.h"

namespace sectl::isolation {
namespace {

namespace fs = std::filesystem;

// The unprivileged user plugins run as; Debian's "nobody" and "nogroup".
constexpr uid_t kFallbackNobodyUid = 65534;
constexpr gid_t kFallbackNobodyGid = 65534;

// The user named "nobody", as the password database says (65534 where it
// says nothing).
std::pair<uid_t, gid_t> Nobody() {
  passwd entry{};
  passwd* found = nullptr;
  std::array<char, 4096> buffer{};
  if (::getpwnam_r("nobody", &entry, buffer.data(), buffer.size(), &found) == 0 &&
      found != nullptr) {
    return {found->pw_uid, found->pw_gid};
  }
  return {kFallbackNobodyUid, kFallbackNobodyGid};
}

// The accelerators' device nodes on this machine (GPUs and other
// accelerators, whatever their vendor): a plugin must be able to open
// them, and they are often only for root and a group ("render", "video").
std::vector<std::string> AcceleratorDeviceNodes() {
  std::vector<std::string> nodes;
  std::error_code error;
  auto add_if_device = [&](const fs::path& path) {
    struct stat status {};
    if (::stat(path.c_str(), &status) == 0 && S_ISCHR(status.st_mode)) {
      nodes.push_back(path.string());
    }
  };
  for (const char* directory : {"/dev/dri", "/dev/accel"}) {
    for (const auto& entry : fs::directory_iterator(directory, error)) add_if_device(entry.path());
  }
  for (const auto& entry : fs::directory_iterator("/dev", error)) {
    const std::string name = entry.path().filename().string();
    for (const char* prefix : {"nvidia", "kfd", "dxg", "davinci", "hl", "vfio"}) {
      if (name.starts_with(prefix)) add_if_device(entry.path());
    }
  }
  return nodes;
}

// Whether `uid`/`gid` may access every path as asked, tried for real by a
// short-lived child that becomes that user: the kernel's own answer, ACLs
// and all. The first path it may not access, or empty.
std::string FirstInaccessible(uid_t uid, gid_t gid, const std::vector<std::string>& readable,
                              const std::vector<std::string>& writable) {
  std::array<int, 2> answer{-1, -1};
  if (::pipe2(answer.data(), O_CLOEXEC) != 0) return "(sectl could not ask: no pipe)";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(answer[0]);
    if (::setgroups(0, nullptr) != 0 || ::setresgid(gid, gid, gid) != 0 ||
        ::setresuid(uid, uid, uid) != 0) {
      ::_exit(1);
    }
    auto say = [&](const std::string& path) {
      (void)!::write(answer[1], path.data(), path.size());
      ::_exit(0);
    };
    for (const std::string& path : readable) {
      if (::access(path.c_str(), R_OK) != 0) say(path);
    }
    for (const std::string& node : AcceleratorDeviceNodes()) {
      if (::access(node.c_str(), R_OK | W_OK) != 0) say(node);
    }
    // Its directory, where a file is replaced by a rename (file_system_view.h).
    for (const std::string& path : writable) {
      std::error_code error;
      const fs::path directory =
          fs::is_directory(path, error) ? fs::path(path) : fs::path(path).parent_path();
      if (::access(directory.c_str(), W_OK | X_OK) != 0) say(path);
    }
    ::_exit(0);
  }
  ::close(answer[1]);
  if (pid < 0) {
    ::close(answer[0]);
    return "(sectl could not ask: cannot fork)";
  }
  std::string path;
  std::array<char, 4096> buffer{};
  ssize_t got = 0;
  while ((got = ::read(answer[0], buffer.data(), buffer.size())) > 0 ||
         (got < 0 && errno == EINTR)) {
    if (got > 0) path.append(buffer.data(), static_cast<size_t>(got));
  }
  ::close(answer[0]);
  int status = 0;
  if (ReapKilled(pid, std::chrono::seconds(5), &status) != Reaping::kReaped || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    ::kill(pid, SIGKILL);
    return "(sectl could not switch a trial process to that user)";
  }
  return path;
}

Expected<void> Failed(std::string_view what) {
  return Fail(ErrorCode::kInternal, fmt::format("{}: {}", what, strerrorname_np(errno)));
}

}  // namespace

PluginIdentity ChoosePluginIdentity(const std::vector<std::string>& readable,
                                    const std::vector<std::string>& writable) {
  PluginIdentity identity;
  if (::geteuid() != 0) return identity;
  // One answer per set of files: a run asks for every check's process.
  static std::mutex lock;
  static std::map<std::pair<std::vector<std::string>, std::vector<std::string>>, PluginIdentity>
      chosen;
  const std::lock_guard<std::mutex> held(lock);
  const auto key = std::make_pair(readable, writable);
  if (auto found = chosen.find(key); found != chosen.end()) return found->second;
  const auto [uid, gid] = Nobody();
  identity.user_name = "nobody";
  identity.uid = uid;
  identity.gid = gid;
  const std::string inaccessible = FirstInaccessible(uid, gid, readable, writable);
  if (inaccessible.empty()) {
    identity.switch_user = true;
  } else {
    identity.why_root = fmt::format("nobody cannot reach {}", inaccessible);
  }
  return chosen.emplace(key, identity).first->second;
}

void AddValidationLayerFiles(std::vector<std::string>& readable,
                             std::vector<std::string>& writable) {
  if (const char* wrapped = std::getenv("SECTL_VALIDATE_PLUGIN"); wrapped && *wrapped) {
    readable.emplace_back(fs::absolute(wrapped).string());
  }
  for (const char* name : {"SECTL_VALIDATE_REPORT", "SECTL_VALIDATE_TRACE"}) {
    if (const char* path = std::getenv(name); path && *path) {
      writable.emplace_back(fs::absolute(path).string());
    }
  }
}

Expected<void> AssumePluginIdentity(const PluginIdentity& identity) {
  if (identity.switch_user) {
    // The bounding set first: emptying it takes CAP_SETPCAP, which the
    // switch of user ends.
    for (int capability = 0; capability <= CAP_LAST_CAP + 32; ++capability) {
      if (::prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0 && errno != EINVAL) {
        return Failed(
            fmt::format("cannot empty the capability bounding set (capability {})", capability));
      }
    }
    if (::setgroups(0, nullptr) != 0) return Failed("cannot drop the supplementary groups");
    if (::setresgid(identity.gid, identity.gid, identity.gid) != 0) {
      return Failed(fmt::format("cannot switch to group {}", identity.gid));
    }
    if (::setresuid(identity.uid, identity.uid, identity.uid) != 0) {
      return Failed(fmt::format("cannot switch to user {}", identity.uid));
    }
    // Counted per user: only meaningful for a user that is not sectl's.
    const rlimit processes{kMaxPluginProcesses, kMaxPluginProcesses};
    if (::setrlimit(RLIMIT_NPROC, &processes) != 0) {
      return Failed("cannot limit the plugin's processes (RLIMIT_NPROC)");
    }
  }
  rlimit descriptors{};
  if (::getrlimit(RLIMIT_NOFILE, &descriptors) == 0 &&
      descriptors.rlim_max > kMaxPluginDescriptors) {
    descriptors.rlim_max = kMaxPluginDescriptors;
    descriptors.rlim_cur = std::min<rlim_t>(descriptors.rlim_cur, kMaxPluginDescriptors);
    if (::setrlimit(RLIMIT_NOFILE, &descriptors) != 0) {
      return Failed("cannot limit the plugin's open descriptors (RLIMIT_NOFILE)");
    }
  }
  return {};
}

Expected<ScratchDirectory> ScratchDirectory::Create(const PluginIdentity& identity) {
  // /tmp first: every user can reach it, whatever sectl's TMPDIR is. Inside
  // a plugin's process (a check's own probe processes) /tmp is read-only,
  // and TMPDIR is that process's scratch directory.
  std::vector<std::string> bases{"/tmp"};
  if (const char* tmpdir = std::getenv("TMPDIR"); tmpdir != nullptr && *tmpdir != '\0') {
    bases.emplace_back(tmpdir);
  }
  std::string pattern;
  int error = 0;
  for (const std::string& base : bases) {
    pattern = base + "/sectl-scratch-XXXXXX";
    if (::mkdtemp(pattern.data()) != nullptr) break;
    error = errno;
    pattern.clear();
  }
  if (pattern.empty()) {
    return Fail(ErrorCode::kInternal, fmt::format("cannot create a scratch directory in {}: {}",
                                                  bases.back(), strerrorname_np(error)));
  }
  ScratchDirectory scratch(pattern);
  if (identity.switch_user && ::chown(pattern.c_str(), identity.uid, identity.gid) != 0) {
    return Fail(ErrorCode::kInternal, fmt::format("cannot give the scratch directory to {}: {}",
                                                  identity.user_name, strerrorname_np(errno)));
  }
  return scratch;
}

ScratchDirectory::ScratchDirectory(ScratchDirectory&& other) noexcept
    : path_(std::exchange(other.path_, std::string())) {}

ScratchDirectory& ScratchDirectory::operator=(ScratchDirectory&& other) noexcept {
  if (this != &other) {
    ScratchDirectory gone(std::move(*this));
    path_ = std::exchange(other.path_, std::string());
  }
  return *this;
}

ScratchDirectory::~ScratchDirectory() {
  if (path_.empty()) return;
  // remove_all does not follow symbolic links the plugin left.
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

Expected<void> EnterScratch(const std::string& path) {
  if (::chdir(path.c_str()) != 0) return Failed("cannot enter the scratch directory");
  if (::setenv("TMPDIR", path.c_str(), 1) != 0) return Failed("cannot set TMPDIR");
  return {};
}

std::string DescribePluginIdentity(const PluginIdentity& identity) {
  if (identity.switch_user) {
    return fmt::format(
        "user: {} (uid {}), not root: sectl runs as root; at most {} processes, {} descriptors "
        "each",
        identity.user_name, identity.uid, kMaxPluginProcesses, kMaxPluginDescriptors);
  }
  if (!identity.why_root.empty()) {
    return fmt::format("user: root without capabilities ({}); at most {} descriptors each",
                       identity.why_root, kMaxPluginDescriptors);
  }
  return fmt::format("user: sectl's own (uid {}); at most {} descriptors each", ::geteuid(),
                     kMaxPluginDescriptors);
}

}  // namespace sectl::isolation
