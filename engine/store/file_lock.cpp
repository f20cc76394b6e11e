#include "engine/store/file_lock.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "engine/store/store_error.hpp"

namespace gantry {

namespace {

// The holder's pid as written in the side file, or "" if unreadable.
std::string read_holder(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return {};
  std::string out(buf, static_cast<size_t>(n));
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

}  // namespace

FileLock FileLock::acquire(const std::string& database_path) {
  const std::string lock_path = database_path + ".lock";
  // O_CLOEXEC: a child process (none today) must not inherit, and so keep, the lock.
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw StoreError(database_path,
                     "cannot create the lock file '" + lock_path + "': " + std::strerror(errno),
                     StoreError::kGantry);
  }
  FileLock lock(fd);  // closes fd on every path out
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err == EWOULDBLOCK) {
      const std::string pid = read_holder(fd);
      throw StoreError(database_path,
                       "database in use by " + (pid.empty() ? "another process" : "pid " + pid) +
                           " (it holds '" + lock_path +
                           "'); one writer at a time: wait for it to finish or stop it",
                       StoreError::kGantry);
    }
    throw StoreError(database_path, "cannot lock '" + lock_path + "': " + std::strerror(err),
                     StoreError::kGantry);
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  // Best effort: the pid is for the message only; the lock itself is what protects.
  if (::ftruncate(fd, 0) == 0) {
    [[maybe_unused]] const ssize_t n = ::pwrite(fd, pid.data(), pid.size(), 0);
  }
  return lock;
}

FileLock::~FileLock() { release(); }

FileLock::FileLock(FileLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

void FileLock::release() {
  if (fd_ < 0) return;
  ::close(fd_);  // closing the last descriptor of the open file description drops the flock
  fd_ = -1;
}

}  // namespace gantry
