// End-to-end tests of `gantry simulate`: the real program, run as a child process, with its
// exit code, standard output, standard error and results database checked.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/time.hpp"
#include "engine/store/database.hpp"
#include "engine/store/statement.hpp"
#include "tests/tools/cli_harness.hpp"

namespace {

namespace fs = std::filesystem;

using gantry::Database;
using gantry::Duration;
using gantry::format_duration;
using gantry::format_rfc3339;
using gantry::Statement;
using gantry::Time;
using gantry::testing::CliTest;
using gantry::testing::Outcome;
using gantry::testing::slurp;

class SimulateCommand : public CliTest {
 protected:
  std::string write_file(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }

  static std::string quickstart() {
    return std::string(GANTRY_SOURCE_DIR) + "/scenarios/quickstart.yaml";
  }

  // What the jobs and events tables of a results database say, read with plain SQL.
  struct JobRows {
    size_t finished = 0;
    std::vector<double> wait_s, jct_s;  // of finished jobs, from submit_us, start_us and end_us
    int64_t last_end_us = 0;
    int64_t events = 0;
  };
  static JobRows read_jobs(const fs::path& db_path) {
    JobRows rows;
    Database db = Database::open(db_path.string(), {.create = false, .read_only = true});
    Statement jobs =
        db.prepare("SELECT submit_us, start_us, end_us FROM jobs WHERE state = 'finished'");
    while (jobs.step()) {
      const int64_t submit = jobs.column_int64(0), start = jobs.column_int64(1),
                    end = jobs.column_int64(2);
      ++rows.finished;
      rows.wait_s.push_back(static_cast<double>(start - submit) / 1e6);
      rows.jct_s.push_back(static_cast<double>(end - submit) / 1e6);
      rows.last_end_us = std::max(rows.last_end_us, end);
    }
    Statement events = db.prepare("SELECT count(*) FROM events");
    if (events.step()) rows.events = events.column_int64(0);
    return rows;
  }
  // count, mean, p50, p95, p99 and max of `xs` by the report's rule: linear interpolation
  // between closest ranks (Hyndman & Fan's method 7), h = (n − 1)·p.
  static void expect_figures(const nlohmann::json& j, std::vector<double> xs,
                             const std::string& what) {
    std::sort(xs.begin(), xs.end());
    const auto pct = [&](double p) {
      const double h = static_cast<double>(xs.size() - 1) * p;
      const size_t lo = static_cast<size_t>(h);
      return lo + 1 < xs.size() ? xs[lo] + (h - static_cast<double>(lo)) * (xs[lo + 1] - xs[lo])
                                : xs[lo];
    };
    double sum = 0;
    for (double x : xs) sum += x;
    EXPECT_EQ(j["count"], xs.size()) << what;
    EXPECT_NEAR(j["mean"].get<double>(), sum / static_cast<double>(xs.size()), 1e-6) << what;
    EXPECT_NEAR(j["p50"].get<double>(), pct(0.50), 1e-6) << what;
    EXPECT_NEAR(j["p95"].get<double>(), pct(0.95), 1e-6) << what;
    EXPECT_NEAR(j["p99"].get<double>(), pct(0.99), 1e-6) << what;
    EXPECT_NEAR(j["max"].get<double>(), xs.back(), 1e-6) << what;
  }
  static std::string iso_utc(int64_t us) { return format_rfc3339(Time::from_micros(us)); }
  static std::string fmt_duration(double s) { return format_duration(Duration::from_seconds(s)); }
  static std::string fmt_pct(double ratio) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %%", ratio * 100);
    return buf;
  }
};

