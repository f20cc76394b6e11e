#pragma once
// The sweep coordinator's tables in the server's database (gantry.db): each distributed sweep
// with its documents, the runs its workers posted and the failures they reported, so that a
// sweep and its runs survive a restart of `gantry serve` (DESIGN.md rule 5).
//
// Schema, on this store's own connection (WAL, as TokenStore's): distributed_sweeps,
// distributed_sweep_documents, distributed_sweep_runs (primary key sweep + run: a run is stored
// once), distributed_sweep_failures. The database's user_version belongs to the runs store
// (workflow/store), so these tables count their migration steps in a table of their own,
// schema_steps(component, step), one row per step applied; steps are append-only.
//
// Not thread-safe: the coordinator calls it under its own mutex. Every write is one
// transaction, committed before the call returns. Throws StoreError.

#include <cstdint>
#include <string>
#include <vector>

#include "engine/store/database.hpp"
#include "sim/sweep/sweep_documents.hpp"
#include "sim/sweep/sweep_wire.hpp"

namespace gantry::web {

struct StoredSweep {
  std::string id;
  int64_t number = 0;  // orders the list; the n of "sw-<n>-..."
  std::string name;    // metadata.name
  SweepDocuments documents;
  size_t shards = 0, runs = 0;  // runs = points × seeds
  int seeds = 1;
  size_t metrics = 0;  // values per run
  std::string state;   // running, done, cancelled
  int64_t created_us = 0, ended_us = 0;
};

struct ShardFailure {
  size_t shard = 0;
  int64_t at_us = 0;
  std::string message;
};

class SweepCoordinatorStore {
 public:
  // Opens (or creates) the database at `db_path` and brings the tables up to date.
  explicit SweepCoordinatorStore(const std::string& db_path);

  void insert_sweep(const StoredSweep& sweep);
  void set_state(const std::string& id, const std::string& state, int64_t ended_us);
  // All of `runs` in one transaction (none of them stored before: the caller checked); each
  // with its sweep's id. T has members `sweep` (the id) and `run` (a PostedRun).
  template <typename T>
  void insert_runs(const std::vector<T>& runs) {
    begin();
    for (const T& r : runs) insert_run(r.sweep, r.run);
    commit();
  }
  void insert_failure(const std::string& id, const ShardFailure& failure);

  // Everything stored, oldest first.
  std::vector<StoredSweep> sweeps();
  std::vector<PostedRun> runs(const std::string& id);  // by run index
  std::vector<ShardFailure> failures(const std::string& id);

 private:
  void begin();
  void insert_run(const std::string& id, const PostedRun& run);
  void commit();  // rolls back and throws when it cannot

  Database db_;
  Statement insert_run_;
};

}  // namespace gantry::web
