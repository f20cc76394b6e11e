// `gantry validate` and the error list of `gantry simulate`, run as the real program: files of
// every kind, every error of a file (not just the first), each on its own line.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/tools/cli_harness.hpp"

namespace {

namespace fs = std::filesystem;

using gantry::testing::CliTest;
using gantry::testing::Outcome;
using gantry::testing::slurp;

class Validate : public CliTest {
 protected:
  std::string source(const std::string& path) {
    return std::string(GANTRY_SOURCE_DIR) + "/" + path;
  }
};

TEST_F(Validate, EveryKindOfShippedFileIsOk) {
  const Outcome o = run("validate " + source("scenarios/quickstart.yaml") + " " +
                        source("scenarios/openb-fragmentation.yaml") + " " +
                        source("scenarios/live/admission.yaml") + " " +
                        source("scenarios/pipelines/hourly-etl.yaml"));
  ASSERT_EQ(o.exit_code(), 0) << o.err;
  EXPECT_EQ(o.out, "ok: " + source("scenarios/quickstart.yaml") + ": Scenario quickstart\n" +
                       "ok: " + source("scenarios/openb-fragmentation.yaml") +
                       ": Experiment openb-fragmentation\n" +
                       "ok: " + source("scenarios/live/admission.yaml") +
                       ": Admission research (2 queues)\n" + "ok: 1 pipeline, 0 pools\n");
}

// An Admission file's errors, as `gantry serve --admission` would report them: file, line,
// column and path each.
TEST_F(Validate, AnAdmissionFileListsEveryError) {
  const fs::path f = dir_ / "q.yaml";
  std::ofstream(f) << "apiVersion: gantry.dev/v1\nkind: Admission\nmetadata: {name: q}\nspec:\n"
                      "  queues:\n  - {name: a, quota: {gpu: -1}}\n  - {name: b, cohort: c, "
                      "quota: {gpu: 1}, lendingLimit: {gpu: 2}}\n";
  const Outcome o = run("validate " + f.string());
  EXPECT_EQ(o.exit_code(), 2);
  // "  - {name: a, quota: {gpu: " is 27 characters; "  - {name: b, cohort: c, quota: {gpu:
  // 1}, lendingLimit: {gpu: " is 62.
  EXPECT_EQ(o.err,
            f.string() +
                ":6:28: spec.queues[0].quota.gpu: an amount of quota cannot be negative, "
                "got '-1'\n" +
                f.string() +
                ":7:63: spec.queues[1].lendingLimit.gpu: lendingLimit of gpu (2) is more "
                "than the queue's nominal quota of it (1); a queue lends at most its quota\n");
}

// Three mistakes, three lines, in file order; exit 2. `simulate` says the same, each line an
// error of its own.
TEST_F(Validate, AScenarioWithThreeBadFieldsHasThreeErrors) {
  const std::string f = edited_copy(source("scenarios/quickstart.yaml"), "s.yaml",
                                    {{"kind: InfiniBand", "kind: Infiniband"},
                                     {"meanInterarrival: 150s", "meanInterarrival: 150"},
                                     {"placement: binpack", "placement: bogus"}});
  const Outcome o = run("validate " + f);
  EXPECT_EQ(o.exit_code(), 2);
  EXPECT_EQ(o.err,
            f +
                ":17:20: spec.cluster.fabric.kind: unknown value 'Infiniband'; expected one of: "
                "InfiniBand, RoCE, TCP\n" +
                f +
                ":35:25: spec.workload.generators[0].meanInterarrival: expected a duration "
                "such as 90s, 1h30m or 500ms, got '150' (the unit is required: d, h, m, s, ms "
                "or us)\n" +
                f + ":44:16: spec.policy.placement: unknown placement policy 'bogus'; known: " +
                o.err.substr(o.err.rfind("known: ") + 7));
  const Outcome sim = run("simulate " + f + " --out " + (dir_ / "r").string());
  EXPECT_EQ(sim.exit_code(), 2);
  EXPECT_EQ(sim.err.rfind("error: " + f + ":17:20: ", 0), 0u) << sim.err;
  EXPECT_NE(sim.err.find("\nerror: " + f + ":35:25: "), std::string::npos) << sim.err;
  EXPECT_NE(sim.err.find("\nerror: " + f + ":44:16: "), std::string::npos) << sim.err;
}

// The form experiments had before they were a kind of their own.
TEST_F(Validate, AnExperimentInTheScenarioFormIsToldItsKind) {
  const fs::path f = dir_ / "old.yaml";
  std::ofstream(f) << "apiVersion: gantry.dev/v1\nkind: Scenario\nmetadata: {name: old}\n"
                      "spec:\n  seed: 1\n  experiment:\n    kind: Fragmentation\n";
  const Outcome o = run("validate " + f.string());
  EXPECT_EQ(o.exit_code(), 2);
  EXPECT_EQ(o.err.rfind(f.string() + ":6:3: spec.experiment: an experiment is a file of its own "
                                     "kind: write kind: Experiment",
                        0),
            0u)
      << o.err;
}

TEST_F(Validate, PipelineFilesAreLoadedTogetherAndTheirErrorsListed) {
  const fs::path f = dir_ / "p.yaml";
  std::ofstream(f) << "apiVersion: gantry.dev/v1\nkind: Pipeline\nmetadata: {name: etl}\n"
                      "spec:\n  tasks: [{name: a, pool: nope}]\n";
  const Outcome o = run("validate " + f.string());
  EXPECT_EQ(o.exit_code(), 2);
  EXPECT_EQ(o.err, f.string() +
                       ":5:27: spec.tasks[0].pool: unknown pool 'nope'; no pool is "
                       "declared in the files given (declare pools with kind: Pool)\n"
                       "see: " GANTRY_SOURCE_DIR "/workflow/README.md#the-pipeline-file\n");
}

}  // namespace
