#include "sim/results_export.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "engine/store/database.hpp"
#include "engine/store/statement.hpp"
#include "tests/sim/queue_fixtures.hpp"
#include "tests/sim/sim_fixtures.hpp"

namespace gantry {
namespace results_export_test {

using namespace gantry::testing;

class ResultsExport : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::path(GANTRY_BINARY_DIR) / "test-tmp" / "results-export" / info->name();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // The run of tests/sim/queue_fixtures.hpp written as `gantry simulate` writes it.
  void write_lab(const std::string& file, const ScenarioSpec& scenario) {
    const SimulationRun run = lab_run();
    write_results_database(file, scenario, run, summarize(run),
                           summarize_queues(run.log, scenario.policy.admission));
  }

  std::filesystem::path dir_;
};

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The admission columns of jobs: queue, first admission (kT0 = 1,767,225,600,000,000 µs),
// replicas and lost GPU-seconds, NULL where the job has none.
TEST_F(ResultsExport, JobsCarryQueueAdmissionReplicasAndLoss) {
  const std::string file = path("results.db");
  write_lab(file, lab_scenario());
  Database db = Database::open(file, {.create = false, .read_only = true});
  EXPECT_EQ(db.user_version(), 4);
  Statement jobs = db.prepare(
      "SELECT name, queue, admitted_us, replicas, lost_gpu_seconds, state FROM jobs ORDER BY id");
  ASSERT_TRUE(jobs.step());
  EXPECT_EQ(jobs.column_text(0), "train-a");
  EXPECT_EQ(jobs.column_text(1), "research");
  EXPECT_EQ(jobs.column_int64(2), 1'767'225'660'000'000);  // kT0 + 60 s
  EXPECT_EQ(jobs.column_int64(3), 2);
  EXPECT_DOUBLE_EQ(jobs.column_double(4), 2700.0);
  EXPECT_EQ(jobs.column_text(5), "finished");
  ASSERT_TRUE(jobs.step());
  EXPECT_EQ(jobs.column_int64(2), 1'767'225'870'000'000);  // kT0 + 270 s
  EXPECT_EQ(jobs.column_text(5), "inactive");
  ASSERT_TRUE(jobs.step());
  ASSERT_TRUE(jobs.step());
  EXPECT_EQ(jobs.column_text(0), "eval");
  EXPECT_EQ(jobs.column_text(1), "prod");
  EXPECT_TRUE(jobs.column_is_null(2)) << "never admitted";
  EXPECT_EQ(jobs.column_int64(3), 0);
  EXPECT_DOUBLE_EQ(jobs.column_double(4), 0.0);
  EXPECT_FALSE(jobs.step());
}

// One row per eviction, job by job in order; by_job_id NULL for the PodsReadyTimeouts.
TEST_F(ResultsExport, EvictionsTable) {
  const std::string file = path("results.db");
  write_lab(file, lab_scenario());
  Database db = Database::open(file, {.create = false, .read_only = true});
  Statement ev =
      db.prepare("SELECT job_id, at_us, reason, by_job_id FROM evictions ORDER BY rowid");
  struct Row {
    int64_t job, at_us;
    const char* reason;
    int64_t by;  // -1: NULL
  };
  // kT0 = 1,767,225,600 s; + 270 s, + 55 min = 3,300 s, + 570 s, + 30 min = 1,800 s.
  const Row expected[] = {{0, 1'767'225'870'000'000, "Preempted", 1},
                          {0, 1'767'228'900'000'000, "InCohortReclamation", 2},
                          {1, 1'767'226'170'000'000, "PodsReadyTimeout", -1},
                          {1, 1'767'227'400'000'000, "PodsReadyTimeout", -1}};
  for (const Row& r : expected) {
    ASSERT_TRUE(ev.step());
    EXPECT_EQ(ev.column_int64(0), r.job);
    EXPECT_EQ(ev.column_int64(1), r.at_us);
    EXPECT_EQ(ev.column_text(2), r.reason);
    if (r.by < 0) {
      EXPECT_TRUE(ev.column_is_null(3));
    } else {
      EXPECT_EQ(ev.column_int64(3), r.by);
    }
  }
  EXPECT_FALSE(ev.step());
}

// The queues table holds the figures of queue_summary_test.cpp, NULL for scratch's cohort and
// waits; jobs_inactive_at_end joins the summary (train-b).
TEST_F(ResultsExport, QueuesTableAndInactiveCount) {
  const std::string file = path("results.db");
  write_lab(file, lab_scenario());
  Database db = Database::open(file, {.create = false, .read_only = true});
  Statement q = db.prepare(
      "SELECT name, cohort, jobs, admitted, wait_p50_s, wait_p95_s, gpu_hours_used, "
      "gpu_hours_borrowed, gpu_hours_lent, preemptions_suffered, preemptions_caused, "
      "lost_gpu_hours FROM queues ORDER BY rowid");
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.column_text(0), "research");
  EXPECT_EQ(q.column_text(1), "lab");
  EXPECT_EQ(q.column_int64(2), 2);
  EXPECT_EQ(q.column_int64(3), 2);
  EXPECT_DOUBLE_EQ(q.column_double(4), 150.0);  // waits {60, 240}: 60 + 0.5·180
  EXPECT_DOUBLE_EQ(q.column_double(5), 231.0);  // 60 + 0.95·180
  EXPECT_DOUBLE_EQ(q.column_double(6), 12.0);   // 43,200 / 3,600
  EXPECT_DOUBLE_EQ(q.column_double(7), 4.0);    // 14,400 / 3,600
  EXPECT_DOUBLE_EQ(q.column_double(8), 0.0);
  EXPECT_EQ(q.column_int64(9), 2);
  EXPECT_EQ(q.column_int64(10), 1);
  EXPECT_DOUBLE_EQ(q.column_double(11), 0.75);  // 2,700 / 3,600
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.column_text(0), "prod");
  EXPECT_DOUBLE_EQ(q.column_double(4), 300.0);
  EXPECT_DOUBLE_EQ(q.column_double(8), 4.0);
  EXPECT_EQ(q.column_int64(10), 1);
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.column_text(0), "scratch");
  EXPECT_TRUE(q.column_is_null(1));
  EXPECT_EQ(q.column_int64(2), 0);
  EXPECT_TRUE(q.column_is_null(4));
  EXPECT_TRUE(q.column_is_null(5));
  EXPECT_FALSE(q.step());

  Statement inactive = db.prepare("SELECT value FROM summary WHERE metric = ?");
  inactive.bind_all("jobs_inactive_at_end");
  ASSERT_TRUE(inactive.step());
  EXPECT_DOUBLE_EQ(inactive.column_double(0), 1.0);
}

// Without admission the queues table is empty, a job's queue NULL, and the summary has no
// inactive count (so `gantry compare` of two runs without admission shows what it showed).
TEST_F(ResultsExport, NoQueueRowsWithoutAdmission) {
  const std::string file = path("results.db");
  SimulationRun run = lab_run();
  for (JobSpec& j : run.jobs) j.queue.clear();
  ScenarioSpec scenario = lab_scenario();
  scenario.policy.admission = AdmissionConfig{};
  write_results_database(file, scenario, run, summarize(run),
                         summarize_queues(run.log, scenario.policy.admission));
  Database db = Database::open(file, {.create = false, .read_only = true});
  Statement q = db.prepare(
      "SELECT (SELECT count(*) FROM queues), (SELECT count(*) FROM jobs WHERE queue IS NULL), "
      "(SELECT count(*) FROM summary WHERE metric = 'jobs_inactive_at_end')");
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.column_int64(0), 0);
  EXPECT_EQ(q.column_int64(1), 4);
  EXPECT_EQ(q.column_int64(2), 0);
}

// Determinism: the same run written twice gives the same bytes; a different figure does not.
TEST_F(ResultsExport, SameRunGivesIdenticalBytes) {
  write_lab(path("a.db"), lab_scenario());
  write_lab(path("b.db"), lab_scenario());
  const std::string a = file_bytes(path("a.db"));
  ASSERT_GT(a.size(), 4096u);
  EXPECT_TRUE(a == file_bytes(path("b.db"))) << "results files differ";

  SimulationRun run = lab_run();
  run.log.jobs[0].evicted[0].by = 2;
  const ScenarioSpec scenario = lab_scenario();
  write_results_database(path("c.db"), scenario, run, summarize(run),
                         summarize_queues(run.log, scenario.policy.admission));
  EXPECT_FALSE(a == file_bytes(path("c.db")));
}

// Faults and pools: the timeline of world_fault_test.cpp's node failure (job A killed at 60 s,
// 1 failure, 1034.27208 GPU-s allocated, 870.224 useful) and the pool run of
// node_pools_test.cpp (2 nodes × 620 s at 10 an hour), as the database stores them.
TEST_F(ResultsExport, FaultsPoolsAndReliabilityColumns) {
  JobSpec a = training_job("a", Framework::kPyTorch,
                           {role(RoleKind::kMaster, 1, 4), role(RoleKind::kWorker, 1, 4)},
                           Duration{}, 1000, milliseconds(100), 1'500'000'000);
  a.work.checkpoint_every = seconds(10);
  ScenarioSpec faulty = scenario_with(dgx_rack(2), {a});
  faulty.sim.restart_delay = seconds(30);
  FaultEvent down;
  down.at = kT0 + seconds(60);
  down.action = FaultAction::kNodeDown;
  down.node = 0;
  down.cause = "injected";
  faulty.injected_faults = {down};
  const SimulationRun run = run_simulation(faulty);
  const std::string file = path("faults.db");
  write_results_database(file, faulty, run, summarize(run), {});
  Database db = Database::open(file, {.create = false, .read_only = true});
  Statement jobs =
      db.prepare("SELECT failures, resizes, allocated_gpu_seconds, useful_gpu_seconds FROM jobs");
  ASSERT_TRUE(jobs.step());
  EXPECT_EQ(jobs.column_int64(0), 1);
  EXPECT_EQ(jobs.column_int64(1), 0);
  EXPECT_NEAR(jobs.column_double(2), 1034.27208, 1e-6);
  EXPECT_NEAR(jobs.column_double(3), 870.224, 1e-6);
  Statement faults = db.prepare("SELECT at_us, action, node, rack, gpu, cause, jobs FROM faults");
  ASSERT_TRUE(faults.step());
  EXPECT_EQ(faults.column_int64(0), 1'767'225'660'000'000);  // kT0 + 60 s
  EXPECT_EQ(faults.column_text(1), "node-down");
  EXPECT_EQ(faults.column_text(2), "r1-n000");
  EXPECT_TRUE(faults.column_is_null(3));
  EXPECT_TRUE(faults.column_is_null(4));
  EXPECT_EQ(faults.column_text(5), "injected");
  EXPECT_EQ(faults.column_int64(6), 1);
  EXPECT_FALSE(faults.step());
  Statement goodput = db.prepare("SELECT value FROM summary WHERE metric = 'goodput'");
  ASSERT_TRUE(goodput.step());
  EXPECT_NEAR(goodput.column_double(0), 870.224 / 1034.27208, 1e-9);

  ScenarioSpec pooled = scenario_with(
      dgx_rack(0), {training_job("j", Framework::kTensorFlow, {role(RoleKind::kWorker, 2, 8)},
                                 Duration{}, 100, milliseconds(100), 0)});
  NodePoolSpec od;
  od.name = "od";
  od.max_nodes = 4;
  od.provisioning = DelayDistribution::constant(minutes(3));
  od.price_per_hour = 10;
  pooled.autoscaling.pools = {od};
  pooled.horizon = minutes(20);  // past the scale-down at 810 s
  const SimulationRun pool_run = run_simulation(pooled);
  const std::string pool_file = path("pools.db");
  write_results_database(pool_file, pooled, pool_run, summarize(pool_run), {});
  Database pdb = Database::open(pool_file, {.create = false, .read_only = true});
  Statement pools = pdb.prepare(
      "SELECT name, capacity, price_per_hour, nodes_added, nodes_removed, peak_nodes, reclaims, "
      "node_hours, cost FROM pools");
  ASSERT_TRUE(pools.step());
  EXPECT_EQ(pools.column_text(0), "od");
  EXPECT_EQ(pools.column_text(1), "on-demand");
  EXPECT_DOUBLE_EQ(pools.column_double(2), 10);
  EXPECT_EQ(pools.column_int64(3), 2);
  EXPECT_EQ(pools.column_int64(4), 2);
  EXPECT_EQ(pools.column_int64(5), 2);
  EXPECT_EQ(pools.column_int64(6), 0);
  EXPECT_NEAR(pools.column_double(7), 2 * 620.0 / 3600, 1e-9);
  EXPECT_NEAR(pools.column_double(8), 10 * 2 * 620.0 / 3600, 1e-9);
  EXPECT_FALSE(pools.step());
}

}  // namespace results_export_test
}  // namespace gantry
