// Issue 8, "nothing lost, nothing wrong": the real program, tried as a hostile user would.
// Foreign files given as output are never deleted; two processes on one runs database do not
// both write it; a restarted backfill reruns what it lost; bad input is exit code 2 naming the
// flag or file; results are all or nothing. Each test states the arithmetic it checks.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/store/database.hpp"
#include "tests/tools/cli_harness.hpp"

namespace {

namespace fs = std::filesystem;

using gantry::testing::CliTest;
using gantry::testing::kGantryFaulty;
using gantry::testing::Outcome;
using gantry::testing::slurp;

constexpr const char* kBackfillDay = " --from 2026-03-01T00:00:00Z --to 2026-03-01T23:00:00Z";
constexpr const char* kRunWindow = " --from 2026-03-02T07:00:00Z --until 2026-03-02T10:00:00Z";

class Reliability : public CliTest {
 protected:
  static std::string etl() {
    return std::string(GANTRY_SOURCE_DIR) + "/scenarios/pipelines/hourly-etl.yaml";
  }
  static std::string quickstart() {
    return std::string(GANTRY_SOURCE_DIR) + "/scenarios/quickstart.yaml";
  }
  std::string file(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return (dir_ / name).string();
  }
  std::string db() const { return (dir_ / "runs.db").string(); }
  int64_t query(const std::string& path, const std::string& sql) {
    gantry::Database d = gantry::Database::open(path, gantry::OpenOptions{.create = false});
    gantry::Statement s = d.prepare(sql);
    return s.step() ? s.column_int64(0) : -1;
  }
  static bool has(const std::string& text, const std::string& needle) {
    return text.find(needle) != std::string::npos;
  }
};

// --- 1. Never delete what Gantry did not create -------------------------------------------

// A pipeline YAML given as --db (the mistake of typing the file twice): refused, exit 2, the
// file unchanged byte for byte, nothing created beside it.
TEST_F(Reliability, RunDbNeverDeletesAForeignFile) {
  const std::string yaml = slurp(etl());
  const std::string victim = file("hourly-etl.yaml", yaml);
  const Outcome o = run("pipeline run " + etl() + kRunWindow + " --db " + victim);
  EXPECT_EQ(o.exit_code(), 2) << o.err;
  EXPECT_TRUE(has(o.err, "--db: " + victim + ": exists and is not an SQLite database")) << o.err;
  EXPECT_EQ(slurp(victim), yaml);
  EXPECT_FALSE(fs::exists(victim + ".lock"));
  EXPECT_FALSE(fs::exists(victim + "-wal"));
  // --replace does not change that: it is about Gantry's own databases.
  EXPECT_EQ(run("pipeline run " + etl() + kRunWindow + " --replace --db " + victim).exit_code(), 2);
  EXPECT_EQ(slurp(victim), yaml);
  // A FIFO stands for device nodes (root could otherwise write into /dev/sda).
  const std::string fifo = (dir_ / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const Outcome f = run("pipeline backfill " + etl() + kBackfillDay + " --db " + fifo);
  EXPECT_EQ(f.exit_code(), 2);
  EXPECT_TRUE(has(f.err, "not a regular file")) << f.err;
}

// A backfill history of 24 runs is not replaced by a replay unless asked (--replace); the
// database of a replay is (it is made again from the same files).
TEST_F(Reliability, ReplayReplacesAHistoryOnlyWithReplace) {
  ASSERT_EQ(run("pipeline backfill " + etl() + kBackfillDay + " --db " + db()).exit_code(), 0);
  ASSERT_EQ(query(db(), "SELECT count(*) FROM runs"), 24);
  const Outcome refused = run("pipeline run " + etl() + kRunWindow + " --db " + db());
  EXPECT_EQ(refused.exit_code(), 2);
  EXPECT_TRUE(has(refused.err, "holds a run history (24 runs")) << refused.err;
  EXPECT_TRUE(has(refused.err, "--replace")) << refused.err;
  EXPECT_EQ(query(db(), "SELECT count(*) FROM runs"), 24) << "the history is whole";

  ASSERT_EQ(run("pipeline run " + etl() + kRunWindow + " --replace --db " + db()).exit_code(), 0);
  EXPECT_EQ(query(db(), "SELECT count(*) FROM runs"), 6)
      << "05:00 .. 10:00, as workflow/README.md shows";
  const Outcome again = run("pipeline run " + etl() + kRunWindow + " --db " + db());
  EXPECT_EQ(again.exit_code(), 0) << again.err;
  EXPECT_EQ(query(db(), "SELECT count(*) FROM runs"), 6);
}

// simulate --out: a results.db that is not Gantry's is left alone, and refused before the
// simulation runs.
TEST_F(Reliability, SimulateNeverReplacesAForeignResultsFile) {
  fs::create_directories(dir_ / "out");
  const std::string notes = file("out/results.db", "my notes\n");
  const Outcome o = run("simulate " + quickstart() + " --out " + (dir_ / "out").string());
  EXPECT_EQ(o.exit_code(), 2);
  EXPECT_TRUE(has(o.err, "--out: " + notes + ": exists and is not an SQLite database")) << o.err;
  EXPECT_EQ(slurp(notes), "my notes\n");
  EXPECT_EQ(o.out, "") << "no report for a run whose results cannot be kept";
}

// --- 2. One writer per runs database ----------------------------------------------------------

// Two backfills of the same day on one database. The first stops itself (SIGSTOP) after 30
// commits, holding the database; the second is started then and must fail at once, exit 2,
// naming the first's pid. The first, continued, finishes alone. hourly-etl has 3 tasks;
// transform fails once per run and succeeds on its retry: 1 + 2 + 1 = 4 attempts per run,
// 24 runs -> exactly 96 attempts, every run succeeded, no attempt starting before the
// previous attempt of its task ended.
TEST_F(Reliability, SecondWriterIsRefusedWhileTheFirstHoldsTheDatabase) {
  const std::string backfill = "pipeline backfill " + etl() + kBackfillDay + " --db " + db();
  const pid_t first = start(backfill, "GANTRY_STOP_AFTER_COMMITS=30", "first", kGantryFaulty);
  ASSERT_GT(first, 0);
  int status = 0;
  ASSERT_EQ(waitpid(first, &status, WUNTRACED), first);
  ASSERT_TRUE(WIFSTOPPED(status)) << "the first backfill must stop holding the database";

  const Outcome second = run(backfill);
  EXPECT_EQ(second.exit_code(), 2) << second.err;
  EXPECT_TRUE(has(second.err, "database in use by pid " + std::to_string(first))) << second.err;

  ASSERT_EQ(::kill(first, SIGCONT), 0);
  ASSERT_EQ(waitpid(first, &status, 0), first);
  const Outcome done = outcome_of(status, "first");
  ASSERT_EQ(done.exit_code(), 0) << done.err;

  EXPECT_EQ(query(db(), "SELECT count(*) FROM runs"), 24);
  EXPECT_EQ(query(db(), "SELECT count(*) FROM runs WHERE state = 'succeeded'"), 24);
  EXPECT_EQ(query(db(), "SELECT count(*) FROM attempts"), 96);
  EXPECT_EQ(query(db(),
                  "SELECT count(*) FROM attempts a JOIN attempts b ON a.run_id = b.run_id"
                  " AND a.task = b.task AND b.idx = a.idx + 1 WHERE b.start_us < a.end_us"),
            0);
  // A succeeded task's last attempt succeeded.
  EXPECT_EQ(query(db(),
                  "SELECT count(*) FROM task_instances t WHERE t.state = 'succeeded' AND"
                  " (SELECT state FROM attempts a WHERE a.run_id = t.run_id AND a.task = t.name"
                  "  ORDER BY idx DESC LIMIT 1) != 'succeeded'"),
            0);
  // Now that it is free, the second may go: nothing left to do.
  const Outcome later = run(backfill);
  EXPECT_EQ(later.exit_code(), 0) << later.err;
  EXPECT_TRUE(has(later.out, "0 runs created")) << later.out;
  EXPECT_EQ(query(db(), "SELECT count(*) FROM attempts"), 96);
}

// A holder killed with SIGKILL leaves its lock file behind but no lock: the next process is
// not blocked (the kernel released the flock when the holder died).
TEST_F(Reliability, AWriterKilledWithSigkillDoesNotBlockTheNext) {
  const std::string backfill = "pipeline backfill " + etl() + kBackfillDay + " --db " + db();
  const pid_t first = start(backfill, "GANTRY_STOP_AFTER_COMMITS=10", "first", kGantryFaulty);
  int status = 0;
  ASSERT_EQ(waitpid(first, &status, WUNTRACED), first);
  ASSERT_TRUE(WIFSTOPPED(status));
  ASSERT_EQ(::kill(first, SIGKILL), 0);
  ASSERT_EQ(waitpid(first, &status, 0), first);
  ASSERT_TRUE(fs::exists(db() + ".lock"));
  const Outcome next = run(backfill);
  EXPECT_EQ(next.exit_code(), 0) << next.err;
  EXPECT_EQ(query(db(), "SELECT count(*) FROM runs WHERE state = 'succeeded'"), 24);
}

// Fault injection lives in the test program gantry-faulty only (issue 9): the shipped program
// ignores the variables that make gantry-faulty kill or stop itself, and finishes the backfill
// of 24 runs.
TEST_F(Reliability, TheShippedProgramInjectsNoFaults) {
  const Outcome o = run("pipeline backfill " + etl() + kBackfillDay + " --db " + db(),
                        "GANTRY_CRASH_AFTER_COMMITS=1 GANTRY_STOP_AFTER_COMMITS=1");
  ASSERT_EQ(o.exit_code(), 0) << o.err;
  EXPECT_EQ(query(db(), "SELECT count(*) FROM runs WHERE state = 'succeeded'"), 24);
}

// --- Restart: lost attempts --------------------------------------------------------------------

// One 10-minute task, no retries; backfill of 00:00..03:00 (4 runs), run at "now" = 03:00, one
// run at a time. With one transaction per change, the 10th commit is the first attempt's start
// (03:00) and the 11th its running mark (the simulated executor runs it at once): killed after
// either, the attempt is open in the database. Restarted:
// - default (--lost-attempts rerun): the attempt is closed as lost and run again, 03:00-03:10,
//   succeeded; all 4 runs succeed, with 5 attempts (one lost).
// - --lost-attempts error: closed as error, no retry (limit 0): the 00:00 run fails.
// After the 12th commit the attempt's end is stored but not the task's state: the restart
// finishes the task without running it again (4 attempts, none lost).
class LostAttempts : public Reliability {
 protected:
  std::string backfill() {
    const std::string yaml = file("one.yaml", R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: nightly}
spec:
  schedule: {cron: "0 * * * *", start: 2026-03-01T00:00:00Z}
  tasks:
  - name: t
    simulate: {duration: 10m}
)");
    return "pipeline backfill " + yaml +
           " --from 2026-03-01T00:00:00Z --to 2026-03-01T03:00:00Z --db " + db();
  }
  void crash_after(int commits) {
    const Outcome killed =
        run(backfill(), "GANTRY_CRASH_AFTER_COMMITS=" + std::to_string(commits), kGantryFaulty);
    ASSERT_TRUE(WIFSIGNALED(killed.status)) << killed.err;
  }
};

TEST_F(LostAttempts, AreRunAgainByDefault) {
  crash_after(10);
  ASSERT_EQ(query(db(), "SELECT count(*) FROM attempts WHERE end_us IS NULL"), 1) << "precondition";
  const Outcome o = run(backfill());
  ASSERT_EQ(o.exit_code(), 0) << o.err;
  EXPECT_EQ(query(db(), "SELECT count(*) FROM runs WHERE state = 'succeeded'"), 4);
  EXPECT_EQ(query(db(), "SELECT count(*) FROM attempts"), 5);
  EXPECT_EQ(query(db(), "SELECT count(*) FROM attempts WHERE state = 'lost'"), 1);
  EXPECT_EQ(query(db(), "SELECT count(*) FROM events WHERE kind = 'lost-attempt'"), 1);
  // Ids are durable: the restart went on after the greatest stored one (1), none was reused.
  EXPECT_EQ(query(db(), "SELECT count(DISTINCT attempt_id) FROM attempts"), 5);
  EXPECT_EQ(query(db(), "SELECT max(attempt_id) FROM attempts"), 5);
}

TEST_F(LostAttempts, EndAsErrorWhenAsked) {
  crash_after(10);
  const Outcome o = run(backfill() + " --lost-attempts error --format json");
  ASSERT_EQ(o.exit_code(), 0) << o.err;
  const auto runs = nlohmann::json::parse(o.out)["runs"];
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(runs[0]["state"], "failed");
  EXPECT_EQ(runs[0]["tasks"][0]["attempts"][0]["state"], "error");
  EXPECT_EQ(runs[1]["state"], "succeeded");
}

TEST_F(LostAttempts, AFinishedAttemptIsNotRunAgain) {
  crash_after(12);
  ASSERT_EQ(query(db(), "SELECT count(*) FROM attempts WHERE end_us IS NULL"), 0) << "precondition";
  ASSERT_EQ(query(db(), "SELECT count(*) FROM task_instances WHERE state = 'running'"), 1)
      << "precondition";
  const Outcome o = run(backfill());
  ASSERT_EQ(o.exit_code(), 0) << o.err;
  EXPECT_EQ(query(db(), "SELECT count(*) FROM runs WHERE state = 'succeeded'"), 4);
  EXPECT_EQ(query(db(), "SELECT count(*) FROM attempts"), 4);
}

// --- Restart: time never goes back (issue 22) ----------------------------------------------------

// Ten days of three shipped pipeline files backfilled, 00:00 on the 1st to 23:00 on the 10th
// (hourly-etl: 9 x 24 + 24 = 240 runs; retries-and-timeouts: 3 pipelines x 10 daily runs;
// pools: reports every 10 minutes, 9 x 144 + 23 x 6 + 1 = 1,435 runs, and a daily train, 10). The
// backlog runs after the window's end, so a backfill killed half-way had run its clock beyond --to;
// the same command resumed started again at --to, and the attempts it found running ended (lost)
// before they started, and run-timeout's run timeout was counted from the past (it succeeded, where
// the uninterrupted backfill fails it). Killed with kill -9 after 2,500 commits (the 1,715 runs are
// created, attempts run), 6,000, 9,000, 12,000 and 15,000 (the whole backfill is 10,000 to 20,000
// commits), then resumed: every run ends in the state the uninterrupted backfill gives it, nothing
// ends before it starts, and what happens after the kill starts no earlier than the latest instant
// stored before it.
TEST_F(Reliability, ABackfillResumedAfterKillNineNeverGoesBackInTimeAndEndsTheSame) {
  const std::string dir = std::string(GANTRY_SOURCE_DIR) + "/scenarios/pipelines/";
  const std::string backfill = "pipeline backfill " + dir + "hourly-etl.yaml " + dir +
                               "retries-and-timeouts.yaml " + dir +
                               "pools.yaml --from 2026-01-01T00:00:00Z --to 2026-01-10T23:00:00Z";
  const std::string whole = (dir_ / "whole.db").string();
  ASSERT_EQ(run(backfill + " --db " + whole).exit_code(), 0);
  const auto states = [](const std::string& path) {
    std::map<std::string, std::string> out;  // "pipeline logical_us" -> state
    gantry::Database d = gantry::Database::open(path, gantry::OpenOptions{.create = false});
    gantry::Statement s = d.prepare("SELECT pipeline, logical_us, state FROM runs");
    while (s.step())
      out[s.column_text(0) + " " + std::to_string(s.column_int64(1))] = s.column_text(2);
    return out;
  };
  const std::map<std::string, std::string> expected = states(whole);
  ASSERT_EQ(expected.size(), 240u + 30u + 1'435u + 10u);
  const std::string latest =
      "SELECT max(v) FROM (SELECT max(end_us) AS v FROM runs UNION ALL SELECT max(start_us) FROM "
      "runs UNION ALL SELECT max(start_us) FROM attempts UNION ALL SELECT max(running_us) FROM "
      "attempts UNION ALL SELECT max(end_us) FROM attempts UNION ALL SELECT max(at_us) FROM "
      "events)";
  for (const int commits : {2'500, 6'000, 9'000, 12'000, 15'000}) {
    SCOPED_TRACE(commits);
    const std::string db = (dir_ / ("killed-" + std::to_string(commits) + ".db")).string();
    const Outcome killed =
        run(backfill + " --db " + db, "GANTRY_CRASH_AFTER_COMMITS=" + std::to_string(commits),
            kGantryFaulty);
    ASSERT_TRUE(WIFSIGNALED(killed.status)) << killed.err;
    const int64_t latest_before = query(db, latest);
    const int64_t last_id = query(db, "SELECT max(attempt_id) FROM attempts");
    ASSERT_GT(query(db, "SELECT count(*) FROM attempts WHERE end_us IS NULL"), 0)
        << "precondition: the kill caught attempts running";
    const Outcome resumed = run(backfill + " --db " + db);
    ASSERT_EQ(resumed.exit_code(), 0) << resumed.err;
    const std::map<std::string, std::string> got = states(db);
    std::vector<std::string> differ;  // "pipeline logical_us: state, expected state"
    for (const auto& [run, state] : expected)
      if (got.count(run) == 0 || got.at(run) != state)
        differ.push_back(run + ": " + (got.count(run) ? got.at(run) : "missing") + ", expected " +
                         state);
    EXPECT_EQ(got.size(), expected.size());
    EXPECT_TRUE(differ.empty()) << differ.size() << " runs differ, first " << differ.front();
    EXPECT_EQ(query(db, "SELECT count(*) FROM attempts WHERE end_us < start_us"), 0);
    EXPECT_EQ(query(db, "SELECT count(*) FROM runs WHERE end_us < start_us"), 0);
    EXPECT_EQ(query(db, "SELECT count(*) FROM attempts WHERE state = 'lost' AND end_us < " +
                            std::to_string(latest_before)),
              0);
    EXPECT_EQ(
        query(db, "SELECT count(*) FROM attempts WHERE attempt_id > " + std::to_string(last_id) +
                      " AND start_us < " + std::to_string(latest_before)),
        0);
  }
}

// --- 6. validate: no false "ok" ------------------------------------------------------------------

TEST_F(Reliability, ValidateFolderLoadsItsYamlFiles) {
  fs::create_directories(dir_ / "empty");
  const Outcome empty = run("pipeline validate " + (dir_ / "empty").string());
  EXPECT_EQ(empty.exit_code(), 2);
  EXPECT_TRUE(has(empty.err, "holds no *.yaml or *.yml file")) << empty.err;

  fs::create_directories(dir_ / "broken");
  file("broken/a.yaml", "apiVersion: gantry.dev/v1\nkind: Pipeline\n");
  file("broken/b.yml", "tasks: [\n");
  file("broken/notes.txt", "not loaded\n");
  const Outcome broken = run("pipeline validate " + (dir_ / "broken").string());
  EXPECT_EQ(broken.exit_code(), 2);
  EXPECT_EQ(broken.out, "");
  EXPECT_TRUE(has(broken.err, "a.yaml:1:1: metadata: missing required field")) << broken.err;
  EXPECT_TRUE(has(broken.err, "b.yml:")) << broken.err;
  EXPECT_FALSE(has(broken.err, "notes.txt")) << broken.err;

  fs::create_directories(dir_ / "good");
  fs::copy_file(etl(), dir_ / "good" / "etl.yaml");
  fs::copy_file(std::string(GANTRY_SOURCE_DIR) + "/scenarios/pipelines/pools.yaml",
                dir_ / "good" / "pools.yml");
  const Outcome good = run("pipeline validate " + (dir_ / "good").string());
  EXPECT_EQ(good.exit_code(), 0) << good.err;
  EXPECT_EQ(good.out.rfind("ok: ", 0), 0u) << good.out;
  EXPECT_FALSE(has(good.out, "ok: 0 pipelines")) << good.out;
}

TEST_F(Reliability, ValidateRefusesAnEmptyFile) {
  const Outcome empty = run("pipeline validate " + file("empty.yaml", ""));
  EXPECT_EQ(empty.exit_code(), 2);
  EXPECT_TRUE(has(empty.err, "empty.yaml:1:1: the file is empty")) << empty.err;
  const Outcome comments = run("pipeline validate " + file("c.yaml", "# nothing yet\n"));
  EXPECT_EQ(comments.exit_code(), 2);
  EXPECT_TRUE(has(comments.err, "c.yaml:1:1: the file declares no Pipeline and no Pool"))
      << comments.err;
}

// --- 7. Atomic results: compare refuses what simulate did not finish ---------------------------

TEST_F(Reliability, CompareRefusesIncompleteAndForeignDatabases) {
  ASSERT_EQ(run("simulate " + quickstart() + " --out " + (dir_ / "a").string()).exit_code(), 0);
  fs::create_directories(dir_ / "b");
  fs::copy_file(dir_ / "a" / "results.db", dir_ / "b" / "results.db");
  {
    // What a copy taken half-way, or a file of the version before, looks like: no mark.
    gantry::Database d = gantry::Database::open((dir_ / "b" / "results.db").string());
    d.exec("DELETE FROM meta WHERE key = 'complete'");
  }
  const std::string a = (dir_ / "a").string(), b = (dir_ / "b").string();
  const Outcome incomplete = run("compare " + a + " " + b);
  EXPECT_EQ(incomplete.exit_code(), 2);
  EXPECT_TRUE(has(incomplete.err, "results.db is incomplete")) << incomplete.err;
  EXPECT_EQ(incomplete.out, "") << "no table of zeros";

  ASSERT_EQ(run("pipeline run " + etl() + kRunWindow + " --db " + db()).exit_code(), 0);
  const Outcome runs = run("compare " + a + " " + db());
  EXPECT_EQ(runs.exit_code(), 2);
  EXPECT_TRUE(has(runs.err, "is not a Gantry results database")) << runs.err;

  const Outcome text = run("compare " + a + " " + file("x.db", "hello\n"));
  EXPECT_EQ(text.exit_code(), 2);
  EXPECT_TRUE(has(text.err, "not an SQLite database")) << text.err;
}

// --- 9. Exit codes: 2 and a message naming the flag, file or word --------------------------------

TEST_F(Reliability, CommandLineMistakesAreExitCodeTwo) {
  const Outcome bogus = run("bogus");
  EXPECT_EQ(bogus.exit_code(), 2);
  EXPECT_TRUE(has(bogus.err,
                  "unknown command 'bogus'; known: simulate, tune, sweep, sweep-worker, plan, "
                  "compare, pipeline"))
      << bogus.err;
  const Outcome sub = run("pipeline valdate x.yaml");
  EXPECT_EQ(sub.exit_code(), 2);
  EXPECT_TRUE(has(sub.err, "unknown command 'valdate'; known: validate, run, backfill")) << sub.err;
  EXPECT_EQ(run("simulate").exit_code(), 2) << "a required argument missing (CLI11 said 106)";
  EXPECT_EQ(run("simulate " + quickstart() + " --format xml").exit_code(), 2) << "CLI11 said 105";
  EXPECT_EQ(run("simulate " + quickstart() + " --bogus").exit_code(), 2) << "CLI11 said 109";
  EXPECT_EQ(run("--help").exit_code(), 0);
  EXPECT_EQ(run("pipeline run --help").exit_code(), 0);
}

// 2^64−1 is what "-1" became; 2^63 is one past what a scenario file accepts for spec.seed.
TEST_F(Reliability, SeedOutsideZeroToTwoToTheSixtyThreeIsRefused) {
  for (const char* seed : {"-1", "9223372036854775808", "18446744073709551615", "1e3"}) {
    const Outcome o =
        run("simulate " + quickstart() + " --seed " + seed + " --out " + (dir_ / "r").string());
    EXPECT_EQ(o.exit_code(), 2) << seed;
    EXPECT_TRUE(has(o.err, "--seed: expected an integer from 0 to 9223372036854775807")) << o.err;
    const Outcome p =
        run("pipeline run " + etl() + kRunWindow + " --seed " + seed + " --db " + db());
    EXPECT_EQ(p.exit_code(), 2) << seed;
  }
  EXPECT_FALSE(fs::exists(dir_ / "r"));
}

// Output paths that cannot be used are the user's mistake (2, naming the flag), not internal
// errors (1). (Running as root, a read-only folder is writable; a path under a regular file
// fails for everyone.)
TEST_F(Reliability, UnusableOutputPathsNameTheFlag) {
  const std::string plain = file("plain", "x");
  const Outcome out = run("simulate " + quickstart() + " --out " + plain);
  EXPECT_EQ(out.exit_code(), 2);
  EXPECT_TRUE(has(out.err, "--out: '" + plain + "' exists and is not a folder")) << out.err;
  const Outcome under = run("simulate " + quickstart() + " --out " + plain + "/sub");
  EXPECT_EQ(under.exit_code(), 2);
  EXPECT_TRUE(has(under.err, "--out: cannot create the folder")) << under.err;
  const Outcome db = run("pipeline run " + etl() + kRunWindow + " --db " + plain + "/runs.db");
  EXPECT_EQ(db.exit_code(), 2);
  EXPECT_TRUE(has(db.err, "--db: ")) << db.err;
  EXPECT_FALSE(has(db.err, "internal error")) << db.err;
}

// --- 10. Runner inputs ---------------------------------------------------------------------------

TEST_F(Reliability, BackfillOfAnUnknownPipelineNamesTheKnownOnes) {
  const Outcome o =
      run("pipeline backfill " + etl() + kBackfillDay + " --pipeline nosuch --db " + db());
  EXPECT_EQ(o.exit_code(), 2);
  EXPECT_TRUE(has(o.err, "--pipeline: no pipeline named 'nosuch' in the files; known: hourly-etl"))
      << o.err;
  EXPECT_FALSE(fs::exists(db())) << "refused before anything was written";
}

// --until 10:00; an action at 10:30 does not happen. Not an error (a replay stopped early to
// look at the state before an action is legitimate, see pipeline_examples_test's dependsOnPast
// case) but not silent either: a warning naming file, line and field. The action
// at 08:30 happens: a manual run (not at 08:00, where the scheduled tick already has the run).
TEST_F(Reliability, EventsAfterUntilAreReportedNotDropped) {
  const std::string events =
      file("events.yaml",
           "- {at: 2026-03-02T08:30:00Z, action: trigger, pipeline: hourly-etl}\n"
           "- {at: 2026-03-02T10:30:00Z, action: trigger, pipeline: hourly-etl}\n");
  const Outcome o = run("pipeline run " + etl() + kRunWindow + " --events " + events +
                        " --format json --db " + db());
  ASSERT_EQ(o.exit_code(), 0) << o.err;
  EXPECT_TRUE(has(o.err, "warning: " + events + ":2:")) << o.err;
  EXPECT_TRUE(has(o.err, "after the run ends (2026-03-02T10:00:00Z), so it does not happen"))
      << o.err;
  EXPECT_EQ(query(db(), "SELECT count(*) FROM runs WHERE trigger = 'manual'"), 1);
  // A mistake in an action after --until is still an error.
  const std::string bad =
      file("bad.yaml", "- {at: 2026-03-02T11:00:00Z, action: trigger, pipeline: nosuch}\n");
  EXPECT_EQ(
      run("pipeline run " + etl() + kRunWindow + " --events " + bad + " --db " + db()).exit_code(),
      2);
}

}  // namespace
