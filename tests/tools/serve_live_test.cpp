// `gantry serve --world kube` as a rehearsal on a plain API server shows it (issue 23): what the
// API server refuses reaches the user (the attempt's reason in the event stream, the run API
// and the server's standard error), and `--actions FILE` writes the live scheduler's action
// log. The real program against the tests' fake API server, kubelet-sim playing the nodes
// (kube_cluster.hpp). Nothing waits by sleeping: the tests block on the programs' first lines,
// on the event stream and on the server's end.

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/adapters/kube/fake_api_server.hpp"
#include "tests/tools/cli_harness.hpp"
#include "tests/tools/kube_cluster.hpp"
#include "tests/tools/serve_test.hpp"
#include "web/client/http_client.hpp"

namespace gantry::testing {
namespace serve_live_test {

class ServeLive : public ServeTest {
 protected:
  // Applies a pipeline of one task of one GPU (300 ms of simulated work) and triggers it.
  void apply_and_trigger(const ServeProcess& server) {
    const std::string flags = " --server " + server.url() + " --token-file " + db() + ".token";
    ASSERT_EQ(run("pipeline apply " + write("p.yaml", R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: infer}
spec:
  tasks:
  - name: score
    image: registry.local/score:1
    resources: {cpu: "2", memory: 4Gi, gpu: "1"}
    simulate: {duration: 300ms}
)") + flags)
                  .exit_code(),
              0);
    ASSERT_EQ(run("pipeline trigger infer" + flags).exit_code(), 0);
  }
};

// A real kube-apiserver answers the create of an object in a namespace that does not exist
// with 404 and a Status naming the namespace. The first object of an attempt is its owner
// ConfigMap; its refusal ends the attempt as error, and the reason names the object and gives
// the server's code, reason and words: in the attempt's "attempt" event, in GET .../runs/{t},
// and on the server's standard error.
TEST_F(ServeLive, AnApiServersRefusalIsTheAttemptsReasonEverywhere) {
  auto cluster = kube_cluster(dir_);
  ASSERT_EQ(cluster->kubelet->first_line().rfind("gantry kubelet-sim: 2 nodes", 0), 0u)
      << slurp(dir_ / "kubelet.stderr");
  kube::testing::Fault missing;
  missing.method = "POST";
  missing.path_prefix = "/api/v1/namespaces/ml/configmaps";
  missing.times = 1000;  // every attempt's
  missing.status = 404;
  missing.body = R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
                 R"("message":"namespaces \"ml\" not found","reason":"NotFound",)"
                 R"("details":{"name":"ml","kind":"namespaces"},"code":404})";
  cluster->fake.inject(missing);
  auto served = serve_kube(*cluster, db(), dir_, "serve");
  ServeProcess& server = *served;
  ASSERT_FALSE(server.url().empty()) << slurp(dir_ / "serve.stderr");
  apply_and_trigger(server);

  nlohmann::json ended;
  watch(server.url(), [&](const std::string& type, const nlohmann::json& d) {
    if (type != "attempt" || d["task"] != "score" || !d.contains("end")) return false;
    ended = d;
    return true;
  });
  EXPECT_EQ(ended["state"], "error") << ended.dump();
  // "creating configmap ml/<base>: 404 NotFound: namespaces "ml" not found", where the base
  // name is the attempt's (attempt_plan.hpp; exact in kube_task_executor_test).
  const std::string prefix = "creating configmap ml/infer-score-";
  const std::string suffix = R"(: 404 NotFound: namespaces "ml" not found)";
  const std::string reason = ended.value("reason", "");
  EXPECT_EQ(reason.rfind(prefix, 0), 0u) << ended.dump();
  ASSERT_GT(reason.size(), prefix.size() + suffix.size()) << ended.dump();
  EXPECT_EQ(reason.substr(reason.size() - suffix.size()), suffix) << ended.dump();

