#pragma once
// The files a sweep needs, as text, so that another machine can run it: the sweep file, its
// base Scenario and the data files the base names (`file:` fields). `gantry sweep --on
// kubernetes` collects them (collect_sweep_documents), `gantry serve` stores them, and each
// worker writes them into a private folder of its own (SweepFolder) and loads the sweep from
// there exactly as a local `gantry sweep` loads it from the user's folder.
//
// Paths: each document is keyed by a relative path (no "..", no ".", no empty segment, no
// leading '/'), relative to `root`, the folder of the user's machine that holds them all.
// `root` is only ever shown, never opened: a report's "base" and an error's file name read
// root/key, as the user's own `gantry sweep` would print them.
//
// Errors: a bad key or a missing sweep document is an InputError naming the key; files that
// cannot be read or written are FileError / GantryError naming the path.

#include <filesystem>
#include <map>
#include <string>

namespace gantry {

struct SweepDocuments {
  std::string root;   // shown in place of the private folder ("" = the current folder)
  std::string sweep;  // the key of the kind: Sweep document
  std::map<std::string, std::string> files;  // key -> text
};

// Limits of what a sweep may bring along (a data file is a trace of some MB at most).
inline constexpr size_t kMaxSweepDocuments = 64;

// Throws InputError naming `key` (as field "documents") when it is not a plain relative path.
void check_document_key(const std::string& key);
// Checks every key, the count and that `sweep` is one of them. Throws InputError.
void check_sweep_documents(const SweepDocuments& docs);

// Reads the sweep at `sweep_path`, its base and every data file the base names (resolved
// against the base's folder), as `gantry sweep` would; the root is their deepest common folder,
// written as the user wrote the paths (relative stays relative). Throws InputError (a sweep
// that does not load) or FileError.
SweepDocuments collect_sweep_documents(const std::string& sweep_path);
// The same for a sweep written by a program (`gantry plan --on kubernetes`'s batches): its
// `sweep_text` is taken as the file at `sweep_path`, which need not exist.
SweepDocuments collect_sweep_documents(const std::string& sweep_path,
                                       const std::string& sweep_text);

// A private folder (mkdtemp under the system's temporary folder) holding the documents,
// removed with everything in it when destroyed. Not copyable.
class SweepFolder {
 public:
  // Checks the documents (check_sweep_documents) and writes them. Throws InputError,
  // GantryError (the folder or a file cannot be written).
  explicit SweepFolder(const SweepDocuments& docs);
  ~SweepFolder();
  SweepFolder(const SweepFolder&) = delete;
  SweepFolder& operator=(const SweepFolder&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // The sweep file's path inside the folder (for load_sweep_text's file name).
  std::string sweep_file() const { return (path_ / sweep_).string(); }
  // `text` with the folder's path (and the '/' after it) replaced by the root as shown: what
  // the user would have read had the sweep run in their own folder.
  std::string shown(std::string text) const;

 private:
  std::filesystem::path path_;
  std::string sweep_, root_;
};

}  // namespace gantry
