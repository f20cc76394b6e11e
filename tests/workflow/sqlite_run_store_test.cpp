#include "workflow/store/sqlite_run_store.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "engine/store/database.hpp"
#include "tests/tools/fault_injection.hpp"
#include "tests/tools/full_disk.hpp"
#include "workflow/runner/memory_run_store.hpp"

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
  // mkdtemp(3): a folder of our own, not shared with the same test of another checkout.
  void SetUp() override {
    std::string pattern =
        (fs::temp_directory_path() /
         ("gantry-store-" +
          std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-XXXXXX"))
            .string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr) << pattern;
    dir_ = pattern;
    path_ = (dir_ / "runs.db").string();
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  int64_t count(const std::string& sql) {
    Database db = Database::open(path_, OpenOptions{.create = false});
    Statement s = db.prepare(sql);
    return s.step() ? s.column_int64(0) : -1;
  }

  fs::path dir_;
  std::string path_;
};

// A run's params are kept as written (JSON literals) and read back after a reopen; a run
// without params has none. purge_pipeline() deletes one pipeline's runs, tasks, attempts and
// events and says how many runs: etl had 2, the other pipeline's run stays.
TEST_F(SqliteRunStoreTest, ParamsRoundTripAndPurgeDeletesOnePipeline) {
  {
    SqliteRunStore store(path_);
    gantry::Run with = make_run("etl", 0);
    with.params = {{"epochs", "3"}, {"lr", "0.5"}, {"name", "\"a \\\"b\\\"\""}, {"on", "true"}};
    ASSERT_TRUE(store.create_run(with));
    ASSERT_TRUE(store.create_run(make_run("etl", 1)));
    ASSERT_TRUE(store.create_run(make_run("other", 0)));
    store.attempt_started(RunKey{"etl", kT0}, "extract", 0, 1, kT0);
    store.record_event(SchedulerEvent{kT0, SchedulerEventKind::kTrigger, "etl", kT0, "", ""});
  }
  SqliteRunStore store(path_);
  const std::optional<gantry::Run> back = store.load_run(RunKey{"etl", kT0});
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->params,
            (std::map<std::string, std::string>{
                {"epochs", "3"}, {"lr", "0.5"}, {"name", "\"a \\\"b\\\"\""}, {"on", "true"}}));
  EXPECT_TRUE(store.load_run(RunKey{"etl", kT0 + hours(1)})->params.empty());
  EXPECT_EQ(store.count_runs("etl"), 2);
  EXPECT_EQ(store.purge_pipeline("etl"), 2);
  EXPECT_EQ(store.count_runs("etl"), 0);
  EXPECT_EQ(store.count_runs("other"), 1);
  EXPECT_EQ(count("SELECT count(*) FROM task_instances"), 2) << "other's two tasks";
  EXPECT_EQ(count("SELECT count(*) FROM attempts"), 0);
  EXPECT_EQ(count("SELECT count(*) FROM events"), 0);
}

// The clock of a process that continues a database starts no earlier than latest_instant()
// (issue 22: a server restarted at the latest run instant ended a lost attempt before its
// start). A run at 00:00 that went running at 00:01, its attempt asked for at 00:04, running at
// 00:05, and an event at 00:07: the latest instant is 00:07; without the attempts and the event
// it was 00:01.
TEST_F(SqliteRunStoreTest, LatestInstantCoversAttemptsAndEvents) {
  SqliteRunStore store(path_);
  EXPECT_EQ(store.latest_instant(), std::nullopt);
  ASSERT_TRUE(store.create_run(make_run("etl", 0)));
  const RunKey key{"etl", kT0};
  store.update_run(key, RunState::kRunning, kT0 + minutes(1), std::nullopt);
  EXPECT_EQ(store.latest_instant(), kT0 + minutes(1));
  EXPECT_EQ(store.max_attempt_id(), 0u);
  store.attempt_started(key, "extract", 0, 1, kT0 + minutes(4));
  EXPECT_EQ(store.latest_instant(), kT0 + minutes(4));
  EXPECT_EQ(store.max_attempt_id(), 1u);
  store.attempt_running(key, "extract", 0, kT0 + minutes(5));
  EXPECT_EQ(store.latest_instant(), kT0 + minutes(5));
  store.record_event(
      SchedulerEvent{kT0 + minutes(7), SchedulerEventKind::kBackfill, "etl", kT0, "", "window"});
  EXPECT_EQ(store.latest_instant(), kT0 + minutes(7));
}

