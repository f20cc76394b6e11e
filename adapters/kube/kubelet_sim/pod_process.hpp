#pragma once
// A pod's container run as a local process, for `gantry kubelet-sim --exec`: a rehearsal of the
// real thing, not a simulation of it. The container's command and args are executed here (the
// image is ignored: the command must exist on this machine's PATH), in a process group of its
// own, with kubelet-sim's environment overlaid with the container's; its standard output and
// standard error go to one pipe, kept as the container's log.
//
// Exit codes as a container runtime reports them: the process's own, or 128 + the signal that
// ended it (143 for SIGTERM, 137 for SIGKILL).
//
// Threads: one watcher thread per process reads the pipe to its end, reaps the process and then
// calls `on_exit` once, on that thread. signal() and output() may be called from any thread.
// The destructor kills the process group (SIGKILL) if it still runs and joins the watcher,
// without calling on_exit then.

#include <sys/types.h>

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace gantry::kube {

struct ProcessSpec {
  std::vector<std::string> argv;           // command + args; argv[0] is looked up on PATH
  std::map<std::string, std::string> env;  // over kubelet-sim's own environment
  std::string working_dir;                 // empty: kubelet-sim's
};

struct ProcessEnd {
  int exit_code = 0;   // the process's, or 128 + signal
  int signal = 0;      // the signal that ended it, 0 when it exited
  std::string output;  // stdout and stderr as written, the last kMaxLogBytes
};

// The log kept per container (the head is dropped beyond it).
inline constexpr size_t kMaxLogBytes = 1 << 20;

class PodProcess {
 public:
  // Starts the process. Throws std::runtime_error naming argv[0] and the reason when it cannot
  // be started (no such executable, a working directory that does not exist): a real runtime's
  // StartError.
  PodProcess(const ProcessSpec& spec, std::function<void(ProcessEnd)> on_exit);
  ~PodProcess();
  PodProcess(const PodProcess&) = delete;
  PodProcess& operator=(const PodProcess&) = delete;

  // Sends `sig` to the process group (nothing once it has ended).
  void signal(int sig);
  // The log so far.
  std::string output() const;
  pid_t pid() const { return pid_; }

 private:
  void watch(int fd);

  pid_t pid_ = -1;
  mutable std::mutex mutex_;
  std::string output_;
  bool ended_ = false;
  bool quiet_ = false;  // the destructor runs: no on_exit
  std::function<void(ProcessEnd)> on_exit_;
  std::thread watcher_;
};

// The tail of a log as a terminated container's message under terminationMessagePolicy
// FallbackToLogsOnError (the kubelet's kuberuntime: the last 80 lines or 2048 bytes, whichever
// is smaller).
std::string log_tail_message(const std::string& log);

}  // namespace gantry::kube
