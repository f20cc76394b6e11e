#include "adapters/kube/kubelet_sim/pod_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace gantry::kube {

PodProcess::PodProcess(const ProcessSpec& spec, std::function<void(ProcessEnd)> on_exit)
    : on_exit_(std::move(on_exit)) {
  if (spec.argv.empty() || spec.argv[0].empty())
    throw std::runtime_error("no command to run (the container names no command)");
  // The environment: ours, then the container's over it.
  std::map<std::string, std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string kv = *e;
    const size_t eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& [k, v] : spec.env) env[k] = v;
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = spec.argv;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
  if (!spec.working_dir.empty())
    posix_spawn_file_actions_addchdir_np(&actions, spec.working_dir.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // A group of its own, so a signal reaches `sh -c`'s children too; default signal handling
  // and no blocked signals (kubelet-sim blocks SIGTERM for its sigwait).
  sigset_t none;
  sigemptyset(&none);
  sigset_t all;
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  const int rc = ::posix_spawnp(&pid_, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(pipe_fds[1]);
  if (rc != 0) {
    ::close(pipe_fds[0]);
    throw std::runtime_error("exec: \"" + spec.argv[0] + "\": " + std::strerror(rc));
  }
  watcher_ = std::thread([this, fd = pipe_fds[0]] { watch(fd); });
}

PodProcess::~PodProcess() {
  {
    std::lock_guard lock(mutex_);
    quiet_ = true;
    if (!ended_) ::kill(-pid_, SIGKILL);
  }
  if (watcher_.joinable()) watcher_.join();
}

void PodProcess::signal(int sig) {
  std::lock_guard lock(mutex_);
  if (!ended_) ::kill(-pid_, sig);
}

std::string PodProcess::output() const {
  std::lock_guard lock(mutex_);
  return output_;
}

void PodProcess::watch(int fd) {
  char buf[4096];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    std::lock_guard lock(mutex_);
    output_.append(buf, static_cast<size_t>(n));
    if (output_.size() > kMaxLogBytes) output_.erase(0, output_.size() - kMaxLogBytes);
  }
  ::close(fd);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  ProcessEnd end;
  if (WIFSIGNALED(status)) {
    end.signal = WTERMSIG(status);
    end.exit_code = 128 + end.signal;
  } else {
    end.exit_code = WEXITSTATUS(status);
  }
  std::function<void(ProcessEnd)> callback;
  {
    std::lock_guard lock(mutex_);
    ended_ = true;
    end.output = output_;
    if (!quiet_) callback = on_exit_;
  }
  if (callback) callback(std::move(end));
}

std::string log_tail_message(const std::string& log) {
  constexpr size_t kMaxBytes = 2048;
  constexpr int kMaxLines = 80;
  size_t start = log.size() > kMaxBytes ? log.size() - kMaxBytes : 0;
  // The last 80 lines: count newlines back from the end (a final newline ends the last line).
  int lines = 0;
  for (size_t i = log.size(); i > start; --i) {
    if (log[i - 1] == '\n' && i != log.size() && ++lines == kMaxLines) {
      start = i;
      break;
    }
  }
  return log.substr(start);
}

}  // namespace gantry::kube
