#include "workflow/store/sqlite_run_store.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>

#include "engine/store/database.hpp"

namespace gantry {
namespace {

namespace fs = std::filesystem;

const Time kT0 = Time::from_micros(1'767'225'600'000'000);  // 2026-01-01T00:00:00Z

Run make_run(const std::string& pipeline, int hour) {
  Run r;
  r.pipeline = pipeline;
  r.logical_time = kT0 + hours(hour);
  r.trigger = RunTrigger::kBackfill;
  for (const char* name : {"extract", "load"}) {
    TaskInstance t;
    t.name = name;
    t.requests = Resources{2'000, 4ll << 30, 0, 500};
    r.tasks.push_back(t);
  }
  return r;
}

class SqliteRunStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gantry-store-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "runs.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  int64_t count(const std::string& sql) {
    Database db = Database::open(path_, OpenOptions{.create = false});
    Statement s = db.prepare(sql);
    return s.step() ? s.column_int64(0) : -1;
  }

  fs::path dir_;
  std::string path_;
};

TEST_F(SqliteRunStoreTest, RoundTripsRunsTasksAndAttempts) {
  {
    SqliteRunStore store(path_);
    ASSERT_TRUE(store.create_run(make_run("etl", 0)));
    const RunKey key{"etl", kT0};
    store.update_run(key, RunState::kRunning, kT0 + minutes(1), std::nullopt);
    store.update_task(key, "extract", TaskState::kRunning, Resources{1'500, 2ll << 30, 0, 500});
    store.attempt_started(key, "extract", 0, kT0 + minutes(1));
    store.attempt_ended(key, "extract", 0, kT0 + minutes(3), AttemptState::kFailed);
    store.attempt_started(key, "extract", 1, kT0 + minutes(4));
    store.record_event(SchedulerEvent{kT0, SchedulerEventKind::kBackfill, "etl", kT0, "", "window"});
  }
  SqliteRunStore reopened(path_);
  const std::vector<gantry::Run> runs = reopened.load_runs();
  ASSERT_EQ(runs.size(), 1u);
  const gantry::Run& r = runs[0];
  EXPECT_EQ(r.pipeline, "etl");
  EXPECT_EQ(r.logical_time, kT0);
  EXPECT_EQ(r.trigger, RunTrigger::kBackfill);
  EXPECT_EQ(r.state, RunState::kRunning);
  EXPECT_EQ(r.start, kT0 + minutes(1));
  EXPECT_FALSE(r.end.has_value());
  ASSERT_EQ(r.tasks.size(), 2u);
  EXPECT_EQ(r.tasks[0].name, "extract");
  EXPECT_EQ(r.tasks[0].state, TaskState::kRunning);
  EXPECT_EQ(r.tasks[0].requests, (Resources{1'500, 2ll << 30, 0, 500}));
  ASSERT_EQ(r.tasks[0].attempts.size(), 2u);
  EXPECT_EQ(r.tasks[0].attempts[0].state, AttemptState::kFailed);
  EXPECT_EQ(r.tasks[0].attempts[0].end, kT0 + minutes(3));
  EXPECT_EQ(r.tasks[0].attempts[1].state, AttemptState::kRunning);
  EXPECT_EQ(r.tasks[1].name, "load");
  EXPECT_EQ(r.tasks[1].state, TaskState::kPending);
  EXPECT_EQ(count("SELECT count(*) FROM events WHERE kind = 'backfill'"), 1);
}

TEST_F(SqliteRunStoreTest, CreatesARunOnlyOnceEvenAcrossReopen) {
  {
    SqliteRunStore store(path_);
    EXPECT_TRUE(store.create_run(make_run("etl", 0)));
    EXPECT_FALSE(store.create_run(make_run("etl", 0)));
    EXPECT_TRUE(store.create_run(make_run("other", 0))) << "same time, other pipeline";
  }
  SqliteRunStore reopened(path_);
  EXPECT_FALSE(reopened.create_run(make_run("etl", 0)));
  EXPECT_EQ(count("SELECT count(*) FROM runs"), 2);
  EXPECT_EQ(count("SELECT count(*) FROM task_instances"), 4);
}

// With batching, changes become visible to other connections only when the batch commits.
TEST_F(SqliteRunStoreTest, BatchesCommitTogether) {
  SqliteRunStore store(path_, 3);
  store.create_run(make_run("etl", 0));
  store.create_run(make_run("etl", 1));
  EXPECT_EQ(count("SELECT count(*) FROM runs"), 0) << "two changes of a batch of three";
  store.create_run(make_run("etl", 2));
  EXPECT_EQ(count("SELECT count(*) FROM runs"), 3);
  store.create_run(make_run("etl", 3));
  store.flush();
  EXPECT_EQ(count("SELECT count(*) FROM runs"), 4);
}

// A child process creates ten runs, one transaction each, and is killed with SIGKILL right
// after its fifth commit. The parent reopens the database: exactly the five committed runs are
// there, whole (run row and both task rows), and creating all ten again adds exactly the five
// missing ones.
TEST_F(SqliteRunStoreTest, SurvivesKillNineWithoutLossOrDuplicates) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    SqliteRunStore store(path_);
    store.crash_after_commits(5);
    for (int h = 0; h < 10; ++h) store.create_run(make_run("etl", h));
    _exit(0);  // not reached: the fifth commit kills the process
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the child must die by signal";
  EXPECT_EQ(WTERMSIG(status), SIGKILL);

  EXPECT_EQ(count("SELECT count(*) FROM runs"), 5);
  EXPECT_EQ(count("SELECT count(*) FROM task_instances"), 10);
  SqliteRunStore store(path_);
  int created = 0;
  for (int h = 0; h < 10; ++h) created += store.create_run(make_run("etl", h)) ? 1 : 0;
  EXPECT_EQ(created, 5);
  EXPECT_EQ(count("SELECT count(*) FROM runs"), 10);
  EXPECT_EQ(count("SELECT count(DISTINCT logical_us) FROM runs"), 10);
}

}  // namespace
}  // namespace gantry
