#include "sim/results_writer.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "engine/store/database.hpp"

namespace gantry {
namespace {

using ::testing::HasSubstr;

const Time kT0 = Time::from_micros(1'767'225'600'000'000);  // 2026-01-01T00:00:00Z

class ResultsWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::path(GANTRY_BINARY_DIR) / "test-tmp" / "results" / info->name();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

JobRecord finished_job() {
  JobRecord j;
  j.id = 7;
  j.name = "bert-large";
  j.tenant = "nlp";
  j.priority = 3;
  j.gpus = 16;
  j.pods = 2;
  j.submit = kT0;
  j.start = kT0 + seconds(90);
  j.end = kT0 + hours(2);
  j.nodes = 2;
  j.placement = "r1-n000:0-7,r1-n001:0-7";
  j.step_time_s = 0.42;
  j.bottleneck = "rdma";
  j.state = "Finished";
  return j;
}

JobRecord never_started_job() {
  JobRecord j;
  j.id = 8;
  j.name = "too-big";
  j.tenant = "cv";
  j.gpus = 4096;
  j.pods = 512;
  j.submit = kT0 + minutes(5);
  j.state = "Pending";
  return j;
}

// The same calls, in the same order, for the round-trip and the byte-identity tests.
void write_sample(ResultsWriter& w, int extra_rows = 0, const std::string& seed = "42") {
  w.write_meta("scenario", "two-jobs");
  w.write_meta("seed", seed);
  w.add_job(finished_job());
  w.add_job(never_started_job());
  w.add_series({kT0 + seconds(90), "A100", 16, 16});
  w.add_series({kT0 + hours(2), "A100", 0, 0});
  w.add_event({kT0, "submit", 7, ""});
  w.add_event({kT0 + seconds(90), "running", 7, "r1-n000:0-7,r1-n001:0-7"});
  w.add_event({kT0 + hours(1), "node_down", std::nullopt, "r2-n003"});
  for (int i = 0; i < extra_rows; ++i) {
    w.add_event({kT0 + seconds(i), "tick", i, "detail " + std::to_string(i)});
  }
  w.write_summary("jct_p50_s", 7200.0);
  w.write_summary("utilisation", 0.5);
  w.finish();
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

int64_t count_rows(Database& db, const std::string& table) {
  Statement q = db.prepare("SELECT count(*) FROM " + table);
  EXPECT_TRUE(q.step());
  return q.column_int64(0);
}

TEST_F(ResultsWriterTest, RoundTrip) {
  const std::string file = path("results.db");
  {
    ResultsWriter w(file);
    write_sample(w);
    EXPECT_TRUE(w.finished());
  }
  Database db = Database::open(file);
  EXPECT_EQ(db.user_version(), 4)
      << "schema steps: the tables, the admission ones, the reliability ones, the services";

  Statement meta = db.prepare("SELECT value FROM meta WHERE key = ?");
  meta.bind_all("seed");
  ASSERT_TRUE(meta.step());
  EXPECT_EQ(meta.column_text(0), "42");

  Statement jobs = db.prepare(
      "SELECT id, name, tenant, priority, gpus, pods, submit_us, start_us, end_us, wait_s, "
      "jct_s, nodes, placement, step_time_s, bottleneck, state FROM jobs ORDER BY id");
  ASSERT_TRUE(jobs.step());
  EXPECT_EQ(jobs.column_int64(0), 7);
  EXPECT_EQ(jobs.column_text(1), "bert-large");
  EXPECT_EQ(jobs.column_text(2), "nlp");
  EXPECT_EQ(jobs.column_int64(3), 3);
  EXPECT_EQ(jobs.column_int64(4), 16);
  EXPECT_EQ(jobs.column_int64(5), 2);
  EXPECT_EQ(jobs.column_int64(6), kT0.micros());
  EXPECT_EQ(jobs.column_int64(7), (kT0 + seconds(90)).micros());
  EXPECT_EQ(jobs.column_int64(8), (kT0 + hours(2)).micros());
  EXPECT_DOUBLE_EQ(jobs.column_double(9), 90.0);     // wait = start - submit
  EXPECT_DOUBLE_EQ(jobs.column_double(10), 7200.0);  // jct = end - submit
  EXPECT_EQ(jobs.column_int64(11), 2);
  EXPECT_EQ(jobs.column_text(12), "r1-n000:0-7,r1-n001:0-7");
  EXPECT_DOUBLE_EQ(jobs.column_double(13), 0.42);
  EXPECT_EQ(jobs.column_text(14), "rdma");
  EXPECT_EQ(jobs.column_text(15), "Finished");

  ASSERT_TRUE(jobs.step());
  EXPECT_EQ(jobs.column_int64(0), 8);
  EXPECT_EQ(jobs.column_int64(6), (kT0 + minutes(5)).micros());
  for (int column : {7, 8, 9, 10, 11, 12, 13, 14}) {
    EXPECT_TRUE(jobs.column_is_null(column)) << "column " << column;
  }
  EXPECT_EQ(jobs.column_text(15), "Pending");
  EXPECT_FALSE(jobs.step());

  // Without admission the admission columns are NULL (queue, admitted) or 0.
  Statement admission = db.prepare(
      "SELECT count(*) FROM jobs WHERE queue IS NULL AND admitted_us IS NULL AND replicas = 0 "
      "AND lost_gpu_seconds = 0");
  ASSERT_TRUE(admission.step());
  EXPECT_EQ(admission.column_int64(0), 2);

  Statement series =
      db.prepare("SELECT time_us, gpu_type, allocated, busy FROM cluster_series ORDER BY rowid");
  ASSERT_TRUE(series.step());
  EXPECT_EQ(series.column_int64(0), (kT0 + seconds(90)).micros());
  EXPECT_EQ(series.column_text(1), "A100");
  EXPECT_EQ(series.column_int64(2), 16);
  EXPECT_EQ(series.column_int64(3), 16);
  ASSERT_TRUE(series.step());
  EXPECT_EQ(series.column_int64(2), 0);
  EXPECT_FALSE(series.step());

  Statement events = db.prepare(
      "SELECT seq, time_us, kind, job_id, detail FROM events "
      "ORDER BY seq");
  ASSERT_TRUE(events.step());
  EXPECT_EQ(events.column_int64(0), 1);
  EXPECT_EQ(events.column_text(2), "submit");
  EXPECT_EQ(events.column_int64(3), 7);
  ASSERT_TRUE(events.step());
  EXPECT_EQ(events.column_int64(0), 2);
  EXPECT_EQ(events.column_text(4), "r1-n000:0-7,r1-n001:0-7");
  ASSERT_TRUE(events.step());
  EXPECT_EQ(events.column_int64(0), 3);
  EXPECT_EQ(events.column_int64(1), (kT0 + hours(1)).micros());
  EXPECT_EQ(events.column_text(2), "node_down");
  EXPECT_TRUE(events.column_is_null(3));
  EXPECT_FALSE(events.step());

  Statement summary = db.prepare("SELECT metric, value FROM summary ORDER BY metric");
  ASSERT_TRUE(summary.step());
  EXPECT_EQ(summary.column_text(0), "jct_p50_s");
  EXPECT_DOUBLE_EQ(summary.column_double(1), 7200.0);
  ASSERT_TRUE(summary.step());
  EXPECT_EQ(summary.column_text(0), "utilisation");
  EXPECT_DOUBLE_EQ(summary.column_double(1), 0.5);
  EXPECT_FALSE(summary.step());
}

TEST_F(ResultsWriterTest, ManyRowsSpanSeveralBatches) {
  const std::string file = path("big.db");
  const int extra = 2 * ResultsWriter::kBatchRows + 17;
  {
    ResultsWriter w(file);
    write_sample(w, extra);
  }
  Database db = Database::open(file);
  EXPECT_EQ(count_rows(db, "events"), 3 + extra);
  Statement last = db.prepare("SELECT max(seq), count(DISTINCT seq) FROM events");
  ASSERT_TRUE(last.step());
  EXPECT_EQ(last.column_int64(0), 3 + extra);
  EXPECT_EQ(last.column_int64(1), 3 + extra);
  Statement index = db.prepare(
      "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'events_by_job'");
  ASSERT_TRUE(index.step());
  EXPECT_EQ(index.column_int64(0), 1);
}

TEST_F(ResultsWriterTest, IdenticalInputsGiveIdenticalBytes) {
  const std::string a = path("a.db");
  const std::string b = path("b.db");
  {
    ResultsWriter w(a);
    write_sample(w, ResultsWriter::kBatchRows + 5);  // cross a batch boundary too
  }
  {
    ResultsWriter w(b);
    write_sample(w, ResultsWriter::kBatchRows + 5);
  }
  const std::string bytes_a = file_bytes(a);
  ASSERT_GT(bytes_a.size(), 4096u);
  EXPECT_TRUE(bytes_a == file_bytes(b)) << "results files differ";

  // And the comparison can fail: one different value gives different bytes.
  const std::string c = path("c.db");
  {
    ResultsWriter w(c);
    write_sample(w, ResultsWriter::kBatchRows + 5, "43");
  }
  EXPECT_FALSE(bytes_a == file_bytes(c));
}

// A results database written before is replaced (with a stale WAL beside it, which SQLite
// would otherwise replay into the new file), and the bytes are those of a fresh write.
TEST_F(ResultsWriterTest, ReplacesAPreviousResultsDatabase) {
  const std::string file = path("results.db");
  {
    ResultsWriter w(file);
    write_sample(w, 0, "7");
  }
  { std::ofstream(file + "-wal") << ""; }
  {
    ResultsWriter w(file);
    write_sample(w);
  }
  EXPECT_FALSE(std::filesystem::exists(file + "-wal"));
  const std::string fresh = path("fresh.db");
  {
    ResultsWriter w(fresh);
    write_sample(w);
  }
  EXPECT_TRUE(file_bytes(file) == file_bytes(fresh));
}

// Anything else at the path is left alone, byte for byte: another program's SQLite database,
// a runs database of the orchestrator, a text file.
TEST_F(ResultsWriterTest, RefusesToReplaceWhatIsNotAResultsDatabase) {
  const std::string foreign = path("results.db");
  {
    Database old = Database::open(foreign);
    old.exec("CREATE TABLE stale(x); INSERT INTO stale VALUES (1)");
  }
  const std::string before = file_bytes(foreign);
  try {
    ResultsWriter w(foreign);
    FAIL() << "expected StoreError";
  } catch (const StoreError& e) {
    EXPECT_THAT(e.what(),
                HasSubstr(foreign + ": exists and is an SQLite database with tables stale"));
  }
  EXPECT_TRUE(file_bytes(foreign) == before);

  const std::string text = path("notes.txt");
  { std::ofstream(text) << "not a database\n"; }
  EXPECT_THROW(ResultsWriter w(text), StoreError);
  EXPECT_EQ(file_bytes(text), "not a database\n");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_),
                          std::filesystem::directory_iterator()),
            2)
      << "no temporary left behind";
}

// Killed part-way (a real SIGKILL in a child, after a full batch was committed to disk): the
// target keeps what it held before, here the previous complete run, never a part of the new
// one. What is left is the child's temporary, which no reader looks at.
TEST_F(ResultsWriterTest, KilledMidWayLeavesThePreviousFile) {
  const std::string file = path("results.db");
  {
    ResultsWriter w(file);
    write_sample(w, 0, "1");
  }
  const std::string before = file_bytes(file);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ResultsWriter w(file);
    w.write_meta("seed", "2");
    for (int i = 0; i < ResultsWriter::kBatchRows + 5; ++i) w.add_event({kT0, "tick", i, ""});
    ::kill(::getpid(), SIGKILL);
    _exit(0);  // not reached
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_TRUE(file_bytes(file) == before) << "the target was touched";
  EXPECT_TRUE(std::filesystem::exists(file + ".partial-" + std::to_string(child)))
      << "the child wrote a batch to its temporary";
  Database db = Database::open(file, OpenOptions{.create = false});
  Statement q = db.prepare("SELECT value FROM meta WHERE key = 'complete'");
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.column_text(0), "true");
}

