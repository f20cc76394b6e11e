// `gantry plan --on kubernetes` end to end, on the rehearsal cluster of the sweep's tests
// (sweep_on_kubernetes_test.cpp): the real `gantry serve` as the coordinator, the tests' fake
// API server, and `gantry kubelet-sim --exec` running each pod's `gantry sweep-worker` as a
// local process.
//
// Checked: the plan's answer is the local `gantry plan`'s, byte for byte (JSON and text, and
// the frontier chart), with each round of the search one Job whose runs add up to the plan's
// simulations; a failed Job stops the search with the pods' words; --dry-run prints the first
// round's Job and Secret and creates nothing; --detach is refused, saying why.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "adapters/kube/kube_client.hpp"
#include "tests/adapters/kube/test_support.hpp"
#include "tests/sim/plan/mmc_base.hpp"
#include "tests/tools/kube_cluster.hpp"
#include "tests/tools/serve_test.hpp"

namespace gantry {
namespace plan_on_kubernetes_test {

using testing::kGantry;
using testing::Outcome;

constexpr const char* kJobs = "/apis/batch/v1/namespaces/ml/jobs";

// The plan tests' M/M/c queue with 200 jobs (tests/sim/plan/mmc_base.hpp: one-hour jobs, one
// every 10 min on average, on 1-GPU nodes) at 1.5 times its arrivals (the batches' sweeps
// carry `growth: 1.5`). The local answer is 13 nodes; there a confidence interval straddles
// the limit, so the search adds seeds (a round whose seeds start past 0). One pool: the search
// bisects, one configuration a round, so this is 8 rounds of 2 runs (about 0.3 s each on the
// rehearsal).
const std::string kPlan =
    "apiVersion: gantry.dev/v1\nkind: Plan\nmetadata: {name: small}\nspec:\n  base: base.yaml\n" +
    std::string(testing::kGrownMmcPlan);

class PlanOnKubernetes : public testing::ServeTest {
 protected:
  void SetUp() override {
    ServeTest::SetUp();
    write("base.yaml", testing::mmc_base(200));
    plan_ = write("plan.yaml", kPlan);
    cluster_ = testing::kube_cluster(dir_, testing::kTwoNodes,
                                     {"--exec", "--job-controller", "--default-scheduler",
                                      "--exec-command", "gantry=" + kGantry},
                                     {.garbage_collector = true});
  }
  // `gantry plan --on kubernetes` against the rehearsal, with `more` flags.
  Outcome on_kubernetes(const std::string& url, const std::string& more) {
    return run("plan " + plan_ + " --on kubernetes --server " + url + " --token " + token() +
               " --kubeconfig " + cluster_->kubeconfig + " --namespace ml --parallelism 4" +
               " --image registry.example/gantry:1.0 --no-progress --out " +
               (dir_ / "out").string() + " " + more);
  }
  Outcome locally(const std::string& more) {
    return run("plan " + plan_ + " --no-progress --out " + (dir_ / "out").string() + " " + more);
  }
  std::string chart() { return testing::slurp(dir_ / "out" / "frontier.svg"); }
  kube::KubeClient client() {
    return kube::KubeClient(kube::testing::config_for(cluster_->fake.url()));
  }

