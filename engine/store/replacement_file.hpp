#pragma once
// ReplacementFile: a file that appears under its final name complete or not at all (issue 8:
// `gantry simulate` killed part-way left a results.db with a tenth of the jobs, which
// `gantry compare` then read as if it were whole).
//
//   ReplacementFile out("gantry-out/q/results.db");
//   write everything to out.temp_path();   // "gantry-out/q/results.db.partial-<pid>"
//   out.commit();                          // fsync, rename over the target, fsync the folder
//
// The temporary lives in the target's folder because rename(2) is atomic only within one file
// system; it carries the pid so that two processes writing the same target never share one.
// Readers of the target see the old file or the new one, never a mixture. A process killed
// before commit() leaves only its temporary, which no reader looks at (and which a later
// ReplacementFile of the same pid replaces).
//
// What may be replaced is the caller's decision, made before commit() (database_kind.hpp for
// databases, first_line_matches() for text): this class only makes the replacement atomic.
//
// Ownership: movable, not copyable. Destroyed without commit(), it removes the temporary
// (and SQLite sidecars of it). Errors: FileError naming the target.

#include <string>

namespace gantry {

class ReplacementFile {
 public:
  // Chooses the temporary beside `target` and removes a stale one of that name.
  explicit ReplacementFile(std::string target);
  ~ReplacementFile();
  ReplacementFile(ReplacementFile&& other) noexcept;
  ReplacementFile& operator=(ReplacementFile&&) = delete;
  ReplacementFile(const ReplacementFile&) = delete;
  ReplacementFile& operator=(const ReplacementFile&) = delete;

  const std::string& target() const { return target_; }
  const std::string& temp_path() const { return temp_; }

  // The temporary must be closed by then. Flushes it to disk, renames it over the target, and
  // flushes the folder, so that after a power loss the target is the old file or the new one.
  void commit();
  bool committed() const { return committed_; }

 private:
  void discard() noexcept;

  std::string target_;
  std::string temp_;
  bool committed_ = false;
};

// Writes `text` to `path` through a ReplacementFile. Throws FileError naming `path`.
void write_file_atomically(const std::string& path, const std::string& text);

// True when `path` does not exist or its first line equals the first line of `text`: a text
// file Gantry wrote there before (a CSV header, an SVG's opening tag), which it may replace.
bool first_line_matches(const std::string& path, const std::string& text);

}  // namespace gantry