// A full disk (issue 22): a change that cannot be written is undone whole, and is not
// committed later with the next change. Run 00:00 is written; the disk fills and run 01:00
// (a run row and two task rows) fails; space comes back and run 00:00 goes running: the
// database holds run 00:00, running, with its 2 tasks, and no trace of run 01:00 (its run row
// had been inserted when a task row failed; the next COMMIT wrote it, without tasks, and a
// restart could not load it). A group of changes is undone whole too.
TEST_F(SqliteRunStoreTest, AChangeThatCannotBeWrittenIsUndoneWhole) {
  testing::FullDisk::install();
  SqliteRunStore store(path_);
  ASSERT_TRUE(store.create_run(make_run("etl", 0)));
  testing::FullDisk::set_full(true);
  try {
    store.create_run(make_run("etl", 1));
    ADD_FAILURE() << "written on a full disk";
  } catch (const StoreError& e) {
    EXPECT_EQ(e.code() & 0xff, StoreError::kFull) << e.what();
  }
  testing::FullDisk::set_full(false);
  store.update_run(RunKey{"etl", kT0}, RunState::kRunning, kT0, std::nullopt);
  EXPECT_EQ(count("SELECT count(*) FROM runs"), 1);
  EXPECT_EQ(count("SELECT count(*) FROM runs WHERE state = 'running'"), 1);
  EXPECT_EQ(count("SELECT count(*) FROM task_instances"), 2);

  store.begin_group();
  ASSERT_TRUE(store.create_run(make_run("etl", 2)));
  store.update_run(RunKey{"etl", kT0}, RunState::kSucceeded, kT0, kT0 + hours(1));
  store.rollback_group();
  EXPECT_EQ(count("SELECT count(*) FROM runs"), 1);
  EXPECT_EQ(count("SELECT count(*) FROM runs WHERE state = 'running'"), 1);
  store.begin_group();
  ASSERT_TRUE(store.create_run(make_run("etl", 2)));
  store.commit_group();
  EXPECT_EQ(count("SELECT count(*) FROM runs"), 2);
  EXPECT_EQ(store.load_runs(RunSelection::kAll).size(), 2u) << "the database loads";
}

