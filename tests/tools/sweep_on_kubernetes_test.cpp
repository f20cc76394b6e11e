// `gantry sweep --on kubernetes` end to end, with the real programs on the rehearsal cluster:
// `gantry serve` as the coordinator, the tests' fake API server (its garbage collector on, as
// kube-controller-manager's), and `gantry kubelet-sim --exec --job-controller
// --default-scheduler` standing in for the kubelets, the Job controller and kube-scheduler,
// running each pod's `gantry sweep-worker` as a local process (adapters/kube/README.md, "Jobs in
// a rehearsal"). What a real cluster adds (pods, JOB_COMPLETION_INDEX, retries of an index) is
// kubelet-sim's stand-in's, and says so.
//
// Checked: the result is the local `gantry sweep`'s, figure for figure, and the Job completes;
// a server the pods cannot reach fails the Job and the command says why, in the pods' words;
// no permission to create Jobs names the Role needed, and leaves no sweep waiting on the server;
// cancel deletes the Job, its pods and its Secret.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "adapters/kube/kube_client.hpp"
#include "tests/adapters/kube/test_support.hpp"
#include "tests/tools/grid_sweep.hpp"
#include "tests/tools/kube_cluster.hpp"
#include "tests/tools/serve_test.hpp"
#include "web/client/http_client.hpp"
#include "web/client/sweep_coordinator_client.hpp"

namespace gantry {
namespace sweep_on_kubernetes_test {

using testing::kGantry;
using testing::Outcome;

constexpr const char* kJobs = "/apis/batch/v1/namespaces/ml/jobs";

class SweepOnKubernetes : public testing::ServeTest {
 protected:
  void SetUp() override {
    ServeTest::SetUp();
    sweep_ = testing::write_grid_sweep(dir_);  // 12 runs, 4 shards of 3
    cluster_ = testing::kube_cluster(
        dir_, testing::kTwoNodes,
        {"--exec", "--job-controller", "--default-scheduler", "--exec-command", "gantry=" + kGantry,
         "--unpullable-image", "unpullable/"},
        {.garbage_collector = true});
  }
  // `gantry sweep --on kubernetes` against the rehearsal with `more` flags.
  Outcome on_kubernetes(const std::string& url, const std::string& more) {
    return run("sweep " + sweep_ + " --on kubernetes --server " + url + " --token " + token() +
               " --kubeconfig " + cluster_->kubeconfig + " --namespace ml" +
               " --parallelism 4 --no-progress --out " + (dir_ / "k8s").string() + " " + more);
  }
  kube::KubeClient client() {
    return kube::KubeClient(kube::testing::config_for(cluster_->fake.url()));
  }
  size_t count(const std::string& path) { return client().get(path)["items"].size(); }

