#pragma once
// RunStore on SQLite (DESIGN.md rule 5): pipelines, runs, task instances, attempts and
// scheduler events in one database file, WAL mode (a replay, RunStoreOptions::replay: its
// journal in memory, no fsync; see the constructor).
//
//   pipelines(name TEXT PRIMARY KEY, namespace TEXT, file TEXT, schedule TEXT, timezone TEXT)
//   runs(id INTEGER PRIMARY KEY, pipeline TEXT, logical_us INTEGER, trigger TEXT, state TEXT,
//        start_us INTEGER, end_us INTEGER, params TEXT, UNIQUE (pipeline, logical_us))
//        params: the run's params as a JSON object (NULL without any; Run::params)
//   task_instances(run_id INTEGER, position INTEGER, name TEXT, state TEXT, cpu_milli INTEGER,
//        memory_bytes INTEGER, gpus INTEGER, gpu_milli INTEGER, PRIMARY KEY (run_id, name))
//   attempts(run_id INTEGER, task TEXT, idx INTEGER, start_us INTEGER, end_us INTEGER,
//        state TEXT, attempt_id INTEGER, running_us INTEGER, PRIMARY KEY (run_id, task, idx),
//        UNIQUE (attempt_id))
//        start_us: when the scheduler asked the executor for the attempt; running_us: when
//        its work started (NULL while queued, or if it never ran); attempt_id: its AttemptId,
//        never reused (NULL for attempts written by a Gantry before schema version 3)
//   events(seq INTEGER PRIMARY KEY, at_us INTEGER, kind TEXT, pipeline TEXT,
//        logical_us INTEGER, task TEXT, message TEXT)
//   meta(key TEXT PRIMARY KEY, value TEXT)
//        origin = replay (written by `gantry pipeline run`, reproducible from its files) or
//        history (anything that ran a backfill or a server: not reproducible)
//
// Identity (engine/store/database_kind.hpp): application_id kRunsDatabase.application_id.
// A file at the path that is not a runs database (a YAML file, another program's SQLite
// database, a device node) is refused, never written into, never deleted.
//
// One writer (engine/store/file_lock.hpp): the store holds `<path>.lock` for its lifetime, so
// a second process opening the same database fails at once with "database in use by pid N"
// instead of interleaving its runs with ours; the kernel drops the lock when the holder dies,
// so a restart after kill -9 is never blocked. Readers are not blocked.
//
// History is never overwritten: attempts are plain INSERTs (a second attempt with the same
// index, or the same attempt id, is an error, not a replacement), and an UPDATE that matches
// no row is an error.
//
// Schema versions (Database::migrate, PRAGMA user_version): 1 the tables, 2 meta, 3 the
// attempts' attempt_id and running_us, 4 attempts' reason, 5 runs' params. A database of an older
// version is migrated when opened.
//
// Transactions. Every state change is applied inside a transaction, and the exactly-once rule
// rests on the UNIQUE constraint: create_run() is an INSERT OR IGNORE, so a second run for the
// same (pipeline, logical time) can never be written, whatever happened before a crash.
// With `batch` = 1 each change commits on its own (the orchestrator under `gantry serve`);
// with `batch` = N > 1, N changes share a transaction. A crash then loses at most the last
// uncommitted batch — never half of a change, never a duplicate — and recover() plus the
// schedule or backfill recreate what was lost. A virtual-time replay writes through
// WriteBehindRunStore instead: whole finished runs, many per transaction (write_rows()).
// A change that fails (a full disk: SQLITE_FULL, at a statement or at COMMIT) rolls back the
// open transaction, the batch or group with it, and throws: the database never keeps part
// of a change, nor commits it later with the next one.
//
// Errors: StoreError naming the path, also for a database whose content does not fit
// together (a task instance of a run that does not exist, an attempt of an unknown task,
// attempt numbers with gaps, unknown state words). Thread safety: one thread (the event
// loop's).

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "engine/store/database.hpp"
#include "engine/store/database_kind.hpp"
#include "engine/store/file_lock.hpp"
#include "engine/store/statement.hpp"
#include "workflow/pipeline/pipeline_spec.hpp"
#include "workflow/runner/run_store.hpp"

