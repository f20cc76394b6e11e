#pragma once
// WriteBehindRunStore: the RunStore of a virtual-time replay (`gantry pipeline run`) that
// keeps each run in memory while it changes and writes it once, whole, when it has finished,
// on a thread of its own.
//
// Why: a run of three tasks goes through about 24 changes (a run and three task rows
// inserted, then updated, three attempts inserted, started, ended). Written change by change
// (SqliteRunStore) they were 90 % of a replay's time; a finished run is 7 inserts, and the
// writing overlaps the scheduling on a second core (bench/pipelines_year.sh: 100 pipelines,
// a year of 5-minute runs). A server (`gantry serve`) keeps writing change by change: it must
// lose nothing at a crash, and a replay can simply be run again.
//
// Memory: the runs not finished, the finished runs of the batch being filled
// (kBatchRuns) and at most kBatchesInFlight batches waiting for the writer; a slow disk slows
// the scheduler rather than growing memory.
//
// What reaches the database: every row, column and event the change-by-change writer would
// have written, in the same order of row ids (a run's id is counted when it is created, as
// SQLite's would be), so the database is the same (tests/workflow/write_behind_run_store_test).
// Each batch is one transaction of whole runs; a process killed mid-way leaves a consistent
// database of the runs finished in the batches committed, plus at most the runs in flight at
// the last flush().
//
// Exactly once: create_run() refuses a key it holds, a key the database holds (after
// writing everything handed over, it asks), and the database's UNIQUE constraint is still
// the last word when the batch is written. A key later than any this pipeline had is new
// without asking (the common case, a schedule's next tick), so a catch-up never waits for the
// writer.
//
// Reads (load_runs, load_run, load_run_before, max_attempt_id) answer the truth: load_run of
// a run held in memory answers from memory, of another once the writer has written what it
// was handed; the other reads first write everything (flush()), then ask the database. A
// create_run of an earlier key, or a change to a run written already, waits for the writer
// too, but writes nothing held: a backfill inside a replay costs no copy of the runs in
// flight per run it creates.
//
// Errors: when the writer fails (a full disk: StoreError naming the file, the batch rolled
// back), the next call on the scheduler's thread throws that error, and every call after it;
// flush() throws it too. A change the store cannot apply (an attempt index out of order, a
// change to a run that does not exist) throws StoreError at once.
//
// Threads: every member is called from one thread (the event loop's); the writer thread only
// writes the batches handed over. `settled()` gives the SqliteRunStore back to the caller's
// thread once everything is written (the summary's counts, the pipelines rows).

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "workflow/runner/run_store.hpp"
#include "workflow/store/held_runs.hpp"
#include "workflow/store/sqlite_run_store.hpp"

namespace gantry {

class WriteBehindRunStore final : public RunStore {
 public:
  static constexpr size_t kBatchRuns = 4096;
  static constexpr size_t kBatchEvents = 8192;
  static constexpr size_t kBatchesInFlight = 2;

  // Writes into `store`, which must outlive this object and is not to be used by anyone else
  // until settled() or this object's end. Reads what it needs to go on after the runs `store`
  // holds (their greatest row id, each pipeline's latest logical time), then starts the writer.
  explicit WriteBehindRunStore(SqliteRunStore& store);
  // Stops the writer after the batches already handed over; runs not handed over are lost, as
  // in a crash. Call flush() first to keep them.
  ~WriteBehindRunStore() override;
  WriteBehindRunStore(const WriteBehindRunStore&) = delete;
  WriteBehindRunStore& operator=(const WriteBehindRunStore&) = delete;

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

  // Writes everything held, the runs in flight included, and waits for the writer. Throws the
  // writer's error.
  void flush();
  // flush(), then the store, for the caller's thread until the next change.
  SqliteRunStore& settled();

 private:
  using RunRows = SqliteRunStore::RunRows;
  struct Batch {
    std::vector<RunRows> runs;
    std::vector<SchedulerEvent> events;
  };

  // The run of `key`: held, or read back from the database (after flush()). Throws
  // StoreError when the database has none.
  HeldRuns::Entry& held(const RunKey& key);
  TaskInstance& task_of(RunRows& rows, const RunKey& key, std::string_view task);
  Attempt& attempt_of(RunRows& rows, const RunKey& key, std::string_view task, size_t index);
  // Moves the finished runs into the batch and hands it over once it is full.
  void hand_over_if_due();
  // Moves every held run into the batch (`everything`: the runs in flight too, as they are
  // now, kept held and marked stored) and hands the batch to the writer, waiting while
  // kBatchesInFlight wait already. Throws the writer's error.
  void hand_over(bool everything);
  void throw_if_failed() const;
  // Waits until the writer has written every batch handed over, so that the database holds
  // every run not held (a run leaves held_ only in a batch). Throws the writer's error.
  void settle_writer() const;
  // flush() for the reads, which the RunStore interface makes const: what they return must
  // include every change, and writing it changes no value a caller can see.
  void flush_for_read() const { const_cast<WriteBehindRunStore*>(this)->flush(); }
  void write_loop();

  SqliteRunStore& store_;
  HeldRuns held_;
  std::vector<HeldRuns::Entry*> finished_;  // held runs that finished since the last hand-over
  Batch batch_;
  int64_t last_id_ = 0;

  mutable std::mutex mu_;
  mutable std::condition_variable changed_;
  std::deque<Batch> queue_;   // handed over, oldest first
  std::vector<Batch> spent_;  // written, to be freed (and reused) by the caller's thread
  bool writing_ = false;      // the writer holds a batch it took from the queue
  bool closing_ = false;
  std::exception_ptr error_;
  std::atomic<bool> failed_{false};  // error_ is set: checked without the lock on every change
  std::thread thread_;
};

}  // namespace gantry
