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

}  // namespace serve_live_test
}  // namespace gantry::testing
