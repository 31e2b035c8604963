#include "isolation/process_limit_group.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

namespace sectl::isolation {
namespace {

// Where this process's pids controller lets sectl create groups, or why
// there is no such place.
struct PidsParent {
  std::string directory;  // empty when there is none
  std::string why_none;
};

std::vector<std::string> WordsOf(const std::string& line) {
  std::istringstream words(line);
  std::vector<std::string> all;
  for (std::string word; words >> word;) all.push_back(word);
  return all;
}

// The mount point of the cgroup hierarchy (fstype "cgroup" with option
// "pids", or "cgroup2") that shows `path_in_hierarchy`, joined with it.
std::string DirectoryOf(const std::string& path_in_hierarchy, bool version2) {
  std::ifstream mounts("/proc/self/mountinfo");
  for (std::string line; std::getline(mounts, line);) {
    const std::vector<std::string> fields = WordsOf(line);
    // ID PARENT MAJOR:MINOR ROOT MOUNT_POINT OPTIONS [TAGS...] - FSTYPE SOURCE SUPER_OPTIONS
    size_t dash = 0;
    while (dash < fields.size() && fields[dash] != "-") ++dash;
    if (dash < 5 || dash + 3 >= fields.size()) continue;
    const std::string& type = fields[dash + 1];
    const std::string& super_options = fields[dash + 3];
    const bool wanted =
        version2
            ? type == "cgroup2"
            : type == "cgroup" && (("," + super_options + ",").find(",pids,") != std::string::npos);
    if (!wanted) continue;
    const std::string& root = fields[3];
    const std::string& mount_point = fields[4];
    // A mount of part of the hierarchy (a container's) shows only paths
    // under its root.
    if (root == "/") return mount_point + (path_in_hierarchy == "/" ? "" : path_in_hierarchy);
    if (path_in_hierarchy.starts_with(root)) {
      return mount_point + path_in_hierarchy.substr(root.size());
    }
  }
  return {};
}

PidsParent FindPidsParent() {
  if (::geteuid() != 0) return {.why_none = "sectl does not run as root"};
  std::ifstream groups("/proc/self/cgroup");
  std::string version2_path;
  for (std::string line; std::getline(groups, line);) {
    // ID:CONTROLLERS:PATH
    const size_t first = line.find(':');
    const size_t second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (controllers.empty() && line.starts_with("0:")) {
      version2_path = path;
      continue;
    }
    if (("," + controllers + ",").find(",pids,") == std::string::npos) continue;
    const std::string directory = DirectoryOf(path, /*version2=*/false);
    if (!directory.empty()) return {.directory = directory};
  }
  if (!version2_path.empty()) {
    const std::string directory = DirectoryOf(version2_path, /*version2=*/true);
    if (!directory.empty()) {
      std::ifstream delegated(directory + "/cgroup.subtree_control");
      std::string controllers((std::istreambuf_iterator<char>(delegated)),
                              std::istreambuf_iterator<char>());
      for (const std::string& controller : WordsOf(controllers)) {
        if (controller == "pids") return {.directory = directory};
      }
      return {.why_none = fmt::format("the pids controller is not delegated to sectl's cgroup {}",
                                      directory)};
    }
  }
  return {.why_none = "no pids cgroup hierarchy is mounted"};
}

// A group's name holds its creator's pid. A group still holding processes
// stays (rmdir refuses it).
void RemoveGroupsOfEndedProcesses(const std::string& directory) {
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("sectl-")) continue;
    const auto creator = static_cast<pid_t>(std::atol(name.c_str() + 6));
    if (creator <= 0 || ::kill(creator, 0) == 0 || errno != ESRCH) continue;
    (void)::rmdir(entry.path().c_str());
  }
}

const PidsParent& ThePidsParent() {
  static const PidsParent parent = [] {
    PidsParent found = FindPidsParent();
    if (!found.directory.empty()) RemoveGroupsOfEndedProcesses(found.directory);
    return found;
  }();
  return parent;
}

bool WriteFile(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  return (::close(fd) == 0) && written;
}

// Whether the group at `path` holds no process now.
bool IsEmpty(const std::string& path) {
  std::ifstream current(path + "/pids.current");
  uint64_t count = 1;
  return static_cast<bool>(current >> count) && count == 0;
}

// Groups emptied by ended plugin processes, kept for the next one: making
// and removing a cgroup costs up to a millisecond on the runner's path (the
// kernel waits out an RCU grace period), checking that one is empty a
// read. Removed when this process ends (a killed one's by the next sectl:
// RemoveGroupsLeftBehind).
class IdleGroups {
 public:
  IdleGroups() = default;
  IdleGroups(const IdleGroups&) = delete;
  IdleGroups& operator=(const IdleGroups&) = delete;
  IdleGroups(IdleGroups&&) = delete;
  IdleGroups& operator=(IdleGroups&&) = delete;
  ~IdleGroups() {
    // A forked child that ran static destructors must not remove its
    // parent's groups.
    if (::getpid() != owner_) return;
    for (const auto& [path, limit] : groups_) (void)::rmdir(path.c_str());
  }

