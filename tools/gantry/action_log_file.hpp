#pragma once
// The file of `--actions FILE` (engine/policy/action_log.hpp's lines), shared by the commands
// that write one: `gantry simulate` writes it whole once the run is over (replaced
// atomically); `gantry serve` writes each line as it happens (ActionLogFile), so a server that
// is stopped, or killed, leaves every line it wrote. Both refuse the same paths
// (check_action_log_path()): Gantry replaces an action log or an empty file, nothing else.
//
// Thread-safety: ActionLogFile is used from one thread (serve's event loop).

#include <cstdio>
#include <string>

namespace gantry::cli {

// Throws GantryError naming --actions when `path` exists and is not a regular file, or is a
// file whose first line is not an action log's (it starts `{"t":`); an empty file or no file
// is fine.
void check_action_log_path(const std::string& path);

class ActionLogFile {
 public:
  // Checks `path` (check_action_log_path()) and opens it, emptied. Throws GantryError naming
  // --actions and the path when it cannot be opened for writing (no such folder, no right).
  explicit ActionLogFile(std::string path);
  ~ActionLogFile();
  ActionLogFile(const ActionLogFile&) = delete;
  ActionLogFile& operator=(const ActionLogFile&) = delete;

  // Appends `line` and a newline and flushes them to the file. The first write that fails (a
  // full disk) is reported on standard error, naming the file and why, and the log stops
  // there: what it lost is said, the program goes on.
  void write_line(const std::string& line);
  // False once a write failed.
  bool ok() const { return file_ != nullptr; }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
};

}  // namespace gantry::cli
