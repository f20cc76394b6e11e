#pragma once
// A sweep's results database: one SQLite file with a row per finished run, written as each run
// finishes, so that a sweep killed at any moment keeps every run it finished and `--resume`
// runs only the others.
//
//   meta(key, value)      name; the sweep file's and the base's text (what resuming checks);
//                         axes and metrics as JSON
//   runs(point, seed_index, seed, <one TEXT column per axis>, fingerprint,
//        <one REAL column per metric, NULL when the run has no value>)
//        primary key (point, seed_index)
//
//   SELECT placement, avg("wait.p95") FROM runs GROUP BY placement;
//
// Journal: WAL with synchronous=NORMAL, so a row committed before a kill -9 is there after it.
// The file is a "Gantry sweep database" (engine/store/database_kind.hpp): Gantry replaces or
// resumes only its own sweep databases, never another file at that path.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/store/database.hpp"
#include "engine/store/database_kind.hpp"
#include "sim/sweep/sweep_run.hpp"
#include "sim/sweep/sweep_spec.hpp"

namespace gantry {

extern const DatabaseKind kSweepDatabase;

class SweepStore {
 public:
  // Opens the database at `path` for `sweep`, whose file holds `sweep_text` and whose base
  // holds `base_text`.
  //  - resume false: a sweep database already at `path` is replaced by an empty one.
  //  - resume true: an existing database keeps its runs, and must be this sweep's (same sweep
  //    text and base text; otherwise GantryError saying which changed); none starts empty.
  // Throws StoreError for a file at `path` that is not a Gantry sweep database (left alone).
  SweepStore(const std::string& path, const SweepSpec& sweep, const std::string& sweep_text,
             const std::string& base_text, bool resume);

  // Every stored run, ordered by point, then seed.
  std::vector<SweepRunResult> runs();

  // Stores one finished run, in a transaction of its own.
  void record(const SweepRunResult& run);

  // Called after each record()'s commit with the number of commits so far (the crash tests'
  // hook, as SqliteRunStore::set_commit_hook).
  using CommitHook = std::function<void(uint64_t commits)>;
  void set_commit_hook(CommitHook hook) { commit_hook_ = std::move(hook); }

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  const SweepSpec* sweep_;
  Database db_;
  CommitHook commit_hook_;
  uint64_t commits_ = 0;
};

}  // namespace gantry