namespace gantry {

// The identity of a runs database (application_id "GanR").
extern const DatabaseKind kRunsDatabase;

struct RunStoreOptions {
  // Changes per transaction (see Transactions above).
  int batch = 1;
  // A replay (`gantry pipeline run`): start from an empty database. An existing runs database
  // at the path is deleted first, but only when an earlier replay wrote it; one holding a
  // history (a backfill's, a server's) is refused with RunHistoryExists unless `replace`.
  bool replay = false;
  bool replace = false;
};

// Thrown by a replay that would delete a run history (RunStoreOptions::replace not set).
class RunHistoryExists : public StoreError {
 public:
  using StoreError::StoreError;
};

class SqliteRunStore final : public RunStore {
 public:
  // Takes the database's writer lock, opens (creating if needed) the database at `path`,
  // claims it as a runs database and migrates its schema. Throws StoreError naming `path`:
  // another process holds the lock, the file is not a runs database, it cannot be created.
  explicit SqliteRunStore(const std::string& path, RunStoreOptions options = {});
  SqliteRunStore(const std::string& path, int batch)
      : SqliteRunStore(path, RunStoreOptions{.batch = batch}) {}
  ~SqliteRunStore() override;  // commits the open batch

  // Records what a pipeline is (upsert by name).
  void save_pipeline(const PipelineSpec& pipeline);

  bool create_run(const Run& run) override;
  void update_run(const RunKey& key, RunState state, std::optional<Time> start,
                  std::optional<Time> end) override;
  void update_task(const RunKey& key, std::string_view task, TaskState state,
                   const Resources& requests) override;
  void attempt_started(const RunKey& key, std::string_view task, size_t index, AttemptId id,
                       Time start) override;
  void attempt_running(const RunKey& key, std::string_view task, size_t index, Time at) override;
  void attempt_ended(const RunKey& key, std::string_view task, size_t index, Time end,
                     AttemptState state, std::string_view reason) override;
  void record_event(const SchedulerEvent& event) override;
  std::vector<Run> load_runs(RunSelection which) const override;
  std::optional<Run> load_run(const RunKey& key) const override;
  std::optional<Run> load_run_before(std::string_view pipeline, Time before) const override;
  AttemptId max_attempt_id() const override;

  // Deletes every stored run of `pipeline` with its task instances, attempts and events, and
  // its pipelines row (gantry serve: DELETE /pipelines/{name}?purge=true). Returns how many
  // runs it deleted. One change (all or nothing); throws StoreError. The caller makes sure no
  // run of it is in flight.
  int64_t purge_pipeline(const std::string& pipeline);
  // How many runs of `pipeline` are stored.
  int64_t count_runs(const std::string& pipeline) const;
  // How many runs are in each state (state word -> count), for a server's metrics at start.
  std::map<std::string, int64_t> count_runs_by_state() const;
  // What the database holds, counted (`pipeline run --format summary`): runs by pipeline and
  // state, task instances and attempts. One scan of each table.
  struct StoredTotals {
    std::map<std::string, std::map<std::string, int64_t>> runs;  // pipeline -> state -> count
    int64_t task_instances = 0;
    int64_t attempts = 0;
  };
  StoredTotals stored_totals() const;
  // The latest instant the database holds: runs' logical times, starts and ends, attempts'
  // starts, running starts and ends, events' times; nullopt when it holds none. A process that
  // continues a database starts its clock no earlier (time never goes back across a restart:
  // a lost attempt must not end before it started).
  std::optional<Time> latest_instant() const;

  // Commits the open batch, if any (not an open group: commit_group() does).
  void flush();

  // --- Whole rows, for a writer that keeps changes in memory and writes each run once
  // (WriteBehindRunStore, write_behind_run_store.hpp). Implemented in sqlite_run_rows.cpp. ---
  // A run as the database holds (or will hold) it: its row id, chosen by the writer, and how
  // much of it is stored already, so that what is new is INSERTed (the UNIQUE and primary
  // keys still refuse a second run of a key, a second attempt of an index) and only what
  // exists is UPDATEd.
  struct RunRows {
    int64_t id = 0;
    Run run;
    bool stored = false;                  // its run and task instance rows exist
    std::vector<size_t> stored_attempts;  // per task (in run.tasks order): attempts that exist
  };
  // Writes the runs' rows and appends the events, in one transaction of its own (an open
  // batch is committed first); the commit hook is called after it. Throws StoreError (the
  // transaction rolled back): a run whose key or id exists while `stored` is false, an
  // UPDATE that matches no row, SQLite's errors (a full disk).
  void write_rows(const std::vector<RunRows>& runs, const std::vector<SchedulerEvent>& events);
  // The run of `key` with its row id, every row stored; nullopt when the database has none.
  std::optional<RunRows> load_rows(const RunKey& key) const;
  // The greatest run id stored (0 when none): a writer choosing ids goes on after it.
  int64_t max_run_id() const;
  // Per pipeline, the greatest logical time of its stored runs.
  std::map<std::string, Time> latest_logical_times() const;