TEST_F(SqliteRunStoreTest, RoundTripsRunsTasksAndAttempts) {
  {
    SqliteRunStore store(path_);
    ASSERT_TRUE(store.create_run(make_run("etl", 0)));
    const RunKey key{"etl", kT0};
    store.update_run(key, RunState::kRunning, kT0 + minutes(1), std::nullopt);
    store.update_task(key, "extract", TaskState::kRunning, Resources{1'500, 2ll << 30, 0, 500});
    store.attempt_started(key, "extract", 0, 7, kT0 + minutes(1));
    store.attempt_running(key, "extract", 0, kT0 + minutes(2));
    store.attempt_ended(key, "extract", 0, kT0 + minutes(3), AttemptState::kFailed,
                        "pod etl-extract-0 failed: exit code 137 (OOMKilled)");
    store.attempt_started(key, "extract", 1, 9, kT0 + minutes(4));
    store.record_event(
        SchedulerEvent{kT0, SchedulerEventKind::kBackfill, "etl", kT0, "", "window"});
  }
  SqliteRunStore reopened(path_);
  const std::vector<gantry::Run> runs = reopened.load_runs(gantry::RunSelection::kAll);
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
  // Ids and running starts (schema 3): queued 00:01-00:02, then running; the second attempt
  // is still queued.
  EXPECT_EQ(r.tasks[0].attempts[0].id, 7u);
  EXPECT_EQ(r.tasks[0].attempts[0].running, kT0 + minutes(2));
  EXPECT_EQ(r.tasks[0].attempts[1].id, 9u);
  EXPECT_FALSE(r.tasks[0].attempts[1].running.has_value());
  // Why the first ended (schema 4); the second has not ended.
  EXPECT_EQ(r.tasks[0].attempts[0].reason, "pod etl-extract-0 failed: exit code 137 (OOMKilled)");
  EXPECT_EQ(r.tasks[0].attempts[1].reason, "");
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
    store.set_commit_hook(gantry::testing::signal_self_after(5, SIGKILL));
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

// What a second writer or a bug could do to the history is refused, not applied: a second
// attempt with an index already used (it used to replace the first, INSERT OR REPLACE), and
// updates of rows that do not exist (they used to change nothing, silently).
TEST_F(SqliteRunStoreTest, HistoryIsNeverOverwritten) {
  SqliteRunStore store(path_);
  store.create_run(make_run("etl", 0));
  const RunKey key{"etl", kT0};
  store.attempt_started(key, "extract", 0, 1, kT0);
  store.attempt_ended(key, "extract", 0, kT0 + minutes(1), AttemptState::kFailed, "");
  try {
    store.attempt_started(key, "extract", 0, 2, kT0 + minutes(2));
    FAIL() << "expected StoreError";
  } catch (const StoreError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr(path_ + ": UNIQUE constraint failed: attempts"));
  }
  // An attempt id is never given twice, not even to another task.
  try {
    store.attempt_started(key, "load", 0, 1, kT0 + minutes(2));
    FAIL() << "expected StoreError";
  } catch (const StoreError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("UNIQUE constraint failed: attempts.attempt_id"));
  }
  EXPECT_THROW(store.attempt_running(key, "extract", 3, kT0), StoreError);
  EXPECT_THROW(store.attempt_ended(key, "extract", 5, kT0, AttemptState::kFailed, ""), StoreError);
  EXPECT_THROW(store.update_task(key, "nosuch", TaskState::kRunning, {}), StoreError);
  store.flush();
  EXPECT_EQ(count("SELECT count(*) FROM attempts WHERE state = 'failed'"), 1);
}

// One writer: a second store on the same database, in this process or another, is refused at
// once, naming the holder.
TEST_F(SqliteRunStoreTest, OneWriterAtATime) {
  SqliteRunStore first(path_);
  try {
    SqliteRunStore second(path_);
    FAIL() << "expected StoreError";
  } catch (const StoreError& e) {
    EXPECT_THAT(e.what(),
                ::testing::HasSubstr("database in use by pid " + std::to_string(::getpid())));
  }
  EXPECT_TRUE(first.create_run(make_run("etl", 0))) << "the holder goes on";
}

// A file that is not a runs database is never written into, nor replaced by a replay, even
// with `replace`: a pipeline YAML given as --db by mistake, another program's database.
TEST_F(SqliteRunStoreTest, RefusesWhatIsNotARunsDatabase) {
  const std::string yaml = "apiVersion: gantry.dev/v1\nkind: Pipeline\n";
  { std::ofstream(path_) << yaml; }
  EXPECT_THROW(SqliteRunStore store(path_), StoreError);
  EXPECT_THROW(SqliteRunStore store(path_, RunStoreOptions{.replay = true, .replace = true}),
               StoreError);
  std::ifstream in(path_);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), yaml);

  const std::string other = (dir_ / "app.db").string();
  {
    Database db = Database::open(other);
    db.exec("CREATE TABLE accounts(id); INSERT INTO accounts VALUES (1)");
  }
  EXPECT_THROW(SqliteRunStore store(other), StoreError);
  Database db = Database::open(other, OpenOptions{.create = false});
  Statement tables = db.prepare("SELECT count(*) FROM sqlite_master");
  ASSERT_TRUE(tables.step());
  EXPECT_EQ(tables.column_int64(0), 1) << "no migration ran inside another program's database";
}

// A replay replaces the database of an earlier replay, but not a history (a backfill's):
// that needs `replace`. The history of 744 runs stays whole until then.
TEST_F(SqliteRunStoreTest, ReplayReplacesOnlyAReplayUnlessAsked) {
  const RunStoreOptions replay{.replay = true};
  {
    SqliteRunStore first(path_, replay);
    first.create_run(make_run("etl", 0));
  }
  {
    SqliteRunStore again(path_, replay);  // replaced without asking
    EXPECT_TRUE(again.create_run(make_run("etl", 1)));
  }
  EXPECT_EQ(count("SELECT count(*) FROM runs"), 1);
  {
    SqliteRunStore history(path_);  // a backfill continues it: it is a history now
    for (int h = 2; h < 746; ++h) history.create_run(make_run("etl", h));
  }
  EXPECT_EQ(count("SELECT count(*) FROM runs"), 745);
  try {
    SqliteRunStore replaced(path_, replay);
    FAIL() << "expected RunHistoryExists";
  } catch (const RunHistoryExists& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("holds a run history (745 runs"));
  }
  EXPECT_EQ(count("SELECT count(*) FROM runs"), 745);
  { SqliteRunStore replaced(path_, RunStoreOptions{.replay = true, .replace = true}); }
  EXPECT_EQ(count("SELECT count(*) FROM runs"), 0);
}