  std::string plan_;
  std::unique_ptr<testing::KubeCluster> cluster_;
};

TEST_F(PlanOnKubernetes, EachRoundIsAJobAndTheAnswerIsTheLocalPlansByteForByte) {
  auto server = serve();
  const Outcome remote = on_kubernetes(server->url(), "--format json");
  ASSERT_EQ(remote.exit_code(), 0) << remote.err << "\nkubelet-sim:\n"
                                   << testing::slurp(dir_ / "kubelet.stderr");
  const std::string remote_chart = chart();
  const Outcome local = locally("--format json");
  ASSERT_EQ(local.exit_code(), 0) << local.err;
  // The same --out, so even the chart's path is the same: nothing may differ.
  EXPECT_EQ(remote.out, local.out);
  EXPECT_EQ(remote_chart, chart());

  // One Job per round, every one complete, and their runs are the plan's simulations.
  const std::regex launched(R"(sweep (sw-\S+): (\d+) runs in (\d+) shards, Job ml/)");
  size_t rounds = 0, runs = 0;
  for (auto it = std::sregex_iterator(remote.err.begin(), remote.err.end(), launched);
       it != std::sregex_iterator(); ++it) {
    ++rounds;
    runs += std::stoul((*it)[2]);
  }
  const nlohmann::json answer = nlohmann::json::parse(local.out);
  EXPECT_EQ(runs, answer["simulations"].get<size_t>()) << remote.err;
  // At least the largest configuration, then the bisection's.
  EXPECT_GE(rounds, 2u) << remote.err;
  const nlohmann::json jobs = client().get(kJobs);
  ASSERT_EQ(jobs["items"].size(), rounds);
  for (const nlohmann::json& job : jobs["items"])
    EXPECT_EQ(job["status"].value("failedIndexes", ""), "") << job["status"];
  // The answer (the local planner's, above): 13 nodes, at 4 seeds (twice the 2 it starts with).
  EXPECT_EQ(answer["steps"][0]["answer"]["pools"]["box"], 13);
  EXPECT_EQ(answer["steps"][0]["answer"]["seeds"], 4);

  // The text report too (the runs again: a second set of Jobs).
  const Outcome remote_text = on_kubernetes(server->url(), "");
  ASSERT_EQ(remote_text.exit_code(), 0) << remote_text.err;
  const Outcome local_text = locally("");
  ASSERT_EQ(local_text.exit_code(), 0) << local_text.err;
  EXPECT_EQ(remote_text.out, local_text.out);
}

TEST_F(PlanOnKubernetes, AFailedJobStopsThePlanWithThePodsWords) {
  auto server = serve();
  // The pods are told a port nothing listens on; each shard fails once
  // (--backoff-limit-per-index 0), so the first round's Job fails. (About 10 s: the command
  // sees it when its long poll ends, as in the sweep's test of the same.)
  const Outcome o = on_kubernetes(server->url(),
                                  "--worker-server http://127.0.0.1:9 --backoff-limit-per-index 0");
  EXPECT_EQ(o.exit_code(), 2) << o.out << o.err;  // the CLI's code for a refusal
  EXPECT_NE(o.err.find("the Job of sweep "), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("http://127.0.0.1:9"), std::string::npos)
      << "the pods' own words name the URL they could not reach:\n"
      << o.err;
  EXPECT_EQ(o.out, "") << "no answer from a search that could not run";
  EXPECT_EQ(client().get(kJobs)["items"].size(), 1u) << "the search stopped at its first round";
}

TEST_F(PlanOnKubernetes, DryRunPrintsTheFirstRoundsJobAndSecretAndCreatesNothing) {
  // No server at all: a dry run contacts nothing but the kubeconfig file.
  const Outcome o = run("plan " + plan_ + " --on kubernetes --dry-run --server " +
                        "http://127.0.0.1:9 --token t --kubeconfig " + cluster_->kubeconfig +
                        " --image registry.example/gantry:1.0 --parallelism 8");
  ASSERT_EQ(o.exit_code(), 0) << o.err;
  // The first round is the largest configuration at 2 seeds: 2 runs, so 2 shards.
  EXPECT_NE(o.out.find("# The plan's first round: 2 runs (growth 1.5)."), std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("kind: \"Job\""), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("completions: 2"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("completionMode: \"Indexed\""), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("---\n"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("kind: \"Secret\""), std::string::npos) << o.out;
  EXPECT_EQ(client().get(kJobs)["items"].size(), 0u);
}

TEST_F(PlanOnKubernetes, DetachIsRefusedWithTheReason) {
  const Outcome o = run("plan " + plan_ + " --on kubernetes --detach --server " +
                        "http://127.0.0.1:9 --token t --kubeconfig " + cluster_->kubeconfig +
                        " --image registry.example/gantry:1.0");
  EXPECT_EQ(o.exit_code(), 2) << o.out << o.err;
  EXPECT_NE(o.err.find("--detach: a plan cannot return before its end"), std::string::npos)
      << o.err;
  EXPECT_EQ(client().get(kJobs)["items"].size(), 0u);
}

}  // namespace plan_on_kubernetes_test
}  // namespace gantry
