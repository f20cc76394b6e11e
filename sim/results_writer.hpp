#pragma once
// ResultsWriter: the results database of `gantry simulate`.
//
// One SQLite file per run, with this schema (user_version 4):
//
//   meta(key TEXT PRIMARY KEY, value TEXT)
//       scenario name, seed, policy, start, horizon, gantry version: whatever the caller
//       writes with write_meta(); and complete = "true", written by finish() last.
//   jobs(id INTEGER PRIMARY KEY, name TEXT, tenant TEXT, priority INTEGER, gpus INTEGER,
//        pods INTEGER, submit_us INTEGER, start_us INTEGER NULL, end_us INTEGER NULL,
//        wait_s REAL NULL, jct_s REAL NULL, nodes INTEGER NULL, placement TEXT NULL,
//        step_time_s REAL NULL, bottleneck TEXT NULL, state TEXT,
//        queue TEXT NULL, admitted_us INTEGER NULL, replicas INTEGER, lost_gpu_seconds REAL,
//        failures INTEGER, resizes INTEGER, allocated_gpu_seconds REAL,
//        useful_gpu_seconds REAL)
//       one row per job. start = the instant all pods run (NULL if never); wait = start −
//       submit and jct = end − submit, in seconds, computed here from the record so they
//       always agree with the instants. queue: its admission queue (NULL without admission);
//       admitted: its first admission; replicas: of its last role at its last admission;
//       lost_gpu_seconds: GPU time of the work its evictions threw away; failures: the
//       failures that hit it; resizes: of its elastic role; allocated and useful GPU time
//       (sim/reliability_summary.hpp).
//   faults(at_us INTEGER, action TEXT, node TEXT NULL, rack TEXT NULL, gpu INTEGER NULL,
//          cause TEXT, jobs INTEGER)
//       one row per fault or maintenance event carried out (sim/fault_event.hpp), in order;
//       jobs: the jobs it hit.
//   pools(name TEXT PRIMARY KEY, capacity TEXT, price_per_hour REAL, nodes_added INTEGER,
//         nodes_removed INTEGER, peak_nodes INTEGER, reclaims INTEGER, node_hours REAL,
//         cost REAL)
//       one row per node pool (sim/cost_summary.hpp); empty without node pools.
//   services(name TEXT PRIMARY KEY, requests INTEGER, p50_s REAL, p99_s REAL,
//            slo_p99_s REAL NULL, slo_attainment REAL, gpu_hours REAL, cold_starts INTEGER,
//            max_replicas INTEGER, unserved INTEGER)
//       one row per inference service (sim/serving/service_report.hpp); empty without services.
//   service_intervals(service TEXT, start_us INTEGER, arrivals INTEGER, served INTEGER,
//            qps REAL, p50_s REAL, p99_s REAL, slo_attainment REAL, ready_replicas REAL,
//            starting_replicas REAL, gpu_hours REAL, cold_starts INTEGER)
//       one row per service and report interval (spec.sim.serviceReportInterval).
//   evictions(job_id INTEGER, at_us INTEGER, reason TEXT, by_job_id INTEGER NULL)
//       one row per eviction of a job, in the order add_eviction() received them; by_job_id
//       is the preemptor (NULL when no job caused it).
//   queues(name TEXT PRIMARY KEY, cohort TEXT NULL, jobs INTEGER, admitted INTEGER,
//          wait_p50_s REAL NULL, wait_p95_s REAL NULL, gpu_hours_used REAL,
//          gpu_hours_borrowed REAL, gpu_hours_lent REAL, preemptions_suffered INTEGER,
//          preemptions_caused INTEGER, lost_gpu_hours REAL)
//       one row per admission queue (sim/queue_summary.hpp says what each figure is); empty
//       when admission is off. wait_* is the admission wait, NULL when no job was admitted.
//   cluster_series(time_us INTEGER, gpu_type TEXT, allocated INTEGER, busy INTEGER)
//       one row per change of a GPU type's allocated or busy GPUs. A pod on a share of a GPU
//       counts its share, so a value may have a fraction (0.25, 3.5; SQLite keeps those as
//       REAL in the INTEGER column, whole numbers as integers).
//   events(seq INTEGER PRIMARY KEY, time_us INTEGER, kind TEXT, job_id INTEGER NULL,
//          detail TEXT)
//       the event log; seq numbers events 1, 2, ... in the order add_event() received them.
//   summary(metric TEXT PRIMARY KEY, value REAL)
//       headline numbers (NaN is stored as NULL).
//   Index events_by_job on events(job_id), built by finish().
//
// Schema versions (Database::migrate, PRAGMA user_version): 1 meta, jobs, cluster_series,
// events, summary; 2 the admission columns of jobs (queue, admitted_us, replicas,
// lost_gpu_seconds) and the evictions and queues tables; 3 the reliability columns of jobs
// (failures, resizes, allocated_gpu_seconds, useful_gpu_seconds) and the faults and pools
// tables; 4 the services and service_intervals tables. Every results database is written from
// nothing, so a file of this Gantry is always at 4; a reader that finds less is reading an older
// Gantry's file, without those columns and tables.
//
// Instants are microseconds since the Unix epoch in simulated time (`*_us`).
//
// Determinism (DESIGN.md rule 4): the same calls in the same order give a byte-identical file.
// The writer itself stores nothing from the real world (no wall-clock time, no host name, no
// path); keep it that way in what callers pass to write_meta().
//
// Speed: rows go through prepared statements reused for the whole run, inside one transaction
// per kBatchRows rows, on a connection opened with OpenOptions::fast (no fsync, journal in
// memory). Writing 100,000 jobs, 400,000 events and 200,000 series rows takes a fraction of
// a second.
//
// Atomic (engine/store/replacement_file.hpp): rows go to `<path>.partial-<pid>` beside the
// target; finish() marks the database complete (meta complete = true), closes it and renames
// it over `path`. So `path` holds a complete database or whatever was there before, never a
// part of a run, even when the process is killed; readers (`gantry compare`) still refuse a
// database without the mark (one copied half-way, or written by an older Gantry).
// Identity (engine/store/database_kind.hpp): application_id kResultsDatabase.application_id;
// only a missing path, an empty file or a Gantry results database is ever replaced.
//
// Lifetime: construct, add rows, finish(). A writer destroyed without finish() (an exception
// unwinding the simulation) deletes its temporary file and leaves `path` as it was.
//
// Errors: StoreError (engine/store/store_error.hpp) from the constructor when `path` is
// something else than a results database (the message says what) or the file cannot be
// created, and from any call when SQLite fails; FileError when the finished file cannot be
// moved into place. Every message names the path.
//
// Thread-safety: none; one writer per simulation, used from its loop thread.