// The JSON's figures are recomputed here from the jobs table of results.db (submit, start and
// end of each job), with the percentile rule the report documents: linear interpolation
// between closest ranks (engine/metrics/distribution.hpp).
TEST_F(SimulateCommand, JsonReportFiguresMatchTheJobsTable) {
  const Outcome o =
      run("simulate " + quickstart() + " --format json --out " + (dir_ / "r").string());
  ASSERT_EQ(o.exit_code(), 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["scenario"], "quickstart");
  EXPECT_EQ(j["seed"], 42);
  EXPECT_EQ(j["cluster"]["nodes"], 32);  // scenarios/quickstart.yaml: 32 nodes of 8 A100-80G
  EXPECT_EQ(j["cluster"]["gpus"], 256);
  EXPECT_EQ(j["policy"]["placement"], "binpack");

  const JobRows rows = read_jobs(dir_ / "r" / "results.db");
  ASSERT_EQ(rows.finished, 600u) << "the quickstart's 600 jobs all finish";
  EXPECT_EQ(j["jobs"]["total"], 600);
  EXPECT_EQ(j["jobs"]["finished"], rows.finished);
  EXPECT_EQ(j["jobs"]["running_at_end"], 0);
  EXPECT_EQ(j["jobs"]["queued_at_end"], 0);
  expect_figures(j["wait_s"], rows.wait_s, "wait_s");
  expect_figures(j["jct_s"], rows.jct_s, "jct_s");
  EXPECT_EQ(j["end"], iso_utc(rows.last_end_us)) << "the run ends when the last job does";
  EXPECT_EQ(j["events"], rows.events);
  EXPECT_EQ(j["results"], (dir_ / "r" / "results.db").string());
  EXPECT_EQ(o.out.find('\r'), std::string::npos) << "no progress bar when not on a terminal";
  EXPECT_EQ(o.err, "") << "nothing on stderr when piped";
}

