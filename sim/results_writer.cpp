#include "sim/results_writer.hpp"

#include <cassert>
#include <filesystem>
#include <system_error>

namespace gantry {

namespace {

// Migration steps of the results schema; append, never edit (Database::migrate).
const std::vector<std::string>& schema_steps() {
  static const std::vector<std::string> kSteps = {
      R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE jobs(
  id INTEGER PRIMARY KEY, name TEXT, tenant TEXT, priority INTEGER, gpus INTEGER,
  pods INTEGER, submit_us INTEGER, start_us INTEGER NULL, end_us INTEGER NULL,
  wait_s REAL NULL, jct_s REAL NULL, nodes INTEGER NULL, placement TEXT NULL,
  step_time_s REAL NULL, bottleneck TEXT NULL, state TEXT);
CREATE TABLE cluster_series(time_us INTEGER, gpu_type TEXT, allocated INTEGER, busy INTEGER);
CREATE TABLE events(seq INTEGER PRIMARY KEY, time_us INTEGER, kind TEXT, job_id INTEGER NULL,
  detail TEXT);
CREATE TABLE summary(metric TEXT PRIMARY KEY, value REAL);
)sql",
      // Admission: a job's queue and evictions, and the figures of each queue.
      R"sql(
ALTER TABLE jobs ADD COLUMN queue TEXT NULL;
ALTER TABLE jobs ADD COLUMN admitted_us INTEGER NULL;
ALTER TABLE jobs ADD COLUMN replicas INTEGER;
ALTER TABLE jobs ADD COLUMN lost_gpu_seconds REAL;
CREATE TABLE evictions(job_id INTEGER, at_us INTEGER, reason TEXT, by_job_id INTEGER NULL);
CREATE TABLE queues(
  name TEXT PRIMARY KEY, cohort TEXT NULL, jobs INTEGER, admitted INTEGER,
  wait_p50_s REAL NULL, wait_p95_s REAL NULL, gpu_hours_used REAL, gpu_hours_borrowed REAL,
  gpu_hours_lent REAL, preemptions_suffered INTEGER, preemptions_caused INTEGER,
  lost_gpu_hours REAL);
)sql",
      // Failures, elasticity and node pools (issue #13).
      R"sql(
ALTER TABLE jobs ADD COLUMN failures INTEGER;
ALTER TABLE jobs ADD COLUMN resizes INTEGER;
ALTER TABLE jobs ADD COLUMN allocated_gpu_seconds REAL;
ALTER TABLE jobs ADD COLUMN useful_gpu_seconds REAL;
CREATE TABLE faults(at_us INTEGER, action TEXT, node TEXT NULL, rack TEXT NULL,
  gpu INTEGER NULL, cause TEXT, jobs INTEGER);
CREATE TABLE pools(
  name TEXT PRIMARY KEY, capacity TEXT, price_per_hour REAL, nodes_added INTEGER,
  nodes_removed INTEGER, peak_nodes INTEGER, reclaims INTEGER, node_hours REAL, cost REAL);
)sql",
      // Inference services (issue #14).
      R"sql(
CREATE TABLE services(
  name TEXT PRIMARY KEY, requests INTEGER, p50_s REAL, p99_s REAL, slo_p99_s REAL NULL,
  slo_attainment REAL, gpu_hours REAL, cold_starts INTEGER, max_replicas INTEGER,
  unserved INTEGER);
CREATE TABLE service_intervals(
  service TEXT, start_us INTEGER, arrivals INTEGER, served INTEGER, qps REAL, p50_s REAL,
  p99_s REAL, slo_attainment REAL, ready_replicas REAL, starting_replicas REAL,
  gpu_hours REAL, cold_starts INTEGER);
)sql",
  };
  return kSteps;
}

// Built once after the bulk load: cheaper than keeping the index up to date row by row.
constexpr const char* kIndexes = "CREATE INDEX events_by_job ON events(job_id)";

// Rows are bound without copying their strings: the record outlives the step() that reads
// them, and every parameter is rebound before the next step().
BorrowedText borrow(const std::string& s) { return BorrowedText{s}; }
std::optional<BorrowedText> borrow(const std::optional<std::string>& s) {
  if (!s) return std::nullopt;
  return BorrowedText{*s};
}

std::optional<double> seconds_between(Time from, const std::optional<Time>& to) {
  if (!to) return std::nullopt;
  return (*to - from).seconds();
}

}  // namespace

// 0x47616e53 = "GanS". Older files are recognised by their tables.
const DatabaseKind kResultsDatabase{
    0x47616e53u,
    "Gantry results database",
    {{"meta", "jobs", "cluster_series", "events", "summary"}, {"meta", "curves"}}};

