#include "engine/store/replacement_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <utility>

#include "engine/core/errors.hpp"

namespace gantry {

namespace {

// fsync(2) of a file or folder by path; `what` names it in the error.
void sync_path(const std::string& path, const std::string& what, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0)
    throw FileError(what + ": cannot open '" + path + "' to flush it: " + std::strerror(errno));
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0)
    throw FileError(what + ": cannot flush '" + path + "' to disk: " + std::strerror(err));
}

}  // namespace

ReplacementFile::ReplacementFile(std::string target)
    : target_(std::move(target)), temp_(target_ + ".partial-" + std::to_string(::getpid())) {
  discard();  // a temporary of a previous process that had our pid and was killed
}

ReplacementFile::~ReplacementFile() {
  if (!committed_) discard();
}

ReplacementFile::ReplacementFile(ReplacementFile&& other) noexcept
    : target_(std::move(other.target_)),
      temp_(std::move(other.temp_)),
      committed_(std::exchange(other.committed_, true)) {}

void ReplacementFile::discard() noexcept {
  if (temp_.empty()) return;
  std::error_code ec;
  for (const char* suffix : {"", "-journal", "-wal", "-shm"})
    std::filesystem::remove(temp_ + suffix, ec);  // nothing to do about a failure here
}

void ReplacementFile::commit() {
  sync_path(temp_, target_, O_RDONLY);
  if (std::rename(temp_.c_str(), target_.c_str()) != 0)
    throw FileError(target_ + ": cannot move '" + temp_ + "' into place: " + std::strerror(errno));
  committed_ = true;
  const std::filesystem::path parent = std::filesystem::path(target_).parent_path();
  sync_path(parent.empty() ? "." : parent.string(), target_, O_RDONLY | O_DIRECTORY);
}

void write_file_atomically(const std::string& path, const std::string& text) {
  ReplacementFile file(path);
  {
    std::ofstream out(file.temp_path(), std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) throw FileError(path + ": cannot write '" + file.temp_path() + "'");
  }
  file.commit();
}

bool first_line_matches(const std::string& path, const std::string& text) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) && !ec) return true;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  if (std::filesystem::file_size(path, ec) == 0 && !ec) return true;  // nothing to lose
  std::ifstream in(path, std::ios::binary);
  std::string line;
  if (!std::getline(in, line)) return false;
  return line == text.substr(0, text.find('\n'));
}

}  // namespace gantry
