#pragma once
// A real `gantry serve` child process for the end-to-end tests: started with its standard
// output on a pipe, so the test reads its first line ("gantry serve: http://127.0.0.1:PORT ...")
// to learn the port it chose (--listen 127.0.0.1:0) and knows it is ready — no sleeps, no
// polling. Signals, and waiting for its end, are the test's to send.

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gantry::testing {

class ServeProcess {
 public:
  // Starts `program <subcommand> <args>` with stderr to `err_file`. Blocks until it printed
  // its first line: for `serve`, its URL and token lines (or it exited: then url() is empty
  // and wait() tells why); for another subcommand, first_line() holds it.
  // `env`: NAME=value entries added to its environment (gantry-faulty's faults).
  ServeProcess(const std::string& program, const std::vector<std::string>& args,
               const std::string& err_file, const std::string& subcommand = "serve",
               std::vector<std::string> env = {}) {
    // Everything the child needs is built before fork(): the child of a threaded process may
    // only make async-signal-safe calls, and an allocation there deadlocked when another thread
    // held the allocator's lock at the fork (seen under ASan in CI-like runs).
    std::vector<std::string> all{program, subcommand};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    // `env` first: getenv() returns the first entry of a name, so these override the parent's.
    std::vector<char*> envp;
    for (std::string& e : env) envp.push_back(e.data());
    for (char** e = environ; *e != nullptr; ++e) envp.push_back(*e);
    envp.push_back(nullptr);
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe");
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(fds[1], 1);
      const int err = ::open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(err, 2);
      const int null = ::open("/dev/null", O_RDONLY);
      ::dup2(null, 0);
      ::execve(program.c_str(), argv.data(), envp.data());
      ::_exit(127);
    }
    ::close(fds[1]);
    out_ = ::fdopen(fds[0], "r");
    const std::string first = line();
    first_line_ = first;
    const std::string prefix = "gantry serve: ";
    if (first.rfind(prefix, 0) == 0) {
      url_ = first.substr(prefix.size(), first.find(' ', prefix.size()) - prefix.size());
      token_line_ = line();
    }
  }
  ~ServeProcess() {
    if (pid_ > 0 && !waited_) {
      ::kill(pid_, SIGKILL);
      wait();
    }
    if (out_ != nullptr) std::fclose(out_);
  }
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  const std::string& url() const { return url_; }
  const std::string& first_line() const { return first_line_; }
  const std::string& token_line() const { return token_line_; }
  pid_t pid() const { return pid_; }
  void signal(int sig) const { ::kill(pid_, sig); }
  // Waits for the process to end; returns the wait status.
  int wait() {
    if (!waited_) {
      ::waitpid(pid_, &status_, 0);
      waited_ = true;
    }
    return status_;
  }
  // The next line of its standard output ("" at end of file).
  std::string line() {
    std::string s;
    for (int c; (c = std::fgetc(out_)) != EOF && c != '\n';) s += static_cast<char>(c);
    return s;
  }

 private:
  pid_t pid_ = -1;
  std::FILE* out_ = nullptr;
  std::string url_, token_line_, first_line_;
  bool waited_ = false;
  int status_ = 0;
};

inline std::string read_token(const std::string& file) {
  std::ifstream in(file);
  std::string token;
  std::getline(in, token);
  return token;
}

}  // namespace gantry::testing