void check_results_target(const std::string& path) { check_replaceable(path, kResultsDatabase); }

ResultsWriter::ResultsWriter(const std::string& path) : path_(path), file_(path) {
  check_results_target(path);
  // The temporary starts from nothing (ReplacementFile removed any stale one), so identical
  // runs give identical bytes.
  OpenOptions options;
  options.fast = true;
  db_ = Database::open(file_.temp_path(), options);
  claim(db_, kResultsDatabase);
  db_.migrate(schema_steps());

  insert_meta_ = db_.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)");
  insert_job_ = db_.prepare(
      "INSERT INTO jobs(id, name, tenant, priority, gpus, pods, submit_us, start_us, end_us, "
      "wait_s, jct_s, nodes, placement, step_time_s, bottleneck, state, queue, admitted_us, "
      "replicas, lost_gpu_seconds, failures, resizes, allocated_gpu_seconds, useful_gpu_seconds) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  insert_fault_ = db_.prepare(
      "INSERT INTO faults(at_us, action, node, rack, gpu, cause, jobs) VALUES (?, ?, ?, ?, ?, ?, "
      "?)");
  insert_pool_ = db_.prepare(
      "INSERT INTO pools(name, capacity, price_per_hour, nodes_added, nodes_removed, peak_nodes, "
      "reclaims, node_hours, cost) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  insert_service_ = db_.prepare(
      "INSERT INTO services(name, requests, p50_s, p99_s, slo_p99_s, slo_attainment, gpu_hours, "
      "cold_starts, max_replicas, unserved) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  insert_service_interval_ = db_.prepare(
      "INSERT INTO service_intervals(service, start_us, arrivals, served, qps, p50_s, p99_s, "
      "slo_attainment, ready_replicas, starting_replicas, gpu_hours, cold_starts) VALUES (?, ?, "
      "?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  insert_eviction_ =
      db_.prepare("INSERT INTO evictions(job_id, at_us, reason, by_job_id) VALUES (?, ?, ?, ?)");
  insert_queue_ = db_.prepare(
      "INSERT INTO queues(name, cohort, jobs, admitted, wait_p50_s, wait_p95_s, gpu_hours_used, "
      "gpu_hours_borrowed, gpu_hours_lent, preemptions_suffered, preemptions_caused, "
      "lost_gpu_hours) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  insert_series_ = db_.prepare(
      "INSERT INTO cluster_series(time_us, gpu_type, allocated, busy) VALUES (?, ?, ?, ?)");
  insert_event_ =
      db_.prepare("INSERT INTO events(seq, time_us, kind, job_id, detail) VALUES (?, ?, ?, ?, ?)");
  insert_summary_ = db_.prepare("INSERT OR REPLACE INTO summary(metric, value) VALUES (?, ?)");
  begin_batch();
}

ResultsWriter::~ResultsWriter() {
  if (finished_) return;
  // Unfinished: roll back, close, and let file_ delete the temporary; `path` is untouched.
  batch_.reset();
  insert_meta_ = Statement();
  insert_job_ = Statement();
  insert_eviction_ = Statement();
  insert_queue_ = Statement();
  insert_fault_ = Statement();
  insert_pool_ = Statement();
  insert_service_ = Statement();
  insert_service_interval_ = Statement();
  insert_series_ = Statement();
  insert_event_ = Statement();
  insert_summary_ = Statement();
  db_ = Database();
}

void ResultsWriter::begin_batch() {
  batch_.emplace(db_);
  rows_in_batch_ = 0;
}

void ResultsWriter::row_written() {
  if (++rows_in_batch_ < kBatchRows) return;
  batch_->commit();
  batch_.reset();
  begin_batch();
}

void ResultsWriter::write_meta(const std::string& key, const std::string& value) {
  assert(!finished_);
  insert_meta_.bind_all(borrow(key), borrow(value)).step();
  insert_meta_.reset();
  row_written();
}

void ResultsWriter::add_job(const JobRecord& job) {
  assert(!finished_);
  const std::optional<double> wait_s = seconds_between(job.submit, job.start);
  const std::optional<double> jct_s = seconds_between(job.submit, job.end);
  insert_job_
      .bind_all(job.id, borrow(job.name), borrow(job.tenant), job.priority, job.gpus, job.pods,
                job.submit, job.start, job.end, wait_s, jct_s, job.nodes, borrow(job.placement),
                job.step_time_s, borrow(job.bottleneck), borrow(job.state), borrow(job.queue),
                job.admitted, job.replicas, job.lost_gpu_seconds, job.failures, job.resizes,
                job.allocated_gpu_seconds, job.useful_gpu_seconds)
      .step();
  insert_job_.reset();
  row_written();
}