TEST_F(ResultsWriterTest, UnwritablePathThrowsNamingIt) {
  const std::string file = path("no-such-dir/results.db");
  try {
    ResultsWriter w(file);
    FAIL() << "expected StoreError";
  } catch (const StoreError& e) {
    EXPECT_THAT(e.what(), HasSubstr(file));
  }
}

TEST_F(ResultsWriterTest, RefusesToReplaceADirectory) {
  const std::string dir = path("a-directory");
  std::filesystem::create_directories(dir);
  try {
    ResultsWriter w(dir);
    FAIL() << "expected StoreError";
  } catch (const StoreError& e) {
    EXPECT_THAT(e.what(), HasSubstr(dir));
  }
  EXPECT_TRUE(std::filesystem::is_directory(dir));
}

TEST_F(ResultsWriterTest, DuplicateJobIdThrows) {
  ResultsWriter w(path("dup.db"));
  w.add_job(finished_job());
  try {
    w.add_job(finished_job());
    FAIL() << "expected StoreError";
  } catch (const StoreError& e) {
    EXPECT_THAT(e.what(), HasSubstr("jobs.id"));
  }
}

// The admission rows: a job's queue and first admission, its evictions, a queue's figures;
// optional fields stored as NULL when empty.
TEST_F(ResultsWriterTest, AdmissionRowsRoundTrip) {
  const std::string file = path("admission.db");
  {
    ResultsWriter w(file);
    JobRecord job = finished_job();
    job.queue = "research";
    job.admitted = kT0 + seconds(30);
    job.replicas = 2;
    job.lost_gpu_seconds = 1800.5;
    w.add_job(job);
    w.add_eviction({7, kT0 + minutes(10), "Preempted", 8});
    w.add_eviction({7, kT0 + minutes(20), "PodsReadyTimeout", std::nullopt});
    QueueRecord research;
    research.name = "research";
    research.cohort = "lab";
    research.jobs = 3;
    research.admitted = 2;
    research.wait_p50_s = 12.5;
    research.wait_p95_s = 40.0;
    research.gpu_hours_used = 10.0;
    research.gpu_hours_borrowed = 2.0;
    research.gpu_hours_lent = 1.0;
    research.preemptions_suffered = 4;
    research.preemptions_caused = 5;
    research.lost_gpu_hours = 0.5;
    w.add_queue(research);
    QueueRecord idle;
    idle.name = "idle";
    w.add_queue(idle);
    w.finish();
  }
  Database db = Database::open(file);
  Statement job = db.prepare("SELECT queue, admitted_us, replicas, lost_gpu_seconds FROM jobs");
  ASSERT_TRUE(job.step());
  EXPECT_EQ(job.column_text(0), "research");
  EXPECT_EQ(job.column_int64(1), (kT0 + seconds(30)).micros());
  EXPECT_EQ(job.column_int64(2), 2);
  EXPECT_DOUBLE_EQ(job.column_double(3), 1800.5);

  Statement ev =
      db.prepare("SELECT job_id, at_us, reason, by_job_id FROM evictions ORDER BY rowid");
  ASSERT_TRUE(ev.step());
  EXPECT_EQ(ev.column_int64(0), 7);
  EXPECT_EQ(ev.column_int64(1), (kT0 + minutes(10)).micros());
  EXPECT_EQ(ev.column_text(2), "Preempted");
  EXPECT_EQ(ev.column_int64(3), 8);
  ASSERT_TRUE(ev.step());
  EXPECT_EQ(ev.column_text(2), "PodsReadyTimeout");
  EXPECT_TRUE(ev.column_is_null(3));
  EXPECT_FALSE(ev.step());

  Statement q = db.prepare(
      "SELECT name, cohort, jobs, admitted, wait_p50_s, wait_p95_s, gpu_hours_used, "
      "gpu_hours_borrowed, gpu_hours_lent, preemptions_suffered, preemptions_caused, "
      "lost_gpu_hours FROM queues ORDER BY rowid");
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.column_text(0), "research");
  EXPECT_EQ(q.column_text(1), "lab");
  EXPECT_EQ(q.column_int64(2), 3);
  EXPECT_EQ(q.column_int64(3), 2);
  EXPECT_DOUBLE_EQ(q.column_double(4), 12.5);
  EXPECT_DOUBLE_EQ(q.column_double(5), 40.0);
  EXPECT_DOUBLE_EQ(q.column_double(6), 10.0);
  EXPECT_DOUBLE_EQ(q.column_double(7), 2.0);
  EXPECT_DOUBLE_EQ(q.column_double(8), 1.0);
  EXPECT_EQ(q.column_int64(9), 4);
  EXPECT_EQ(q.column_int64(10), 5);
  EXPECT_DOUBLE_EQ(q.column_double(11), 0.5);
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.column_text(0), "idle");
  for (int column : {1, 4, 5}) EXPECT_TRUE(q.column_is_null(column)) << "column " << column;
  EXPECT_FALSE(q.step());
}

