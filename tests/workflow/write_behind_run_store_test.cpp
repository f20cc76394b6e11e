// WriteBehindRunStore (workflow/store/write_behind_run_store.hpp): a replay's database is the
// same, row for row, whichever writer wrote it; a run exists once; a writer's failure reaches
// the scheduler's thread; changes the store cannot apply are refused at once.

#include "workflow/store/write_behind_run_store.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <functional>

#include "engine/store/database.hpp"
#include "engine/store/store_error.hpp"
#include "tests/tools/full_disk.hpp"
#include "tests/workflow/runner_test_harness.hpp"

namespace gantry::write_behind_run_store_test {

namespace fs = std::filesystem;
using runner_test::day;
using runner_test::hourly;
using runner_test::manual;
using runner_test::task;

class WriteBehindRunStoreTest : public ::testing::Test {
 protected:
  // mkdtemp(3): a folder of our own, not shared with the same test of another checkout.
  void SetUp() override {
    std::string pattern =
        (fs::temp_directory_path() /
         ("gantry-write-behind-" +
          std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-XXXXXX"))
            .string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr) << pattern;
    dir_ = pattern;
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

// Every row of the four tables of runs, in key order, one line each.
std::string dump(const std::string& path) {
  Database db = Database::open(path, OpenOptions{.create = false});
  std::string out;
  for (const char* sql :
       {"SELECT id, pipeline, logical_us, trigger, state, start_us, end_us, params FROM runs"
        " ORDER BY id",
        "SELECT run_id, position, name, state, cpu_milli, memory_bytes, gpus, gpu_milli"
        " FROM task_instances ORDER BY run_id, position",
        "SELECT run_id, task, idx, attempt_id, start_us, running_us, end_us, state, reason"
        " FROM attempts ORDER BY run_id, task, idx",
        "SELECT seq, at_us, kind, pipeline, logical_us, task, message FROM events ORDER BY seq"}) {
    Statement st = db.prepare(sql);
    while (st.step()) {
      for (int c = 0; c < st.column_count(); ++c)
        out += (st.column_is_null(c) ? std::string("NULL") : st.column_text(c)) + "|";
      out += "\n";
    }
    out += "--\n";
  }
  return out;
}

int64_t count(const std::string& path, const std::string& sql) {
  Database db = Database::open(path, OpenOptions{.create = false});
  Statement st = db.prepare(sql);
  return st.step() ? st.column_int64(0) : -1;
}

// A day of three pipelines with what a replay meets: a catch-up, retries, a failed run rerun
// by an operator after it was written, a manual run with params, a killed run, an injected
// failure and the orchestrator down for a while. `reads` runs in the loop at 04:30 and 09:10,
// while runs are in flight (the write-behind store writes everything there, then updates
// those rows when the runs change again).
void replay_a_day(RunStore& store, const std::function<void()>& reads) {
  auto loop = EventLoop::virtual_time(day("03:00"));
  SimulatedExecutor executor(*loop, /*seed=*/7);
  RunScheduler scheduler(*loop, store, executor);

  PipelineSpec etl = hourly("etl");  // 00:00, 01:00, ... caught up at 03:00 (catchup: true)
  etl.tasks = {task("extract", minutes(10)), task("transform", minutes(20), {"extract"}),
               task("load", minutes(5), {"transform"})};
  etl.tasks[1].simulate.outcomes = {"failed", "succeeded"};  // every run retries transform once
  etl.tasks[1].retry.limit = 2;
  etl.tasks[1].retry.delay = minutes(1);
  PipelineSpec flaky = hourly("flaky");
  flaky.schedule->cron = "30 * * * *";
  flaky.tasks[0].simulate.outcomes = {"failed"};  // never succeeds: every run fails
  PipelineSpec adhoc = manual("adhoc", {task("train", minutes(90))});
  ParamSpec epochs;
  epochs.name = "epochs";
  epochs.type = ParamType::kInt;
  epochs.default_value = "3";
  adhoc.params.push_back(epochs);
  for (const PipelineSpec& p : {etl, flaky, adhoc}) scheduler.add_pipeline(p);
  scheduler.recover();
  scheduler.switch_on();

  OperatorAction a;
  a.at = day("04:00");
  a.kind = ActionKind::kTrigger;
  a.pipeline = "adhoc";
  a.params = {{"epochs", "12"}};
  scheduler.schedule(a);
  a = OperatorAction{};
  a.at = day("05:00");
  a.kind = ActionKind::kRerun;  // its rows were written at 04:30
  a.pipeline = "flaky";
  a.logical_time = day("03:30");
  scheduler.schedule(a);
  a = OperatorAction{};
  a.at = day("06:40");
  a.kind = ActionKind::kFail;  // etl 03:00 runs load, 06:39 to 06:44: it fails at 06:40
  a.pipeline = "etl";
  a.logical_time = day("03:00");
  a.task = "load";
  scheduler.schedule(a);
  a = OperatorAction{};
  a.at = day("07:05");
  a.kind = ActionKind::kKillRun;  // etl 04:00 runs transform, 06:50 to 07:10
  a.pipeline = "etl";
  a.logical_time = day("04:00");
  a.by = "ops";
  scheduler.schedule(a);
  a = OperatorAction{};
  a.at = day("08:00");
  a.kind = ActionKind::kSchedulerDown;
  scheduler.schedule(a);
  a.at = day("08:45");
  a.kind = ActionKind::kSchedulerUp;
  scheduler.schedule(a);
  loop->schedule_at(day("04:30"), reads);
  loop->schedule_at(day("09:10"), reads);
  loop->run_until(day("12:00"));
}

// The same day replayed change by change (SqliteRunStore) and written behind gives the same
// rows in the four tables, ids and event numbers included. The counts say the day did what
// it was meant to: etl has runs 00:00 to 12:00 (13) and flaky 00:30 to 11:30 (12), adhoc 1
// with its params; transform retried in etl's runs, flaky's 03:30 run has 2 attempts (the
// rerun's, after its rows were written at 04:30), etl 03:00 failed by the injected fault and
// etl 04:00 killed, its running attempt saying by whom.
TEST_F(WriteBehindRunStoreTest, ADayOfRunsGivesTheSameDatabase) {
  const std::string direct = path("direct.db"), behind = path("behind.db");
  {
    SqliteRunStore store(direct, RunStoreOptions{.batch = 1, .replay = true});
    replay_a_day(store, [&] { store.load_runs(RunSelection::kAll); });
  }
  {
    SqliteRunStore sqlite(behind, RunStoreOptions{.batch = 1, .replay = true});
    WriteBehindRunStore store(sqlite);
    replay_a_day(store, [&] { store.load_runs(RunSelection::kAll); });
    store.flush();
  }
  EXPECT_EQ(dump(behind), dump(direct));
  EXPECT_EQ(count(behind, "SELECT count(*) FROM runs WHERE pipeline = 'etl'"), 13);
  EXPECT_EQ(count(behind, "SELECT count(*) FROM runs WHERE pipeline = 'flaky'"), 12);
  EXPECT_EQ(count(behind, "SELECT count(*) FROM runs WHERE params = '{\"epochs\":12}'"), 1);
  EXPECT_EQ(count(behind,
                  "SELECT count(*) FROM attempts a JOIN runs r ON r.id = a.run_id"
                  " WHERE r.pipeline = 'flaky' AND r.logical_us = " +
                      std::to_string(day("03:30").micros())),
            2);
  EXPECT_GT(count(behind, "SELECT count(*) FROM attempts WHERE task = 'transform' AND idx = 1"), 0);
  EXPECT_EQ(count(behind, "SELECT count(*) FROM attempts WHERE reason LIKE '%by ops%'"), 1);
  EXPECT_EQ(count(behind,
                  "SELECT count(*) FROM runs WHERE pipeline = 'etl' AND state = 'failed'"
                  " AND logical_us = " +
                      std::to_string(day("03:00").micros())),
            1);
  EXPECT_EQ(count(behind,
                  "SELECT count(*) FROM runs WHERE pipeline = 'etl' AND state = 'killed'"
                  " AND logical_us = " +
                      std::to_string(day("04:00").micros())),
            1);
}

// 140 runs of 2 tasks written in one batch: the rows go into multi-row INSERTs of 128 (runs: 1
// statement and 12 rows one by one; task instances and attempts: 2 statements and 24 rows),
// and the database is the same as change by change. Every 7th run fails: 20 runs, 40
// attempts.
TEST_F(WriteBehindRunStoreTest, ABatchOfManyRunsGivesTheSameDatabase) {
  const auto write = [](RunStore& store) {
    for (int i = 0; i < 140; ++i) {
      gantry::Run run;
      run.pipeline = i % 2 == 0 ? "even" : "odd";
      run.logical_time = day("00:00") + minutes(i);
      run.tasks = {TaskInstance{"a", TaskState::kPending, {}, {}},
                   TaskInstance{"b", TaskState::kPending, {}, {}}};
      ASSERT_TRUE(store.create_run(run));
      const RunKey key{run.pipeline, run.logical_time};
      const Time t = run.logical_time;
      store.update_run(key, RunState::kRunning, t, std::nullopt);
      for (const char* name : {"a", "b"}) {
        store.update_task(key, name, TaskState::kRunning, Resources{500, 1 << 20, 1, 0});
        store.attempt_started(key, name, 0, static_cast<AttemptId>(2 * i + (name[0] - 'a') + 1), t);
        store.attempt_running(key, name, 0, t + seconds(5));
        store.attempt_ended(key, name, 0, t + seconds(30),
                            i % 7 == 0 ? AttemptState::kFailed : AttemptState::kSucceeded,
                            i % 7 == 0 ? "exit code 1" : "");
        store.update_task(key, name, i % 7 == 0 ? TaskState::kFailed : TaskState::kSucceeded,
                          Resources{500, 1 << 20, 1, 0});
      }
      store.update_run(key, i % 7 == 0 ? RunState::kFailed : RunState::kSucceeded, t,
                       t + seconds(30));
    }
  };
  const std::string direct = path("direct.db"), behind = path("behind.db");
  {
    SqliteRunStore store(direct);
    write(store);
  }
  {
    SqliteRunStore sqlite(behind);
    WriteBehindRunStore store(sqlite);
    write(store);
    store.flush();
  }
  EXPECT_EQ(dump(behind), dump(direct));
  EXPECT_EQ(count(behind, "SELECT count(*) FROM runs"), 140);
  EXPECT_EQ(count(behind, "SELECT count(*) FROM attempts WHERE reason = 'exit code 1'"), 40);
}

// create_run() refuses a key it holds, and a key the database holds (an earlier key than the
// pipeline's latest is looked up there); it creates an earlier key nobody has.
TEST_F(WriteBehindRunStoreTest, ARunIsCreatedOnce) {
  const std::string db = path("runs.db");
  SqliteRunStore sqlite(db);
  WriteBehindRunStore store(sqlite);
  gantry::Run run;
  run.pipeline = "etl";
  run.logical_time = day("02:00");
  run.tasks = {TaskInstance{"t", TaskState::kPending, {}, {}}};
  EXPECT_TRUE(store.create_run(run));
  EXPECT_FALSE(store.create_run(run)) << "held";
  store.flush();
  EXPECT_FALSE(store.create_run(run)) << "stored";
  run.logical_time = day("03:00");
  EXPECT_TRUE(store.create_run(run)) << "the latest, held";
  run.logical_time = day("01:00");
  EXPECT_TRUE(store.create_run(run)) << "earlier, but nobody has it";
  EXPECT_FALSE(store.create_run(run));
  EXPECT_EQ(count(db, "SELECT count(*) FROM runs"), 1)
      << "looking up an earlier key writes none of the runs held (03:00 and 01:00)";
  store.flush();
  EXPECT_EQ(count(db, "SELECT count(*) FROM runs"), 3);
  EXPECT_EQ(count(db, "SELECT count(*) FROM task_instances"), 3);
}

// A database that already holds runs is continued: ids go on after its greatest, and a key
// it holds is refused.
TEST_F(WriteBehindRunStoreTest, ContinuesADatabase) {
  const std::string db = path("runs.db");
  gantry::Run run;
  run.pipeline = "etl";
  run.logical_time = day("05:00");
  {
    SqliteRunStore sqlite(db);
    ASSERT_TRUE(sqlite.create_run(run));
  }
  SqliteRunStore sqlite(db);
  WriteBehindRunStore store(sqlite);
  EXPECT_FALSE(store.create_run(run));
  run.logical_time = day("06:00");
  EXPECT_TRUE(store.create_run(run));
  store.flush();
  EXPECT_EQ(count(db, "SELECT max(id) FROM runs"), 2);
  ASSERT_TRUE(store.load_run(RunKey{"etl", day("06:00")}).has_value());
}

// Changes the store cannot apply are refused at once, naming the run: a run nobody created,
// an attempt out of order, an attempt that does not exist, a task the run does not have.
TEST_F(WriteBehindRunStoreTest, RefusesChangesItCannotApply) {
  SqliteRunStore sqlite(path("runs.db"));
  WriteBehindRunStore store(sqlite);
  const RunKey key{"etl", day("02:00")};
  const auto refused = [](const std::function<void()>& change, const std::string& words) {
    try {
      change();
      ADD_FAILURE() << "applied; expected: " << words;
    } catch (const StoreError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  refused([&] { store.update_run(key, RunState::kRunning, day("02:00"), std::nullopt); },
          "run etl 2026-01-01T02:00:00Z, which the database does not hold");
  gantry::Run run;
  run.pipeline = key.pipeline;
  run.logical_time = key.logical_time;
  run.tasks = {TaskInstance{"t", TaskState::kPending, {}, {}}};
  ASSERT_TRUE(store.create_run(run));
  refused([&] { store.attempt_started(key, "t", 1, 1, day("02:00")); }, "follows 0 attempts");
  refused([&] { store.attempt_running(key, "t", 0, day("02:00")); }, "which has 0 attempts");
  refused([&] { store.update_task(key, "nope", TaskState::kRunning, {}); },
          "task 'nope' of run etl 2026-01-01T02:00:00Z, which has no such task");
}

// A writer that fails (the disk is full) stops the scheduler's thread at its next change with
// the writer's error, and every change after it; flush() throws it too. Nothing of the batch
// that failed is in the database.
TEST_F(WriteBehindRunStoreTest, TheWritersFailureReachesTheScheduler) {
  testing::FullDisk::install();
  const std::string db = path("runs.db");
  SqliteRunStore sqlite(db);
  WriteBehindRunStore store(sqlite);
  gantry::Run run;
  run.pipeline = "etl";
  run.tasks = {TaskInstance{"t", TaskState::kPending, {}, {}}};
  testing::FullDisk::set_full(true);
  run.logical_time = day("00:00");
  ASSERT_TRUE(store.create_run(run)) << "held: nothing written yet";
  EXPECT_THROW(store.flush(), StoreError);
  testing::FullDisk::set_full(false);
  run.logical_time = day("01:00");
  try {
    store.create_run(run);
    ADD_FAILURE() << "a change after the writer failed";
  } catch (const StoreError& e) {
    EXPECT_EQ(e.code() & 0xff, StoreError::kFull) << e.what();
  }
  EXPECT_THROW(store.flush(), StoreError);
  EXPECT_EQ(count(db, "SELECT count(*) FROM runs"), 0);
}

}  // namespace gantry::write_behind_run_store_test