  web::HttpClient api(server.url(), {.token = token()});
  const std::string logical = ended["logicalTime"];
  const web::ClientResponse got = api.get("/api/v1/pipelines/infer/runs/" + logical);
  ASSERT_EQ(got.status, 200) << got.body;
  const nlohmann::json attempt = nlohmann::json::parse(got.body)["tasks"][0]["attempts"][0];
  EXPECT_EQ(attempt["state"], "error");
  EXPECT_EQ(attempt.value("reason", ""), reason) << attempt.dump();

  server.signal(SIGTERM);
  EXPECT_EQ(server.wait(), 0);
  EXPECT_NE(slurp(dir_ / "serve.stderr").find(reason), std::string::npos)
      << slurp(dir_ / "serve.stderr");
}

// --actions FILE: every action of the live scheduler and every observation it makes, one JSON
// object a line in the format of `gantry simulate --actions` (engine/policy/action_log.hpp).
// The task's one pod is bound, runs and succeeds (kubelet-sim plays it), so its workload's
// lines are, in order, the bind (one pod, one GPU) and the observations bound, pod-running,
// running, pod-succeeded, finished.
TEST_F(ServeLive, ActionsWritesTheLiveSchedulersActionLog) {
  auto cluster = kube_cluster(dir_);
  ASSERT_EQ(cluster->kubelet->first_line().rfind("gantry kubelet-sim: 2 nodes", 0), 0u)
      << slurp(dir_ / "kubelet.stderr");
  const std::string actions = (dir_ / "live.actions").string();
  auto served = serve_kube(*cluster, db(), dir_, "serve", {"--actions", actions});
  ServeProcess& server = *served;
  ASSERT_FALSE(server.url().empty()) << slurp(dir_ / "serve.stderr");
  apply_and_trigger(server);
  std::string state;
  watch(server.url(), [&](const std::string& type, const nlohmann::json& d) {
    if (type != "run" || d["pipeline"] != "infer") return false;
    state = d["state"];
    return state == "succeeded" || state == "failed";
  });
  ASSERT_EQ(state, "succeeded") << slurp(dir_ / "serve.stderr");
  server.signal(SIGTERM);
  ASSERT_EQ(server.wait(), 0) << slurp(dir_ / "serve.stderr");

  std::ifstream in(actions);
  ASSERT_TRUE(in) << actions << " was not written";
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(in, line);) {
    EXPECT_EQ(line.rfind(R"({"t":")", 0), 0u) << line;
    lines.push_back(nlohmann::json::parse(line));
  }
  ASSERT_FALSE(lines.empty());
  ASSERT_EQ(lines[0]["kind"], "bind") << lines[0].dump();
  const nlohmann::json workload = lines[0]["workload"];
  ASSERT_EQ(lines[0]["pods"].size(), 1u);
  EXPECT_EQ(lines[0]["pods"][0]["gpus"].size(), 1u);
  EXPECT_EQ(lines[0]["pods"][0]["node"].get<std::string>().rfind("r1-n00", 0), 0u);
  std::vector<std::string> kinds;
  for (const nlohmann::json& l : lines)
    if (l.value("workload", nlohmann::json()) == workload) kinds.push_back(l["kind"]);
  EXPECT_EQ(kinds, (std::vector<std::string>{"bind", "bound", "pod-running", "running",
                                             "pod-succeeded", "finished"}));
}

// The file-opening rules of `gantry simulate --actions` (one function for both): a file that
// is not an action log is the user's and is left alone, before anything connects.
TEST_F(ServeLive, ActionsRefusesAFileThatIsNotAnActionLog) {
  const std::string notes = write("notes.txt", "my notes\n");
  const Outcome o = run("serve --db " + db() + " --listen 127.0.0.1:0 --world kube --kubeconfig " +
                        (dir_ / "no-kubeconfig").string() + " --actions " + notes);
  EXPECT_EQ(o.exit_code(), 2) << o.err;
  EXPECT_NE(o.err.find("--actions: '" + notes +
                       "' exists and is not an action log; Gantry does not overwrite it"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(slurp(notes), "my notes\n");
}

}  // namespace serve_live_test
}  // namespace gantry::testing