// A service and its intervals go to `services` and `service_intervals`; no SLO is NULL.
TEST_F(ResultsWriterTest, ServiceRowsRoundTrip) {
  const std::string file = path("results.db");
  ServiceReport s;
  s.name = "chat";
  s.requests = 1200;
  s.p50_s = 0.3;
  s.p99_s = 1.5;
  s.slo_attainment = 0.98;
  s.gpu_hours = 2.5;
  s.cold_starts = 3;
  s.max_replicas = 4;
  ServiceInterval a;
  a.start = kT0;
  a.arrivals = 700;
  a.ready_replicas = 2.5;
  ServiceInterval b = a;
  b.start = kT0 + minutes(5);
  b.arrivals = 500;
  s.intervals = {a, b};
  {
    ResultsWriter w(file);
    w.add_service(s);
    w.finish();
  }
  Database db = Database::open(file);
  Statement q = db.prepare(
      "SELECT name, requests, p99_s, slo_p99_s IS NULL, slo_attainment, cold_starts, "
      "max_replicas FROM services");
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.column_text(0), "chat");
  EXPECT_EQ(q.column_int64(1), 1200);
  EXPECT_DOUBLE_EQ(q.column_double(2), 1.5);
  EXPECT_EQ(q.column_int64(3), 1);
  EXPECT_DOUBLE_EQ(q.column_double(4), 0.98);
  EXPECT_EQ(q.column_int64(5), 3);
  EXPECT_EQ(q.column_int64(6), 4);
  Statement i = db.prepare(
      "SELECT start_us, arrivals, ready_replicas FROM service_intervals ORDER BY start_us");
  ASSERT_TRUE(i.step());
  EXPECT_EQ(i.column_int64(0), kT0.micros());
  EXPECT_EQ(i.column_int64(1), 700);
  EXPECT_DOUBLE_EQ(i.column_double(2), 2.5);
  ASSERT_TRUE(i.step());
  EXPECT_EQ(i.column_int64(1), 500);
  EXPECT_FALSE(i.step());
}

TEST_F(ResultsWriterTest, DuplicateQueueNameThrows) {
  ResultsWriter w(path("dup-queue.db"));
  QueueRecord q;
  q.name = "research";
  w.add_queue(q);
  try {
    w.add_queue(q);
    FAIL() << "expected StoreError";
  } catch (const StoreError& e) {
    EXPECT_THAT(e.what(), HasSubstr("queues.name"));
  }
}

TEST_F(ResultsWriterTest, LastMetaAndSummaryValueWins) {
  const std::string file = path("replace.db");
  {
    ResultsWriter w(file);
    w.write_meta("policy", "fifo");
    w.write_meta("policy", "drf");
    w.write_summary("utilisation", 0.1);
    w.write_summary("utilisation", 0.9);
    w.finish();
  }
  Database db = Database::open(file);
  EXPECT_EQ(count_rows(db, "meta"), 2) << "policy, and complete written by finish()";
  Statement q = db.prepare(
      "SELECT (SELECT value FROM meta WHERE key = 'policy'), (SELECT value FROM summary)");
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.column_text(0), "drf");
  EXPECT_DOUBLE_EQ(q.column_double(1), 0.9);
}

}  // namespace
}  // namespace gantry
