#include "sectl_process.h"

#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <utility>

namespace sectl::testing {
namespace {

void ReadBoth(int out_fd, int err_fd, std::string& out, std::string& err) {
  std::array<pollfd, 2> fds{pollfd{out_fd, POLLIN, 0}, pollfd{err_fd, POLLIN, 0}};
  std::array<std::string*, 2> sinks{&out, &err};
  int open = 2;
  std::array<char, 8192> buffer{};
  while (open > 0) {
    if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) return;
    for (size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      ssize_t got = ::read(fds[i].fd, buffer.data(), buffer.size());
      if (got > 0) {
        sinks[i]->append(buffer.data(), static_cast<size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        fds[i].fd = -1;
        --open;
      }
    }
  }
}

// Runs `words` (no shell) in `directory` if given, collecting its output.
CommandResult Run(std::vector<std::string> words, const std::string& directory) {
  std::vector<char*> argv;
  argv.reserve(words.size() + 1);
  for (auto& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);

  int out_pipe[2];
  int err_pipe[2];
  if (::pipe(out_pipe) != 0 || ::pipe(err_pipe) != 0) return {};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, out_pipe[0]);
  posix_spawn_file_actions_addclose(&actions, err_pipe[0]);
  if (!directory.empty()) posix_spawn_file_actions_addchdir_np(&actions, directory.c_str());
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  CommandResult result;
  if (spawned == 0) ReadBoth(out_pipe[0], err_pipe[0], result.out, result.err);
  ::close(out_pipe[0]);
  ::close(err_pipe[0]);
  if (spawned != 0) return result;
  int status = 0;
  ::waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace

CommandResult RunSectl(const std::vector<std::string>& arguments, const std::string& directory) {
  std::vector<std::string> words{SECTL_BINARY};
  words.insert(words.end(), arguments.begin(), arguments.end());
  return Run(std::move(words), directory);
}

CommandResult RunCommand(const std::vector<std::string>& argv) {
  if (argv.empty()) return {};
  return Run(argv, {});
}

std::string ReferencePlugin(const std::string& name) {
  return std::string(SECTL_PLUGIN_DIR) + "/" + name + ".so";
}

std::string FixturePlugin(const std::string& name) {
  return std::string(SECTL_FIXTURE_DIR) + "/" + name + ".so";
}

}  // namespace sectl::testing