void ResultsWriter::add_fault(const FaultRow& f) {
  assert(!finished_);
  insert_fault_
      .bind_all(f.at, borrow(f.action), borrow(f.node), borrow(f.rack), f.gpu, borrow(f.cause),
                f.jobs)
      .step();
  insert_fault_.reset();
  row_written();
}

void ResultsWriter::add_pool(const PoolRow& p) {
  assert(!finished_);
  insert_pool_
      .bind_all(borrow(p.name), borrow(p.capacity), p.price_per_hour, p.nodes_added,
                p.nodes_removed, p.peak_nodes, p.reclaims, p.node_hours, p.cost)
      .step();
  insert_pool_.reset();
  row_written();
}

void ResultsWriter::add_service(const ServiceReport& s) {
  assert(!finished_);
  insert_service_
      .bind_all(borrow(s.name), s.requests, s.p50_s, s.p99_s,
                s.slo_p99_s > 0 ? std::optional<double>(s.slo_p99_s) : std::nullopt,
                s.slo_attainment, s.gpu_hours, s.cold_starts, s.max_replicas, s.unserved)
      .step();
  insert_service_.reset();
  row_written();
  for (const ServiceInterval& i : s.intervals) {
    insert_service_interval_
        .bind_all(borrow(s.name), i.start, i.arrivals, i.served, i.qps, i.p50_s, i.p99_s,
                  i.slo_attainment, i.ready_replicas, i.starting_replicas, i.gpu_hours,
                  i.cold_starts)
        .step();
    insert_service_interval_.reset();
    row_written();
  }
}

void ResultsWriter::add_eviction(const JobEvictionRecord& e) {
  assert(!finished_);
  insert_eviction_.bind_all(e.job_id, e.at, borrow(e.reason), e.by_job_id).step();
  insert_eviction_.reset();
  row_written();
}

void ResultsWriter::add_queue(const QueueRecord& q) {
  assert(!finished_);
  insert_queue_
      .bind_all(borrow(q.name), borrow(q.cohort), q.jobs, q.admitted, q.wait_p50_s, q.wait_p95_s,
                q.gpu_hours_used, q.gpu_hours_borrowed, q.gpu_hours_lent, q.preemptions_suffered,
                q.preemptions_caused, q.lost_gpu_hours)
      .step();
  insert_queue_.reset();
  row_written();
}

void ResultsWriter::add_series(const SeriesRecord& row) {
  assert(!finished_);
  insert_series_.bind_all(row.time, borrow(row.gpu_type), row.allocated, row.busy).step();
  insert_series_.reset();
  row_written();
}

void ResultsWriter::add_event(const EventRecord& event) {
  assert(!finished_);
  insert_event_
      .bind_all(next_event_seq_, event.time, borrow(event.kind), event.job_id, borrow(event.detail))
      .step();
  insert_event_.reset();
  ++next_event_seq_;
  row_written();
}

void ResultsWriter::write_summary(const std::string& metric, double value) {
  assert(!finished_);
  insert_summary_.bind_all(borrow(metric), value).step();
  insert_summary_.reset();
  row_written();
}

void ResultsWriter::finish() {
  assert(!finished_ && "ResultsWriter::finish() called twice");
  // The mark readers look for; in the last transaction, so it exists only if all rows do.
  insert_meta_.bind_all("complete", "true").step();
  insert_meta_.reset();
  batch_->commit();
  batch_.reset();
  db_.exec(kIndexes);
  // Finalize every statement before closing: SQLite refuses to close under live statements.
  insert_meta_ = Statement();
  insert_job_ = Statement();
  insert_eviction_ = Statement();
  insert_queue_ = Statement();
  insert_fault_ = Statement();
  insert_pool_ = Statement();
  insert_service_ = Statement();
  insert_service_interval_ = Statement();
  insert_series_ = Statement();
  insert_event_ = Statement();
  insert_summary_ = Statement();
  db_.close();
  // Looked at again just before the rename: something may have appeared there meanwhile.
  check_results_target(path_);
  remove_sidecars(path_);  // a stale WAL would be replayed into the new file
  file_.commit();
  finished_ = true;
}

void ResultsWriter::limit_pages_for_test(int64_t pages) {
  db_.exec("PRAGMA max_page_count = " + std::to_string(pages));
}

}  // namespace gantry