  std::optional<std::string> Take(uint64_t max_processes) {
    const std::lock_guard lock(mutex_);
    // A forked child's copy names its parent's groups, which the parent
    // may hand to another process tree at the same time.
    if (::getpid() != owner_) {
      groups_.clear();
      owner_ = ::getpid();
    }
    while (!groups_.empty()) {
      auto [path, limit] = std::move(groups_.back());
      groups_.pop_back();
      if (limit == max_processes && IsEmpty(path)) return path;
      (void)::rmdir(path.c_str());
    }
    return std::nullopt;
  }

  void Put(std::string path, uint64_t max_processes) {
    const std::lock_guard lock(mutex_);
    if (::getpid() != owner_) return;  // not this process's to keep
    groups_.emplace_back(std::move(path), max_processes);
  }

 private:
  pid_t owner_ = ::getpid();
  std::mutex mutex_;
  std::vector<std::pair<std::string, uint64_t>> groups_;
};

IdleGroups& TheIdleGroups() {
  static IdleGroups groups;
  return groups;
}

}  // namespace

Expected<ProcessLimitGroup> ProcessLimitGroup::Create(uint64_t max_processes) {
  const PidsParent& parent = ThePidsParent();
  if (parent.directory.empty()) return Fail(ErrorCode::kFailedPrecondition, parent.why_none);
  if (std::optional<std::string> idle = TheIdleGroups().Take(max_processes)) {
    return ProcessLimitGroup(std::move(*idle), max_processes);
  }
  static std::atomic<unsigned> groups_made{0};
  const std::string path = fmt::format("{}/sectl-{}-{}", parent.directory, ::getpid(),
                                       groups_made.fetch_add(1, std::memory_order_relaxed));
  if (::mkdir(path.c_str(), 0755) != 0) {
    return Fail(ErrorCode::kFailedPrecondition,
                fmt::format("cannot create a pids cgroup in {}: {}", parent.directory,
                            std::strerror(errno)));
  }
  ProcessLimitGroup group(path, max_processes);
  if (!WriteFile(path + "/pids.max", fmt::format("{}\n", max_processes))) {
    return Fail(ErrorCode::kFailedPrecondition,
                fmt::format("cannot set {}/pids.max: {}", path, std::strerror(errno)));
  }
  return group;
}

std::string ProcessLimitGroup::Describe(uint64_t max_processes) {
  // Tried once for real: a hierarchy mounted read-only shows only then.
  static const std::string description = [max_processes] {
    auto trial = Create(max_processes);
    if (!trial) return fmt::format("no pids cgroup: {}", trial.error().message());
    return fmt::format("at most {} processes and threads per plugin process (a pids cgroup in {})",
                       max_processes, ThePidsParent().directory);
  }();
  return description;
}

void ProcessLimitGroup::RemoveGroupsLeftBehind() {
  const PidsParent& parent = ThePidsParent();
  if (!parent.directory.empty()) RemoveGroupsOfEndedProcesses(parent.directory);
}

ProcessLimitGroup::ProcessLimitGroup(std::string path, uint64_t max_processes)
    : path_(std::move(path)), procs_file_(path_ + "/cgroup.procs"), max_processes_(max_processes) {}

ProcessLimitGroup::ProcessLimitGroup(ProcessLimitGroup&& other) noexcept
    : path_(std::exchange(other.path_, {})),
      procs_file_(std::exchange(other.procs_file_, {})),
      max_processes_(other.max_processes_) {}

ProcessLimitGroup& ProcessLimitGroup::operator=(ProcessLimitGroup&& other) noexcept {
  if (this != &other) {
    ProcessLimitGroup old(std::move(*this));
    path_ = std::exchange(other.path_, {});
    procs_file_ = std::exchange(other.procs_file_, {});
    max_processes_ = other.max_processes_;
  }
  return *this;
}

ProcessLimitGroup::~ProcessLimitGroup() {
  if (path_.empty()) return;
  if (IsEmpty(path_)) {
    TheIdleGroups().Put(std::move(path_), max_processes_);
    return;
  }
  // The group's last processes may still be on their way out (a zombie
  // counts until reaped): a few tries, then it is left behind, empty soon,
  // as the kernel allows.
  for (int attempt = 0; attempt < 20; ++attempt) {
    if (::rmdir(path_.c_str()) == 0 || errno != EBUSY) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

bool ProcessLimitGroup::Join() const noexcept {
  if (procs_file_.empty()) return false;
  // "0" is the writing process, in v1 and v2 alike.
  const int fd = ::open(procs_file_.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool written = ::write(fd, "0", 1) == 1;
  return (::close(fd) == 0) && written;
}

}  // namespace sectl::isolation
