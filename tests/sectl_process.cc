#include "sectl_process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <thread>
#include <utility>

extern char** environ;  // NOLINT: POSIX declares it nowhere in C++

namespace sectl::testing {
namespace {

using Clock = std::chrono::steady_clock;

// A descriptor, closed when it goes.
class Descriptor {
 public:
  Descriptor() = default;
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() { Close(); }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  Descriptor(Descriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Descriptor& operator=(Descriptor&& other) noexcept {
    if (this != &other) {
      Close();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  int get() const { return fd_; }
  void Close() {
    if (fd_ >= 0) ::close(std::exchange(fd_, -1));
  }

 private:
  int fd_ = -1;
};

struct Pipe {
  Descriptor read;
  Descriptor write;
};

// Close-on-exec at both ends: the child's stdout and stderr are dup2()
// copies, so no other process keeps a write end open and reading ends when
// the program and what it started have closed theirs.
std::optional<Pipe> MakePipe() {
  std::array<int, 2> ends{-1, -1};
  if (::pipe2(ends.data(), O_CLOEXEC) != 0) return std::nullopt;
  return Pipe{Descriptor(ends[0]), Descriptor(ends[1])};
}

// Reads `out` and `err` to their ends, or until `deadline`; false when the
// deadline came first.
bool ReadUntilClosed(int out_fd, int err_fd, std::string& out, std::string& err,
                     std::optional<Clock::time_point> deadline) {
  std::array<pollfd, 2> fds{pollfd{out_fd, POLLIN, 0}, pollfd{err_fd, POLLIN, 0}};
  std::array<std::string*, 2> sinks{&out, &err};
  std::array<char, 8192> buffer{};
  for (int open = 2; open > 0;) {
    int timeout_ms = -1;
    if (deadline) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now()).count();
      if (left <= 0) return false;
      timeout_ms = static_cast<int>(left);
    }
    if (::poll(fds.data(), fds.size(), timeout_ms) < 0 && errno != EINTR) return true;
    for (size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t got = ::read(fds[i].fd, buffer.data(), buffer.size());
      if (got > 0) {
        sinks[i]->append(buffer.data(), static_cast<size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        fds[i].fd = -1;
        --open;
      }
    }
  }
  return true;
}

// In the forked child: only async-signal-safe calls (and before_exec) until
// exec. A failure to start writes errno to `failure` and exits.
[[noreturn]] void StartChild(const RunOptions& options, const Pipe& out, const Pipe& err,
                             int failure, char* const* argv, char* const* envp) {
  if (options.own_process_group) ::setpgid(0, 0);
  if (::dup2(out.write.get(), STDOUT_FILENO) < 0 || ::dup2(err.write.get(), STDERR_FILENO) < 0 ||
      (!options.directory.empty() && ::chdir(options.directory.c_str()) != 0)) {
    const int error = errno;
    (void)!::write(failure, &error, sizeof error);
    ::_exit(127);
  }
  if (options.before_exec) options.before_exec();
  ::execvpe(argv[0], argv, envp);
  const int error = errno;
  (void)!::write(failure, &error, sizeof error);
  ::_exit(127);
}

}  // namespace

CommandResult Run(const std::vector<std::string>& argv, const RunOptions& options) {
  CommandResult result;
  if (argv.empty()) return result;
  // Everything the child needs is built here: after fork() in a process
  // that may have threads, the child must not allocate.
  std::vector<std::string> words = argv;
  std::vector<char*> word_pointers;
  word_pointers.reserve(words.size() + 1);
  for (auto& word : words) word_pointers.push_back(word.data());
  word_pointers.push_back(nullptr);
  std::vector<std::string> environment;
  for (char** variable = environ; *variable != nullptr; ++variable) {
    environment.emplace_back(*variable);
  }
  environment.insert(environment.end(), options.added_environment.begin(),
                     options.added_environment.end());
  std::vector<char*> environment_pointers;
  environment_pointers.reserve(environment.size() + 1);
  for (auto& variable : environment) environment_pointers.push_back(variable.data());
  environment_pointers.push_back(nullptr);

  std::optional<Pipe> out = MakePipe();
  std::optional<Pipe> err = MakePipe();
  // Written by the child only when it could not exec; closed by exec.
  std::optional<Pipe> failure = MakePipe();
  if (!out || !err || !failure) return result;
  const pid_t pid = ::fork();
  if (pid == 0) {
    StartChild(options, *out, *err, failure->write.get(), word_pointers.data(),
               environment_pointers.data());
  }
  out->write.Close();
  err->write.Close();
  failure->write.Close();
  if (pid < 0) return result;
  // Also here, so that the group exists before any signal to it is sent.
  if (options.own_process_group) ::setpgid(pid, pid);

  std::optional<Clock::time_point> deadline;
  if (options.deadline) deadline = Clock::now() + *options.deadline;
  if (!ReadUntilClosed(out->read.get(), err->read.get(), result.out, result.err, deadline)) {
    result.timed_out = true;
    // A stopped process dies of SIGKILL too, but continuing it first lets a
    // stopped group's members be reaped without waiting on the scheduler.
    const pid_t target = options.own_process_group ? -pid : pid;
    ::kill(target, SIGCONT);
    ::kill(target, SIGKILL);
  }
  out->read.Close();
  err->read.Close();
  int status = 0;
  rusage usage{};
  ::wait4(pid, &status, 0, &usage);
  int start_error = 0;
  if (::read(failure->read.get(), &start_error, sizeof start_error) ==
      static_cast<ssize_t>(sizeof start_error)) {
    return result;  // never ran: exit_code stays -1
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.term_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  result.peak_resident_bytes = static_cast<uint64_t>(usage.ru_maxrss) * 1024;  // KiB
  return result;
}

CommandResult RunSectl(const std::vector<std::string>& arguments, const RunOptions& options) {
  std::vector<std::string> words{SECTL_BINARY};
  words.insert(words.end(), arguments.begin(), arguments.end());
  return Run(words, options);
}

CommandResult RunSectl(const std::vector<std::string>& arguments, const std::string& directory) {
  return RunSectl(arguments, RunOptions{.directory = directory});
}

CommandResult RunWithColumns(const std::vector<std::string>& arguments,
                             const std::string& columns) {
  RunOptions options;
  options.added_environment = {"COLUMNS=" + columns, "NO_COLOR="};
  return RunSectl(arguments, options);
}

std::vector<std::string> LinesOf(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  return lines;
}

CommandResult RunCommand(const std::vector<std::string>& argv) { return Run(argv, {}); }

std::string ReferencePlugin(const std::string& name) {
  return std::string(SECTL_PLUGIN_DIR) + "/" + name + ".so";
}

std::string FixturePlugin(const std::string& name) {
  return std::string(SECTL_FIXTURE_DIR) + "/" + name + ".so";
}

TemporaryDirectory::TemporaryDirectory(const std::string& prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "XXXXXX")).string();
  if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
}

TemporaryDirectory::~TemporaryDirectory() {
  std::error_code ignored;
  if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
}

std::vector<pid_t> LiveProcessesNamed(const std::string& name) {
  std::vector<pid_t> found;
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ignored)) {
    const std::string pid_text = entry.path().filename().string();
    if (pid_text.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    const std::string text((std::istreambuf_iterator<char>(stat)), {});
    const auto open = text.find('(');
    const auto close = text.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close + 2 >= text.size()) {
      continue;
    }
    if (text.substr(open + 1, close - open - 1) != name || text[close + 2] == 'Z') continue;
    found.push_back(static_cast<pid_t>(std::stol(pid_text)));
  }
  return found;
}

bool NoProcessNamedRemains(const std::string& name, std::chrono::milliseconds patience) {
  const auto deadline = std::chrono::steady_clock::now() + patience;
  while (!LiveProcessesNamed(name).empty()) {
    if (std::chrono::steady_clock::now() >= deadline) {
      for (const pid_t pid : LiveProcessesNamed(name)) ::kill(pid, SIGKILL);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

}  // namespace sectl::testing