#include <cstdint>
#include <optional>
#include <string>

#include "engine/cluster/job.hpp"
#include "engine/core/time.hpp"
#include "engine/store/database.hpp"
#include "engine/store/database_kind.hpp"
#include "engine/store/replacement_file.hpp"
#include "engine/store/statement.hpp"
#include "engine/store/transaction.hpp"
#include "sim/serving/service_report.hpp"

namespace gantry {

// One row of `jobs`. Optional fields are NULL when empty.
struct JobRecord {
  JobId id = 0;
  std::string name;
  std::string tenant;
  int priority = 0;
  int gpus = 0;
  int pods = 0;
  Time submit;
  std::optional<Time> start;             // all pods running; empty if the job never started
  std::optional<Time> end;               // finished; empty if it did not finish within the horizon
  std::optional<int> nodes;              // distinct nodes used
  std::optional<std::string> placement;  // "r1-n000:0-7,r1-n001:0-7"
  std::optional<double> step_time_s;
  std::optional<std::string> bottleneck;  // the link or resource that sets the step time
  std::string state;                      // to_string(JobState), or a state of the world
  std::optional<std::string> queue;       // its admission queue; empty without admission
  std::optional<Time> admitted;           // first admission; empty if never admitted
  int replicas = 0;                       // of its last role, at its last admission
  double lost_gpu_seconds = 0;            // GPU time of the work evictions threw away
  int failures = 0;
  int resizes = 0;
  double allocated_gpu_seconds = 0;
  double useful_gpu_seconds = 0;
};

struct FaultRow {
  Time at;
  std::string action;  // to_string(FaultAction)
  std::optional<std::string> node;
  std::optional<std::string> rack;
  std::optional<int> gpu;
  std::string cause;
  int jobs = 0;
};

struct PoolRow {
  std::string name;
  std::string capacity;  // "spot" | "on-demand"
  double price_per_hour = 0;
  int nodes_added = 0;
  int nodes_removed = 0;
  int peak_nodes = 0;
  int reclaims = 0;
  double node_hours = 0;
  double cost = 0;
};

// One row of `evictions`.
struct JobEvictionRecord {
  JobId job_id = 0;
  Time at;
  std::string reason;              // "Preempted", "PodsReadyTimeout", ... (sim/simulation_log.hpp)
  std::optional<JobId> by_job_id;  // the preemptor; empty when no job caused it
};

// One row of `queues`. Optional fields are NULL when empty.
struct QueueRecord {
  std::string name;
  std::optional<std::string> cohort;
  int64_t jobs = 0;
  int64_t admitted = 0;
  std::optional<double> wait_p50_s;  // admission wait; empty when no job was admitted
  std::optional<double> wait_p95_s;
  double gpu_hours_used = 0;
  double gpu_hours_borrowed = 0;
  double gpu_hours_lent = 0;
  int64_t preemptions_suffered = 0;
  int64_t preemptions_caused = 0;
  double lost_gpu_hours = 0;
};

// One row of `cluster_series`: GPUs, a share of one counted by its fraction (0.25).
struct SeriesRecord {
  Time time;
  std::string gpu_type;
  double allocated = 0;
  double busy = 0;
};

// One row of `events`; seq is assigned by the writer.
struct EventRecord {
  Time time;
  std::string kind;
  std::optional<JobId> job_id;  // empty for events about no job (a node going down)
  std::string detail;
};

// The identity of a results database, training run or fragmentation experiment alike
// (application_id "GanS"; sim/fragmentation_export.hpp writes the other kind).
extern const DatabaseKind kResultsDatabase;

// Throws StoreError naming `path` unless a results database may be written there: nothing
// there, an empty file, or a Gantry results database. Anything else (a runs database, another
// program's database, a text file, a folder) is left alone.
void check_results_target(const std::string& path);

class ResultsWriter {
 public:
  // Rows per transaction. Large enough that commits cost nothing next to the inserts, small
  // enough that the page cache holds a batch.
  static constexpr int kBatchRows = 10'000;