TEST_F(SimulateCommand, SameSeedGivesByteIdenticalResults) {
  const Outcome a =
      run("simulate " + quickstart() + " --format json --out " + (dir_ / "a").string());
  const Outcome b =
      run("simulate " + quickstart() + " --format json --out " + (dir_ / "b").string());
  ASSERT_EQ(a.exit_code(), 0) << a.err;
  ASSERT_EQ(b.exit_code(), 0) << b.err;
  const std::string db_a = slurp(dir_ / "a" / "results.db");
  EXPECT_GT(db_a.size(), 10'000u);
  EXPECT_TRUE(db_a == slurp(dir_ / "b" / "results.db")) << "results databases differ";
  auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  ja.erase("results");
  jb.erase("results");
  EXPECT_EQ(ja.dump(), jb.dump());
}

TEST_F(SimulateCommand, SeedFlagChangesTheRun) {
  const Outcome a =
      run("simulate " + quickstart() + " --format json --out " + (dir_ / "a").string());
  const Outcome b =
      run("simulate " + quickstart() + " --seed 43 --format json --out " + (dir_ / "b").string());
  ASSERT_EQ(b.exit_code(), 0) << b.err;
  EXPECT_EQ(nlohmann::json::parse(b.out)["seed"], 43);
  EXPECT_NE(nlohmann::json::parse(a.out)["fingerprint"],
            nlohmann::json::parse(b.out)["fingerprint"]);
}

TEST_F(SimulateCommand, PolicyFlagOverridesPlacement) {
  const Outcome o = run("simulate " + quickstart() + " --policy spread --format json --out " +
                        (dir_ / "r").string());
  ASSERT_EQ(o.exit_code(), 0) << o.err;
  EXPECT_EQ(nlohmann::json::parse(o.out)["policy"]["placement"], "spread");
}

TEST_F(SimulateCommand, UnknownPolicyIsABadInputError) {
  const Outcome o =
      run("simulate " + quickstart() + " --policy tetris --out " + (dir_ / "r").string());
  EXPECT_EQ(o.exit_code(), 2);
  EXPECT_NE(o.err.find("unknown placement policy 'tetris'"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("binpack"), std::string::npos) << "lists the known policies: " << o.err;
}

TEST_F(SimulateCommand, BadScenarioNamesFileLineAndField) {
  const std::string file = write_file("bad.yaml",
                                      "apiVersion: gantry.dev/v1\n"
                                      "kind: Scenario\n"
                                      "metadata: {name: bad}\n"
                                      "spec:\n"
                                      "  seed: lots\n");
  const Outcome o = run("simulate " + file + " --out " + (dir_ / "r").string());
  EXPECT_EQ(o.exit_code(), 2);
  EXPECT_NE(o.err.find(file + ":5:9"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("spec.seed"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(dir_ / "r")) << "no results for a scenario that did not load";
}

TEST_F(SimulateCommand, MissingFileIsReported) {
  const Outcome o = run("simulate " + (dir_ / "nope.yaml").string());
  EXPECT_NE(o.exit_code(), 0);
  EXPECT_NE(o.err.find("nope.yaml"), std::string::npos) << o.err;
}

// The text report prints the same figures as the JSON (same run, same seed), rounded for
// people: the wait and JCT percentiles, the job counts and the GPU allocation.
TEST_F(SimulateCommand, TextReportShowsTheSameFiguresAsTheJson) {
  const Outcome text = run("simulate " + quickstart() + " --out " + (dir_ / "t").string());
  const Outcome json =
      run("simulate " + quickstart() + " --format json --out " + (dir_ / "j").string());
  ASSERT_EQ(text.exit_code(), 0) << text.err;
  ASSERT_EQ(json.exit_code(), 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  for (const char* needle : {"Scenario   quickstart (seed 42)", "256 × A100-80G", "results.db"})
    EXPECT_NE(text.out.find(needle), std::string::npos) << needle << "\n" << text.out;
  const std::string alloc = fmt_pct(j["gpu"]["allocation_ratio"].get<double>());
  EXPECT_NE(text.out.find(alloc), std::string::npos) << alloc << "\n" << text.out;
  for (const char* metric : {"wait_s", "jct_s"})
    for (const char* key : {"mean", "p50", "p95", "p99", "max"}) {
      const std::string shown = fmt_duration(j[metric][key].get<double>());
      EXPECT_NE(text.out.find(shown), std::string::npos)
          << metric << "." << key << " = " << shown << "\n"
          << text.out;
    }
}

// --policy and --seed narrow a fragmentation experiment to one policy and one seed; the JSON
// has the documented shape and the plot, curves and database are written.
TEST_F(SimulateCommand, ExperimentJsonForOnePolicyAndSeed) {
  const std::string scenario =
      std::string(GANTRY_SOURCE_DIR) + "/scenarios/openb-fragmentation.yaml";
  const Outcome o = run("simulate " + scenario + " --policy fgd --seed 3 --format json --out " +
                        (dir_ / "r").string());
  ASSERT_EQ(o.exit_code(), 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  ASSERT_EQ(j["policies"].size(), 1u);
  const auto& fgd = j["policies"][0];
  EXPECT_EQ(fgd["name"], "FGD");
  EXPECT_EQ(fgd["seeds"], 1);
  ASSERT_EQ(fgd["arrival_pct"].size(), 131u);
  EXPECT_EQ(fgd["arrival_pct"][0], 0);
  EXPECT_EQ(fgd["arrival_pct"][130], 130);
  for (const char* key :
       {"unallocated_gpu_pct_mean", "unallocated_gpu_pct_sd", "fragmentation_pct_mean"})
    EXPECT_EQ(fgd[key].size(), 131u) << key;
  // Level 0 averages the pods that arrive below 0.5 % of capacity, all of which fit.
  EXPECT_GT(fgd["unallocated_gpu_pct_mean"][0].get<double>(), 99.5);
  EXPECT_LT(fgd["unallocated_gpu_pct_mean"][0].get<double>(), 100.0);
  EXPECT_EQ(fgd["unallocated_gpu_pct_sd"][100], 0.0) << "one seed";
  const std::string svg = slurp(dir_ / "r" / "unallocated.svg");
  EXPECT_NE(svg.find("<polyline"), std::string::npos);
  EXPECT_NE(svg.find(">FGD<"), std::string::npos);
  const std::string csv = slurp(dir_ / "r" / "curves.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 132) << "header + 131 levels";
  EXPECT_TRUE(fs::exists(dir_ / "r" / "results.db"));
}

TEST_F(SimulateCommand, ExperimentRejectsAnUnknownPolicy) {
  const std::string scenario =
      std::string(GANTRY_SOURCE_DIR) + "/scenarios/openb-fragmentation.yaml";
  const Outcome o = run("simulate " + scenario + " --policy tetris --out " + (dir_ / "r").string());
  EXPECT_EQ(o.exit_code(), 2);
  EXPECT_NE(o.err.find("unknown policy 'tetris'"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("FGD"), std::string::npos) << o.err;
}

TEST_F(SimulateCommand, CompareTwoExperimentPolicies) {
  const std::string scenario =
      std::string(GANTRY_SOURCE_DIR) + "/scenarios/openb-fragmentation.yaml";
  ASSERT_EQ(run("simulate " + scenario + " --policy FGD --seed 2 --out " + (dir_ / "a").string())
                .exit_code(),
            0);
  ASSERT_EQ(run("simulate " + scenario + " --policy Random --seed 2 --out " + (dir_ / "b").string())
                .exit_code(),
            0);
  const Outcome o = run("compare " + (dir_ / "a").string() + ":FGD " + (dir_ / "b").string() +
                        ":Random --format json");
  ASSERT_EQ(o.exit_code(), 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  ASSERT_EQ(j["rows"].size(), 131u);
  const auto& at130 = j["rows"][130];
  EXPECT_EQ(at130["arrival_pct"], 130);
  EXPECT_LT(at130["a_unallocated_gpu_pct"].get<double>(),
            at130["b_unallocated_gpu_pct"].get<double>())
      << "FGD leaves less unallocated than Random";
  const Outcome missing =
      run("compare " + (dir_ / "a").string() + ":BestFit " + (dir_ / "b").string() + ":Random");
  EXPECT_EQ(missing.exit_code(), 2);
  EXPECT_NE(missing.err.find("no curves for policy 'BestFit'"), std::string::npos) << missing.err;
}

// compare reads both results databases: each metric's a and b are the runs' own summaries,
// and the delta is b − a.
TEST_F(SimulateCommand, CompareTwoTrainingRuns) {
  const Outcome ra =
      run("simulate " + quickstart() + " --format json --out " + (dir_ / "a").string());
  const Outcome rb = run("simulate " + quickstart() + " --policy spread --format json --out " +
                         (dir_ / "b").string());
  ASSERT_EQ(ra.exit_code(), 0) << ra.err;
  ASSERT_EQ(rb.exit_code(), 0) << rb.err;
  const auto ja = nlohmann::json::parse(ra.out), jb = nlohmann::json::parse(rb.out);
  const Outcome o =
      run("compare " + (dir_ / "a").string() + " " + (dir_ / "b").string() + " --format json");
  ASSERT_EQ(o.exit_code(), 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["metrics"]["jobs_total"]["a"], 600);
  EXPECT_EQ(j["metrics"]["jobs_total"]["b"], 600);
  const std::pair<const char*, double> expected[] = {
      {"jct_s_mean", ja["jct_s"]["mean"].get<double>()},
      {"jct_s_p99", ja["jct_s"]["p99"].get<double>()},
      {"wait_s_mean", ja["wait_s"]["mean"].get<double>()},
      {"gpu_allocation_ratio", ja["gpu"]["allocation_ratio"].get<double>()}};
  for (const auto& [metric, a] : expected) {
    ASSERT_TRUE(j["metrics"].contains(metric)) << metric;
    const auto& m = j["metrics"][metric];
    EXPECT_DOUBLE_EQ(m["a"].get<double>(), a) << metric;
    const std::string key = metric;
    const double b = key.starts_with("gpu_")  ? jb["gpu"]["allocation_ratio"].get<double>()
                     : key.starts_with("jct") ? jb["jct_s"][key.substr(6)].get<double>()
                                              : jb["wait_s"][key.substr(7)].get<double>();
    EXPECT_DOUBLE_EQ(m["b"].get<double>(), b) << metric;
    if (m.contains("delta")) {
      EXPECT_NEAR(m["delta"].get<double>(), b - a, 1e-9 * std::abs(b) + 1e-12) << metric;
    }
  }
  EXPECT_NE(ja["fingerprint"], jb["fingerprint"]) << "binpack and spread place differently";
  const Outcome text = run("compare " + (dir_ / "a").string() + " " + (dir_ / "b").string());
  EXPECT_NE(text.out.find("placement binpack"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("placement spread"), std::string::npos) << text.out;
  // In the report's units, by section: no raw seconds in e-notation (issue #27).
  EXPECT_NE(text.out.find("Job completion time"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("GPUs"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(" %"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("e+0"), std::string::npos) << text.out;
}

// --jobs belongs to the JSON report: with the text report (the default) it is bad input
// (exit 2), said before anything runs or is written; an Experiment, which has no jobs, is
// refused too.
TEST_F(SimulateCommand, JobsFlagNeedsTheJsonFormat) {
  const Outcome o = run("simulate " + quickstart() + " --jobs --out " + (dir_ / "r").string());
  EXPECT_EQ(o.exit_code(), 2);
  EXPECT_NE(o.err.find("--jobs"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("--format json"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(dir_ / "r")) << "nothing written";

  const std::string experiment =
      std::string(GANTRY_SOURCE_DIR) + "/scenarios/openb-fragmentation.yaml";
  const Outcome e =
      run("simulate " + experiment + " --jobs --format json --out " + (dir_ / "e").string());
  EXPECT_EQ(e.exit_code(), 2);
  EXPECT_NE(e.err.find("--jobs"), std::string::npos) << e.err;
  EXPECT_FALSE(fs::exists(dir_ / "e")) << "nothing written";
}

// --format json --jobs: the quickstart's 600 jobs (no admission there) in job_list, each with
// the documented keys; queue null, no evictions (nothing is evicted in the quickstart), and the
// instants those of the jobs table. Without admission the report has no queues key.
TEST_F(SimulateCommand, JobsFlagListsEveryJob) {
  const Outcome o =
      run("simulate " + quickstart() + " --format json --jobs --out " + (dir_ / "r").string());
  ASSERT_EQ(o.exit_code(), 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_FALSE(j.contains("queues"));
  ASSERT_TRUE(j["jobs"].is_object()) << "the counts stay where they were";
  const auto& list = j["job_list"];
  ASSERT_EQ(list.size(), 600u);
  Database db =
      Database::open((dir_ / "r" / "results.db").string(), {.create = false, .read_only = true});
  Statement rows = db.prepare(
      "SELECT name, priority, submit_us, start_us, end_us, state FROM jobs "
      "ORDER BY id");
  for (const auto& job : list) {
    size_t keys = 0;
    for (const char* key : {"name", "queue", "priority", "submit", "admitted", "start", "end",
                            "state", "replicas", "evictions"})
      keys += job.contains(key);
    EXPECT_EQ(keys, 10u) << job.dump();
    EXPECT_EQ(job.size(), 10u) << job.dump();
    EXPECT_TRUE(job["queue"].is_null());
    EXPECT_TRUE(job["evictions"].is_array());
    EXPECT_TRUE(job["evictions"].empty());
    ASSERT_TRUE(rows.step());
    EXPECT_EQ(job["name"], rows.column_text(0));
    EXPECT_EQ(job["priority"], rows.column_int64(1));
    EXPECT_EQ(job["submit"], iso_utc(rows.column_int64(2)));
    EXPECT_EQ(job["start"], iso_utc(rows.column_int64(3)));
    EXPECT_EQ(job["end"], iso_utc(rows.column_int64(4)));
    EXPECT_EQ(job["state"], rows.column_text(5));
  }
  EXPECT_FALSE(rows.step());
}

}  // namespace

namespace gantry {
namespace {

// --actions: the quickstart's 600 jobs are each bound, confirmed, running and finished (nothing
// fails or is evicted there): 4 lines per job, the first a bind. A second run replaces its own
// log; a file that is not an action log is refused (exit 2) and left as it was.
TEST_F(SimulateCommand, ActionsFileHasEveryActionAndObservation) {
  const fs::path log = dir_ / "actions.jsonl";
  const std::string args = "simulate " + quickstart() + " --no-progress --out " +
                           (dir_ / "r").string() + " --actions " + log.string();
  ASSERT_EQ(run(args).exit_code(), 0);
  const std::string text = slurp(log);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2400);
  const auto first = nlohmann::json::parse(text.substr(0, text.find('\n')));
  EXPECT_EQ(first["kind"], "bind");
  EXPECT_EQ(first["workload"], 0);
  EXPECT_TRUE(first["pods"][0].contains("node"));
  size_t counts[4] = {0, 0, 0, 0};
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const std::string kind = nlohmann::json::parse(line)["kind"];
    counts[0] += kind == "bind";
    counts[1] += kind == "bound";
    counts[2] += kind == "running";
    counts[3] += kind == "finished";
  }
  for (size_t c : counts) EXPECT_EQ(c, 600u);
  ASSERT_EQ(run(args).exit_code(), 0) << "a log replaces a log";
  EXPECT_EQ(slurp(log), text) << "same scenario, same log";

  const fs::path foreign = dir_ / "notes.txt";
  { std::ofstream(foreign) << "my notes\n"; }
  const Outcome o = run("simulate " + quickstart() + " --no-progress --out " +
                        (dir_ / "r").string() + " --actions " + foreign.string());
  EXPECT_EQ(o.exit_code(), 2);
  EXPECT_NE(o.err.find("--actions"), std::string::npos) << o.err;
  EXPECT_EQ(slurp(foreign), "my notes\n");
}

}  // namespace
}  // namespace gantry