  // Groups: every change from begin_group() to commit_group() is one transaction, so a caller
  // applies several changes all or nothing (gantry serve: one request). begin_group() commits
  // an open batch first. commit_group() throws StoreError when the COMMIT fails (the group is
  // then rolled back); rollback_group() undoes the group (also after a change of it failed,
  // which already undid it). Groups do not nest.
  void begin_group();
  void commit_group();
  void rollback_group() noexcept;
  // Writes a row of its own (meta 'written') in a transaction of its own: throws StoreError
  // when the database cannot be written (the disk is still full). Commits an open batch first.
  void check_writable();
  // The connection, for tables that must change in the same transactions as the runs (the
  // server's catalog of pipelines). Its writes join the open batch or group.
  Database& database() { return db_; }
  // State changes written so far (each call above counts one).
  uint64_t changes_written() const { return changes_; }

  // Called after each committed transaction with the number of transactions committed so far
  // (1, 2, ...), on the caller's thread, before the change that committed returns. The store
  // itself never acts on it. It is the seam of the crash and concurrency tests: their hook
  // kills or stops the process at a chosen commit (tests/tools/fault_injection.hpp, linked
  // only into test programs), a real kill -9 at a transaction boundary or, with batching,
  // inside the open batch. Empty: nothing is called.
  using CommitHook = std::function<void(uint64_t commits)>;
  void set_commit_hook(CommitHook hook) { commit_hook_ = std::move(hook); }

 private:
  // Opens the batch transaction if needed; after the change, commit_if_due() ends it when the
  // batch is full (never inside a group).
  void begin_change();
  void commit_if_due();
  void commit();
  // Rolls back the open transaction (batch or group) after a change failed, so that the
  // database never keeps part of a change, nor a later COMMIT the rest of a failed one.
  void abort_open() noexcept;
  // Undoes the open transaction unless the change it guards completes (keep()).
  class Undo {
   public:
    explicit Undo(SqliteRunStore& store) : store_(store) {}
    ~Undo() {
      if (!kept_) store_.abort_open();
    }
    Undo(const Undo&) = delete;
    Undo& operator=(const Undo&) = delete;
    void keep() { kept_ = true; }

   private:
    SqliteRunStore& store_;
    bool kept_ = false;
  };
  // The row id of a run this store knows of (cached while the run is not finished; looked up
  // otherwise). Throws StoreError if the run does not exist.
  int64_t run_id(const RunKey& key) const;
  // The runs whose ids `ids_sql` selects (one column; parameters bound by `bind`), with task
  // instances and attempts, read in one transaction. Empty `ids_sql`: every run.
  std::vector<Run> load_selected(const std::string& ids_sql,
                                 const std::function<void(Statement&)>& bind) const;
  // Throws StoreError unless the last UPDATE changed exactly one row.
  void expect_one_row(const char* what) const;
  void open_replay(const RunStoreOptions& options);

  FileLock lock_;  // first in, last out: held while the connection is open
  std::string path_;
  Database db_;
  int batch_;
  int in_batch_ = 0;
  bool open_ = false;
  bool grouped_ = false;  // begin_group() .. commit_group()
  uint64_t changes_ = 0;
  uint64_t commits_ = 0;
  CommitHook commit_hook_;
  // Row ids of the runs not finished (and of finished ones touched since), so that the changes
  // of a run in flight need no lookup; dropped when a run finishes, so a server's memory does
  // not grow with its history.
  mutable std::map<RunKey, int64_t> ids_;
  mutable Statement find_run_id_;
  Statement insert_run_, insert_task_, update_run_, update_task_, insert_attempt_, running_attempt_,
      end_attempt_, insert_event_,
      upsert_pipeline_;  // destroyed before db_ closes
  // write_rows()'s statements, prepared at its first call (sqlite_run_rows.cpp, where the
  // type is; the deleter lets this file do without it).
  struct RowStatements;
  struct RowStatementsDeleter {
    void operator()(RowStatements* statements) const;
  };
  std::unique_ptr<RowStatements, RowStatementsDeleter> row_statements_;
};

}  // namespace gantry
