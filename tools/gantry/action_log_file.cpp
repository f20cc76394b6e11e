#include "tools/gantry/action_log_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "engine/core/errors.hpp"

namespace gantry::cli {

void check_action_log_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) return;
  if (!fs::is_regular_file(path, ec))
    throw GantryError(fmt::format("--actions: '{}' exists and is not a regular file", path));
  std::ifstream in(path);
  std::string first;
  std::getline(in, first);
  // Every line of an action log starts so (action_log.hpp); anything else is the user's.
  if (!first.empty() && first.rfind(R"({"t":)", 0) != 0)
    throw GantryError(fmt::format(
        "--actions: '{}' exists and is not an action log; Gantry does not overwrite it", path));
}

ActionLogFile::ActionLogFile(std::string path) : path_(std::move(path)) {
  check_action_log_path(path_);
  file_ = std::fopen(path_.c_str(), "w");
  if (file_ == nullptr)
    throw GantryError(fmt::format("--actions: cannot write '{}': {}", path_, std::strerror(errno)));
}

ActionLogFile::~ActionLogFile() {
  if (file_ != nullptr) std::fclose(file_);
}

void ActionLogFile::write_line(const std::string& line) {
  if (file_ == nullptr) return;
  errno = 0;
  const bool written = std::fputs(line.c_str(), file_) >= 0 && std::fputc('\n', file_) != EOF &&
                       std::fflush(file_) == 0;
  if (written) return;
  const int error = errno;
  std::fclose(file_);
  file_ = nullptr;
  fmt::print(stderr, "error: --actions: writing '{}' failed: {}; the action log stops here\n",
             path_, error != 0 ? std::strerror(error) : "unknown error");
}

}  // namespace gantry::cli