  // Starts the results database that finish() puts at `path`. Throws StoreError naming the
  // path unless it is missing, empty or a Gantry results database (check_results_target()).
  explicit ResultsWriter(const std::string& path);
  ~ResultsWriter();
  ResultsWriter(const ResultsWriter&) = delete;
  ResultsWriter& operator=(const ResultsWriter&) = delete;

  // Inserts or replaces meta[key]; the last value written for a key wins.
  void write_meta(const std::string& key, const std::string& value);
  void add_job(const JobRecord& job);  // a second record with the same id throws StoreError
  void add_eviction(const JobEvictionRecord& eviction);
  void add_queue(const QueueRecord& queue);  // a second queue of the same name throws StoreError
  void add_fault(const FaultRow& fault);
  void add_pool(const PoolRow& pool);  // a second pool of the same name throws StoreError
  // A service and its report intervals; a second service of the same name throws StoreError.
  void add_service(const ServiceReport& service);
  void add_series(const SeriesRecord& row);
  void add_event(const EventRecord& event);
  // Inserts or replaces summary[metric]; the last value written for a metric wins.
  void write_summary(const std::string& metric, double value);

  // Marks the database complete, commits what is pending, builds the indexes, closes the file
  // and moves it to `path`. Any call after finish() (finish() included) is a programming
  // error (asserted).
  void finish();

  // For tests: SQLite's PRAGMA max_page_count, so that a small limit stands in for a full
  // disk (the next row past it throws StoreError).
  void limit_pages_for_test(int64_t pages);

  bool finished() const { return finished_; }
  const std::string& path() const { return path_; }

 private:
  // Every add/write ends with this: counts the row and commits every kBatchRows rows.
  void row_written();
  void begin_batch();

  std::string path_;
  ReplacementFile file_;  // where the rows go until finish(); declared before db_: outlives it
  Database db_;
  // Member order matters: statements and the open transaction go before db_ closes.
  Statement insert_meta_;
  Statement insert_fault_;
  Statement insert_pool_;
  Statement insert_service_;
  Statement insert_service_interval_;
  Statement insert_job_;
  Statement insert_eviction_;
  Statement insert_queue_;
  Statement insert_series_;
  Statement insert_event_;
  Statement insert_summary_;
  std::optional<Transaction> batch_;  // open between rows; empty once finished
  int rows_in_batch_ = 0;
  int64_t next_event_seq_ = 1;
  bool finished_ = false;
};

}  // namespace gantry