// A replay killed in the middle of a commit (its journal in memory) may leave its run tables
// damaged: the next replay still replaces the file, as its meta table says it is a replay.
// The damage here: the root pages of the runs table and of its UNIQUE index overwritten with
// zeros.
TEST_F(SqliteRunStoreTest, AReplayReplacesADamagedReplay) {
  const RunStoreOptions replay{.replay = true};
  {
    SqliteRunStore first(path_, replay);
    for (int h = 0; h < 200; ++h) ASSERT_TRUE(first.create_run(make_run("etl", h)));
  }
  const int64_t page_size = count("PRAGMA page_size");
  for (const char* name : {"runs", "sqlite_autoindex_runs_1"}) {
    const int64_t root =
        count(std::string("SELECT rootpage FROM sqlite_schema WHERE name = '") + name + "'");
    ASSERT_GT(root, 1) << name;
    std::fstream file(path_, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp((root - 1) * page_size);
    const std::string zeros(static_cast<size_t>(page_size), '\0');
    file.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
  }
  EXPECT_ANY_THROW(count("SELECT count(*) FROM runs")) << "the runs table is damaged";
  {
    SqliteRunStore again(path_, replay);
    EXPECT_TRUE(again.create_run(make_run("etl", 0)));
  }
  EXPECT_EQ(count("SELECT count(*) FROM runs"), 1);
}

// A database written by the version before issue 8 (no application_id, no meta table) opens,
// keeps its runs and is stamped, and is migrated to schema 5; a replay treats it as a history.
TEST_F(SqliteRunStoreTest, OpensADatabaseOfTheVersionBefore) {
  {
    Database db = Database::open(path_, OpenOptions{.wal = true});
    db.migrate(
        {"CREATE TABLE pipelines(name TEXT PRIMARY KEY, namespace TEXT, file TEXT,"
         " schedule TEXT, timezone TEXT);"
         "CREATE TABLE runs(id INTEGER PRIMARY KEY, pipeline TEXT NOT NULL,"
         " logical_us INTEGER NOT NULL, trigger TEXT NOT NULL, state TEXT NOT NULL,"
         " start_us INTEGER, end_us INTEGER, UNIQUE (pipeline, logical_us));"
         "CREATE TABLE task_instances(run_id INTEGER NOT NULL REFERENCES runs(id),"
         " position INTEGER, name TEXT NOT NULL, state TEXT NOT NULL, cpu_milli INTEGER,"
         " memory_bytes INTEGER, gpus INTEGER, gpu_milli INTEGER,"
         " PRIMARY KEY (run_id, name)) WITHOUT ROWID;"
         "CREATE TABLE attempts(run_id INTEGER NOT NULL, task TEXT NOT NULL,"
         " idx INTEGER NOT NULL, start_us INTEGER NOT NULL, end_us INTEGER,"
         " state TEXT NOT NULL, PRIMARY KEY (run_id, task, idx)) WITHOUT ROWID;"
         "CREATE TABLE events(seq INTEGER PRIMARY KEY, at_us INTEGER, kind TEXT,"
         " pipeline TEXT, logical_us INTEGER, task TEXT, message TEXT);"});
    db.exec("INSERT INTO runs VALUES (1, 'etl', 0, 'backfill', 'succeeded', 0, 1)");
    db.exec("INSERT INTO task_instances VALUES (1, 0, 'extract', 'succeeded', 0, 0, 0, 0)");
    db.exec("INSERT INTO attempts VALUES (1, 'extract', 0, 0, 1, 'succeeded')");
  }
  EXPECT_THROW(SqliteRunStore replay(path_, RunStoreOptions{.replay = true}), RunHistoryExists);
  {
    SqliteRunStore store(path_);
    const std::vector<gantry::Run> runs = store.load_runs(gantry::RunSelection::kAll);
    ASSERT_EQ(runs.size(), 1u);
    // Schema 3 added attempt ids and running starts: an old attempt has neither.
    const Attempt& old = runs[0].tasks.at(0).attempts.at(0);
    EXPECT_EQ(old.id, 0u);
    EXPECT_FALSE(old.running.has_value());
    EXPECT_EQ(old.reason, "") << "schema 4 added reasons";
    EXPECT_TRUE(runs[0].params.empty()) << "schema 5 added params";
    EXPECT_TRUE(store.create_run(make_run("etl", 1)));
    store.attempt_started(RunKey{"etl", kT0 + hours(1)}, "extract", 0, 1, kT0);
  }
  EXPECT_EQ(count("PRAGMA user_version"), 5);
  EXPECT_EQ(count("SELECT count(*) FROM attempts WHERE attempt_id IS NULL"), 1);
  EXPECT_EQ(count("PRAGMA application_id"), static_cast<int64_t>(kRunsDatabase.application_id));
}

// load_runs() refuses a database whose tables do not fit together (written by hand, or
// damaged) with a StoreError naming it, instead of std::map::at's "map::at" or dropping rows.
TEST_F(SqliteRunStoreTest, LoadRefusesInconsistentTables) {
  {
    SqliteRunStore store(path_);
    store.create_run(make_run("etl", 0));
  }
  const auto load_fails_with = [this](const std::string& sql, const std::string& message) {
    {
      Database db = Database::open(path_, OpenOptions{.create = false});
      db.exec("PRAGMA foreign_keys = OFF; " + sql);
    }
    SqliteRunStore store(path_);
    try {
      store.load_runs(gantry::RunSelection::kAll);
      ADD_FAILURE() << "expected StoreError for " << sql;
    } catch (const StoreError& e) {
      EXPECT_THAT(e.what(), ::testing::StartsWith(path_ + ": ")) << sql;
      EXPECT_THAT(e.what(), ::testing::HasSubstr(message)) << sql;
      // The file is sound; SQLite's "database disk image is malformed" would send the user
      // looking for a damaged disk (issue 22).
      EXPECT_THAT(e.what(), ::testing::Not(::testing::HasSubstr("malformed"))) << sql;
    }
  };
  load_fails_with(
      "INSERT INTO attempts(run_id, task, idx, start_us, end_us, state) VALUES (1, 'extract', 1, "
      "0, NULL, 'running')",
      "attempt 1 of task 'extract' of run id 1 follows 0 attempts");
  load_fails_with(
      "DELETE FROM attempts; INSERT INTO attempts(run_id, task, idx, start_us, end_us, state) "
      "VALUES (1, 'nosuch', 0, 0, NULL, 'running')",
      "attempt of task 'nosuch', which run id 1 does not have");
  load_fails_with(
      "DELETE FROM attempts; INSERT INTO task_instances VALUES (9, 0, 'x', 'pending', 0, 0, 0, 0)",
      "task instance 'x' of run id 9, which does not exist");
  load_fails_with("DELETE FROM task_instances WHERE run_id = 9; UPDATE runs SET state = 'exploded'",
                  "unknown run state 'exploded'");
}

// What a restart under SchedulerCore::KeepFinished::kRecent reads, the same from both stores.
// Hours of 2026-01-01, by hand:
//   a0 schedule succeeded · a1 schedule running · a2 schedule succeeded · a3 manual succeeded
//   b0 schedule succeeded · b1 manual skipped · b2 backfill failed
//   c0 manual queued
// kActive = unfinished (a1, c0) + newest per pipeline (a3, b2, c0) + newest that counts for
// the schedule (a2; b1 as skipped; c none) = a1 a2 a3 b1 b2 c0.
void fill_for_selection(RunStore& store) {
  const auto add = [&](const std::string& p, int hour, RunTrigger trigger, RunState state) {
    Run r = make_run(p, hour);
    r.trigger = trigger;
    r.state = state;
    ASSERT_TRUE(store.create_run(r));
  };
  add("a", 0, RunTrigger::kSchedule, RunState::kSucceeded);
  add("a", 1, RunTrigger::kSchedule, RunState::kRunning);
  add("a", 2, RunTrigger::kSchedule, RunState::kSucceeded);
  add("a", 3, RunTrigger::kManual, RunState::kSucceeded);
  add("b", 0, RunTrigger::kSchedule, RunState::kSucceeded);
  add("b", 1, RunTrigger::kManual, RunState::kSkipped);
  add("b", 2, RunTrigger::kBackfill, RunState::kFailed);
  add("c", 0, RunTrigger::kManual, RunState::kQueued);
  store.attempt_started(RunKey{"a", kT0}, "load", 0, 4, kT0 + minutes(2));
}

std::vector<std::string> names(std::vector<Run> runs) {
  std::vector<std::string> out;
  for (const Run& r : runs)
    out.push_back(r.pipeline + std::to_string((r.logical_time - kT0).micros() / 3'600'000'000));
  std::sort(out.begin(), out.end());
  return out;
}

void check_selection(const RunStore& store) {
  using V = std::vector<std::string>;
  EXPECT_EQ(names(store.load_runs(RunSelection::kAll)),
            (V{"a0", "a1", "a2", "a3", "b0", "b1", "b2", "c0"}));
  EXPECT_EQ(names(store.load_runs(RunSelection::kActive)), (V{"a1", "a2", "a3", "b1", "b2", "c0"}));
  const std::optional<Run> a0 = store.load_run(RunKey{"a", kT0});
  ASSERT_TRUE(a0.has_value());
  EXPECT_EQ(a0->state, RunState::kSucceeded);
  ASSERT_EQ(a0->tasks.size(), 2u);
  EXPECT_EQ(a0->tasks[1].name, "load");
  ASSERT_EQ(a0->tasks[1].attempts.size(), 1u);
  EXPECT_EQ(a0->tasks[1].attempts[0].id, 4u);
  EXPECT_FALSE(store.load_run(RunKey{"a", kT0 + hours(5)}).has_value());
  EXPECT_EQ(names({*store.load_run_before("a", kT0 + hours(2))}), (V{"a1"}));
  EXPECT_EQ(names({*store.load_run_before("a", kT0 + minutes(1))}), (V{"a0"}));
  EXPECT_EQ(names({*store.load_run_before("b", kT0 + hours(100))}), (V{"b2"}));
  EXPECT_FALSE(store.load_run_before("a", kT0).has_value());
  EXPECT_FALSE(store.load_run_before("b", kT0).has_value()) << "a's runs are not b's";
  EXPECT_FALSE(store.load_run_before("zz", kT0 + hours(100)).has_value());
}

TEST(RunStoreSelection, MemoryStore) {
  MemoryRunStore store;
  fill_for_selection(store);
  check_selection(store);
}

TEST_F(SqliteRunStoreTest, SelectionsOfRunsForARestart) {
  {
    SqliteRunStore store(path_);
    fill_for_selection(store);
    check_selection(store);
  }
  SqliteRunStore reopened(path_);
  check_selection(reopened);
  EXPECT_EQ(reopened.count_runs_by_state(),
            (std::map<std::string, int64_t>{
                {"failed", 1}, {"queued", 1}, {"running", 1}, {"skipped", 1}, {"succeeded", 4}}));
}

// The store keeps row ids only for runs in flight; a finished run (or one of an earlier
// process) is looked up, and a change to a run that does not exist is refused.
TEST_F(SqliteRunStoreTest, ChangesToFinishedAndEarlierRunsFindTheirRow) {
  {
    SqliteRunStore store(path_);
    ASSERT_TRUE(store.create_run(make_run("etl", 0)));
    store.update_run(RunKey{"etl", kT0}, RunState::kFailed, kT0, kT0 + minutes(5));
    // After it finished: a rerun clears a task and queues the run again.
    store.update_task(RunKey{"etl", kT0}, "load", TaskState::kPending, Resources{});
    store.update_run(RunKey{"etl", kT0}, RunState::kQueued, kT0, std::nullopt);
  }
  SqliteRunStore reopened(path_);
  reopened.update_run(RunKey{"etl", kT0}, RunState::kSucceeded, kT0, kT0 + minutes(9));
  const std::optional<gantry::Run> run = reopened.load_run(RunKey{"etl", kT0});
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->state, RunState::kSucceeded);
  EXPECT_EQ(run->end, kT0 + minutes(9));
  EXPECT_EQ(run->tasks[1].state, TaskState::kPending);
  EXPECT_THROW(reopened.update_run(RunKey{"etl", kT0 + hours(1)}, RunState::kFailed, kT0, kT0),
               StoreError);
}

}  // namespace
}  // namespace gantry