  std::string sweep_;
  std::unique_ptr<testing::KubeCluster> cluster_;
};

TEST_F(SweepOnKubernetes, FourShardsGiveTheLocalSweepsReportAndTheJobCompletes) {
  auto server = serve();
  const Outcome o = on_kubernetes(server->url(), "--image registry.example/gantry:1.0");
  ASSERT_EQ(o.exit_code(), 0) << o.err << "\nkubelet-sim:\n"
                              << testing::slurp(dir_ / "kubelet.stderr");
  EXPECT_NE(o.err.find("12 runs in 4 shards, Job ml/gantry-sweep-"), std::string::npos) << o.err;
  const Outcome local =
      run("sweep " + sweep_ + " --no-progress --out " + (dir_ / "local").string());
  ASSERT_EQ(local.exit_code(), 0) << local.err;
  EXPECT_EQ(o.out.substr(0, o.out.find("  results ")),
            local.out.substr(0, local.out.find("  results ")));
  // The Job as the Job controller's stand-in left it: four indexes done, none failed.
  const nlohmann::json jobs = client().get(kJobs);
  ASSERT_EQ(jobs["items"].size(), 1u);
  const nlohmann::json& status = jobs["items"][0]["status"];
  EXPECT_EQ(status.value("completedIndexes", ""), "0-3") << status;
  EXPECT_EQ(status.value("succeeded", 0), 4) << status;
  EXPECT_EQ(status.value("failedIndexes", ""), "") << status;
}

TEST_F(SweepOnKubernetes, AServerThePodsCannotReachFailsTheJobAndSaysWhy) {
  auto server = serve();
  // The command reaches the server; the pods are told a port nothing listens on. Each shard
  // fails once (--backoff-limit-per-index 0), so the Job fails.
  const Outcome o = on_kubernetes(server->url(),
                                  "--image registry.example/gantry:1.0 --worker-server "
                                  "http://127.0.0.1:9 --backoff-limit-per-index 0");
  EXPECT_EQ(o.exit_code(), 2) << o.out << o.err;  // the CLI's code for a refusal
  EXPECT_NE(o.err.find("the Job of sweep "), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("failed with exit code"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("http://127.0.0.1:9"), std::string::npos)
      << "the pods' own words name the URL they could not reach:\n"
      << o.err;
  EXPECT_NE(o.err.find("The runs that finished are kept on the server"), std::string::npos)
      << o.err;
}

TEST_F(SweepOnKubernetes, NoPermissionToCreateJobsNamesTheRoleAndLeavesNothingWaiting) {
  auto server = serve();
  cluster_->fake.forbid({.verb = "create", .group = "batch", .resource = "jobs"});
  const Outcome o = on_kubernetes(server->url(), "--image registry.example/gantry:1.0");
  EXPECT_EQ(o.exit_code(), 2) << o.out << o.err;  // the CLI's code for a refusal
  EXPECT_NE(o.err.find("no permission to create jobs.batch in namespace ml: a Role there needs "
                       "apiGroups [\"batch\"], resources [\"jobs\"], verbs [\"create\"]"),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("cannot create resource \"jobs\" in API group \"batch\""), std::string::npos)
      << "the API server's own words:\n"
      << o.err;
  // The sweep the server accepted first was cancelled again: nothing waits for pods.
  const web::ClientResponse r = web::HttpClient(server->url(), web::ClientOptions{.token = token()})
                                    .get("/api/v1/distributed-sweeps");
  ASSERT_EQ(r.status, 200) << r.body;
  const nlohmann::json sweeps = nlohmann::json::parse(r.body)["sweeps"];
  ASSERT_EQ(sweeps.size(), 1u) << sweeps;
  EXPECT_EQ(sweeps[0]["state"], "cancelled") << sweeps;
  EXPECT_EQ(count(kJobs), 0u);
  EXPECT_EQ(count("/api/v1/namespaces/ml/secrets"), 0u);
}

TEST_F(SweepOnKubernetes, CancelDeletesTheJobItsPodsAndItsSecret) {
  auto server = serve();
  // Pods that never start (their image cannot be pulled), so the sweep is still running when
  // cancelled.
  const Outcome o = on_kubernetes(server->url(), "--image unpullable/gantry:1.0 --detach");
  ASSERT_EQ(o.exit_code(), 0) << o.err;
  const std::string out = o.out;
  ASSERT_EQ(out.rfind("sweep ", 0), 0u) << out;
  const std::string id = out.substr(6, out.find(' ', 6) - 6);
  ASSERT_TRUE(cluster_->fake.wait_until([&] { return count("/api/v1/namespaces/ml/pods") == 4; }));
  EXPECT_EQ(count("/api/v1/namespaces/ml/secrets"), 1u);

  const Outcome c = run("sweep cancel " + id + " --server " + server->url() + " --token " +
                        token() + " --kubeconfig " + cluster_->kubeconfig + " --namespace ml");
  EXPECT_EQ(c.exit_code(), 0) << c.err;
  EXPECT_NE(c.out.find("sweep " + id + " cancelled; Job ml/gantry-sweep-" + id +
                       " deleted with its pods"),
            std::string::npos)
      << c.out;
  EXPECT_EQ(count(kJobs), 0u);
  EXPECT_TRUE(cluster_->fake.wait_until([&] {
    return count("/api/v1/namespaces/ml/pods") == 0 && count("/api/v1/namespaces/ml/secrets") == 0;
  }));
  EXPECT_EQ(web::SweepCoordinatorClient(server->url(), token()).get(id)["state"], "cancelled");
}

}  // namespace sweep_on_kubernetes_test
}  // namespace gantry
