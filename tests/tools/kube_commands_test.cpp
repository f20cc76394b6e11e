// `gantry kubelet-sim` and `gantry snapshot` end to end: the real program as a child process
// against the tests' fake API server (tests/adapters/kube/fake_api_server.hpp). Nothing waits
// by sleeping: the tests block on the program's output, on a watch of the pod, or on the
// program's end.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <fstream>

#include "adapters/kube/kube_client.hpp"
#include "adapters/kube/kubelet_sim/node_objects.hpp"
#include "adapters/kube/model/kube_node.hpp"
#include "engine/core/clock.hpp"
#include "sim/scenario_loader.hpp"
#include "tests/adapters/kube/fake_api_server.hpp"
#include "tests/adapters/kube/test_support.hpp"
#include "tests/tools/cli_harness.hpp"
#include "tests/tools/serve_process.hpp"

namespace gantry::testing {
namespace kube_commands_test {

const std::string kSource = GANTRY_SOURCE_DIR;

class KubeCommands : public CliTest {
 protected:
  std::string kubeconfig() {
    const std::string path = (dir_ / "kubeconfig").string();
    std::ofstream(path) << "apiVersion: v1\nkind: Config\ncurrent-context: test\n"
                        << "clusters:\n- name: fake\n  cluster:\n    server: " << fake_.url()
                        << "\ncontexts:\n- name: test\n  context: {cluster: fake, user: u}\n"
                        << "users:\n- name: u\n  user: {token: t0k}\n";
    return path;
  }
  // On the wall clock, as a real API server is.
  kube::testing::FakeApiServer fake_{{.now = [] { return WallClock().now(); }}};
};

// kubelet-sim registers the 32 nodes of the quickstart scenario with their topology labels,
// then plays a pod bound to one of them: Running after the scenario's 5 s start-up, Succeeded
// after its 60 s simulate-duration (at --speed 600: 0.1 s of wall time for the whole life).
// The times it writes are the API server's: at --speed 600 its loop runs ahead of the wall
// clock, and they were written in the server's future (issue #23).
TEST_F(KubeCommands, KubeletSimRegistersTheNodesAndPlaysPods) {
  ServeProcess sim(kGantry,
                   {"--kubeconfig", kubeconfig(), "--cluster",
                    kSource + "/scenarios/quickstart.yaml", "--speed", "600"},
                   (dir_ / "sim.stderr").string(), "kubelet-sim");
  ASSERT_EQ(sim.first_line().rfind("gantry kubelet-sim: 32 nodes of ", 0), 0u)
      << sim.first_line() << slurp(dir_ / "sim.stderr");
  const auto node = fake_.get("/api/v1/nodes", "r3-n007");
  ASSERT_TRUE(node.has_value());
  EXPECT_EQ((*node)["metadata"]["labels"]["nvidia.com/gpu.product"], "NVIDIA-A100-80GB");
  EXPECT_EQ((*node)["metadata"]["labels"]["gantry.dev/rack"], "r3");
  EXPECT_EQ((*node)["status"]["allocatable"]["nvidia.com/gpu"], "8");

  fake_.apply(
      "/api/v1/namespaces/ml/pods",
      {{"metadata", {{"name", "p"}, {"annotations", {{"gantry.dev/simulate-duration", "60s"}}}}},
       {"spec", {{"nodeName", "r3-n007"}, {"containers", {{{"name", "main"}}}}}},
       {"status", {{"phase", "Pending"}}}});
  kube::KubeClient client(kube::testing::config_for(fake_.url()));
  std::vector<std::string> phases;
  client.watch("/api/v1/namespaces/ml/pods?watch=true&resourceVersion=0", [&](kube::WatchEvent& e) {
    const std::string phase = e.object["status"].value("phase", "");
    if (phases.empty() || phases.back() != phase) phases.push_back(phase);
    return phase != "Succeeded";
  });
  EXPECT_EQ(phases, (std::vector<std::string>{"Pending", "Running", "Succeeded"}));
  const auto pod = fake_.get("/api/v1/namespaces/ml/pods", "p");
  const auto& terminated = (*pod)["status"]["containerStatuses"][0]["state"]["terminated"];
  EXPECT_EQ(terminated["exitCode"], 0);
  // Written on the server's clock: never after its now (read once the pod had ended), the end
  // not before the start.
  Time started, finished;
  ASSERT_TRUE(parse_rfc3339(terminated["startedAt"].get<std::string>(), started));
  ASSERT_TRUE(parse_rfc3339(terminated["finishedAt"].get<std::string>(), finished));
  const Time server_now = WallClock().now();
  EXPECT_LE(started, finished);
  EXPECT_LE(finished, server_now) << format_rfc3339(finished) << " after the server's "
                                  << format_rfc3339(server_now);

  sim.signal(SIGTERM);
  const int status = sim.wait();
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(sim.line(), "gantry kubelet-sim: stopped; pods started 1, succeeded 1, failed 0");
}

// A rehearsal of an Indexed Job (issue #25) with the real program: kubelet-sim --exec runs the
// pods' commands as local processes, its stand-ins for the Job controller and kube-scheduler
// make and bind the pods. The test waits on a watch of the Job until it is Complete.
TEST_F(KubeCommands, KubeletSimExecRunsAnIndexedJobsPodsAsProcesses) {
  fake_.create_namespace("ml");
  const std::filesystem::path logs = dir_ / "logs";
  std::filesystem::create_directories(logs);
  ServeProcess sim(
      kGantry,
      {"--kubeconfig", kubeconfig(), "--cluster", kSource + "/scenarios/quickstart.yaml", "--speed",
       "100", "--exec", "--exec-logs", logs.string(), "--job-controller", "--default-scheduler"},
      (dir_ / "sim.stderr").string(), "kubelet-sim");
  ASSERT_EQ(sim.first_line().rfind("gantry kubelet-sim: 32 nodes of ", 0), 0u)
      << sim.first_line() << slurp(dir_ / "sim.stderr");
  kube::KubeClient client(kube::testing::config_for(fake_.url()));
  const nlohmann::json job = {
      {"apiVersion", "batch/v1"},
      {"kind", "Job"},
      {"metadata", {{"name", "rehearsal"}}},
      {"spec",
       {{"completionMode", "Indexed"},
        {"completions", 2},
        {"parallelism", 2},
        {"template",
         {{"spec",
           {{"restartPolicy", "Never"},
            {"containers",
             {{{"name", "w"},
               {"image", "registry.example/gantry:1.0"},
               {"command", {"sh", "-c", "echo shard $JOB_COMPLETION_INDEX"}}}}}}}}}}}};
  ASSERT_EQ(client.create("/apis/batch/v1/namespaces/ml/jobs", job).outcome,
            kube::WriteOutcome::kOk);
  std::string completed;
  client.watch(
      "/apis/batch/v1/namespaces/ml/jobs?watch=true&resourceVersion=0", [&](kube::WatchEvent& e) {
        for (const auto& c : e.object["status"].value("conditions", nlohmann::json::array()))
          if (c.value("type", "") == "Complete") {
            completed = e.object["status"].value("completedIndexes", "");
            return false;
          }
        return true;
      });
  EXPECT_EQ(completed, "0,1");  // a run of two indexes is written "0,1"
  sim.signal(SIGTERM);
  const int status = sim.wait();
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  // After the three lines of what runs (Job controller, scheduler, --exec): the stop line.
  std::vector<std::string> lines;
  for (std::string l = sim.line(); !l.empty(); l = sim.line()) lines.push_back(l);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back(), "gantry kubelet-sim: stopped; pods started 2, succeeded 2, failed 0");
  int files = 0;
  for (const auto& f : std::filesystem::directory_iterator(logs)) {
    ++files;
    std::ifstream in(f.path());
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text.rfind("shard ", 0), 0u) << f.path();
  }
  EXPECT_EQ(files, 2);
}

TEST_F(KubeCommands, KubeletSimNamesAnUnreachableServer) {
  const std::string path = (dir_ / "kubeconfig").string();
  std::ofstream(path) << "apiVersion: v1\nkind: Config\ncurrent-context: x\nclusters:\n"
                      << "- name: c\n  cluster: {server: 'http://127.0.0.1:1'}\ncontexts:\n"
                      << "- name: x\n  context: {cluster: c, user: u}\nusers:\n- name: u\n"
                      << "  user: {token: t}\n";
  const Outcome o = run("kubelet-sim --kubeconfig " + path + " --cluster " + kSource +
                        "/scenarios/quickstart.yaml");
  EXPECT_NE(o.exit_code(), 0);
  EXPECT_NE(o.err.find("127.0.0.1:1"), std::string::npos) << o.err;
}

// snapshot reads the nodes and running pods and writes a scenario the loader accepts.
TEST_F(KubeCommands, SnapshotWritesALoadableScenario) {
  const ScenarioSpec quick = load_scenario_file(kSource + "/scenarios/quickstart.yaml");
  for (NodeId n = 0; n < 3; ++n)
    fake_.apply("/api/v1/nodes", kube::node_object(quick.topology, n, Time::epoch()));
  fake_.apply("/api/v1/namespaces/ml/pods",
              {{"metadata", {{"name", "w-0"}, {"labels", {{"gantry.dev/gang", "w"}}}}},
               {"spec",
                {{"nodeName", "r1-n001"},
                 {"containers",
                  {{{"name", "main"},
                    {"resources", {{"requests", {{"cpu", "8"}, {"nvidia.com/gpu", "4"}}}}}}}}}},
               {"status", {{"phase", "Running"}}}});
  const Outcome o = run("snapshot --kubeconfig " + kubeconfig() + " --name twin");
  ASSERT_EQ(o.exit_code(), 0) << o.err;
  EXPECT_NE(o.err.find("3 nodes, 1 pods read from"), std::string::npos) << o.err;
  const ScenarioSpec twin = load_scenario_text(o.out, "twin.yaml");
  EXPECT_EQ(twin.name, "twin");
  EXPECT_EQ(twin.topology.nodes.size(), 3u);
  ASSERT_EQ(twin.topology.classes.size(), 1u) << "three nodes of one class: dgx-a100";
  EXPECT_EQ(twin.topology.classes[0].name, "dgx-a100");
  ASSERT_EQ(twin.workload.jobs.size(), 1u);
  EXPECT_EQ(twin.workload.jobs[0].roles[0].per_replica.gpus, 4);
  // kubelet-sim's nodes carry gantry.dev/nic: the twin has the scenario's NIC (1600Gbps), not
  // an assumed one (issue #23).
  const NodeClass& source =
      quick.topology.classes[static_cast<size_t>(quick.topology.nodes[0].node_class)];
  EXPECT_EQ(twin.topology.classes[0].nic_bytes_per_s, source.nic_bytes_per_s);
  EXPECT_EQ(o.out.find("assumed: label the nodes gantry.dev/nic"), std::string::npos) << o.out;
}

// A lying API server (issue 22): a 200 whose node list never ends ran `gantry snapshot` out of
// memory (bad_alloc). The client abandons the answer at its 64 MiB limit: exit code 2, the
// message names the request's URL and the limit, and nothing is written to stdout.
TEST_F(KubeCommands, SnapshotRefusesAnAnswerThatNeverEnds) {
  kube::testing::Fault endless;
  endless.path_prefix = "/api/v1/nodes";
  endless.endless_body = true;
  fake_.inject(endless);
  const Outcome o = run("snapshot --kubeconfig " + kubeconfig());
  EXPECT_EQ(o.exit_code(), 2) << o.err;
  EXPECT_EQ(o.err, "error: GET " + fake_.url() +
                       "/api/v1/nodes?limit=500: the answer is longer than the client's limit of "
                       "64 MiB (KubeClientOptions::max_response_bytes); abandoned\n");
  EXPECT_EQ(o.out, "");
}

// The same lie to kubelet-sim, on the registration of its first node: exit code 2 naming the
// server, the request and the limit (it ended in bad_alloc).
TEST_F(KubeCommands, KubeletSimRefusesAnAnswerThatNeverEnds) {
  kube::testing::Fault endless;
  endless.path_prefix = "/api/v1/nodes";
  endless.endless_body = true;
  fake_.inject(endless);
  const Outcome o = run("kubelet-sim --kubeconfig " + kubeconfig() + " --cluster " + kSource +
                        "/scenarios/quickstart.yaml");
  EXPECT_EQ(o.exit_code(), 2) << o.err;
  EXPECT_NE(o.err.find("error: registering the nodes with " + fake_.url() + ": "),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("/api/v1/nodes: the answer is longer than the client's limit of 64 MiB"),
            std::string::npos)
      << o.err;
}

// `gantry kube drain` writes the node's drain request (a merge PATCH of one annotation) for a
// gantry serve to carry out: the annotation read back as the live world reads it.
TEST_F(KubeCommands, KubeDrainWritesTheNodesDrainRequest) {
  const ScenarioSpec quick = load_scenario_file(kSource + "/scenarios/quickstart.yaml");
  for (NodeId n = 0; n < 2; ++n)
    fake_.apply("/api/v1/nodes", kube::node_object(quick.topology, n, Time::epoch()));
  const Time before = WallClock().now();
  const Outcome o =
      run("kube drain r1-n001 --deadline 2h --for 4h30m --kubeconfig " + kubeconfig());
  const Time after = WallClock().now();
  ASSERT_EQ(o.exit_code(), 0) << o.err;
  EXPECT_NE(o.out.find("drain of r1-n001 requested (deadline 2h, maintenance 270m"),
            std::string::npos)
      << o.out;
  std::vector<kube::testing::RecordedRequest> writes;
  for (const auto& r : fake_.requests())
    if (r.method != "GET") writes.push_back(r);
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes[0].method, "PATCH");
  EXPECT_EQ(writes[0].path, "/api/v1/nodes/r1-n001");
  EXPECT_EQ(writes[0].headers.at("content-type"), "application/merge-patch+json");
  const kube::KubeNode node = kube::parse_node(fake_.get("/api/v1/nodes", "r1-n001").value());
  const kube::DrainRequest request = kube::parse_drain_request(node);
  EXPECT_EQ(request.deadline, hours(2));
  EXPECT_EQ(request.maintenance, minutes(270));
  Time requested;
  ASSERT_TRUE(parse_rfc3339(request.requested, requested)) << request.requested;
  EXPECT_LE(before, requested);
  EXPECT_LE(requested, after);
  EXPECT_TRUE(
      kube::parse_node(fake_.get("/api/v1/nodes", "r1-n000").value()).drain_request.empty());
}

// An unknown node is named; a bad duration names its flag, before anything connects.
TEST_F(KubeCommands, KubeDrainNamesAnUnknownNodeAndABadFlag) {
  const Outcome unknown = run("kube drain r9-n999 --for 4h --kubeconfig " + kubeconfig());
  EXPECT_EQ(unknown.exit_code(), 2);
  EXPECT_NE(unknown.err.find("error: node 'r9-n999' not found on " + fake_.url()),
            std::string::npos)
      << unknown.err;
  fake_.clear_requests();
  const Outcome deadline =
      run("kube drain r1-n001 --deadline 2x --for 4h --kubeconfig " + kubeconfig());
  EXPECT_EQ(deadline.exit_code(), 2);
  EXPECT_EQ(deadline.err.rfind("error: --deadline: ", 0), 0u) << deadline.err;
  EXPECT_NE(deadline.err.find("2x"), std::string::npos) << deadline.err;
  const Outcome zero = run("kube drain r1-n001 --for 0s --kubeconfig " + kubeconfig());
  EXPECT_EQ(zero.exit_code(), 2);
  EXPECT_EQ(zero.err.rfind("error: --for: ", 0), 0u) << zero.err;
  EXPECT_TRUE(fake_.requests().empty()) << "refused before connecting";
}

// `gantry kube setup` makes what a plain API server lacks for the README's live-mode steps: the
// namespace of the pipelines' pods and its ServiceAccount "default" (which the ServiceAccount
// controller of kube-controller-manager makes, and without which a real server refuses every
// pod with 403 "error looking up service account"). Each object is looked at first (GET) and
// created only when absent (POST), so a second run changes nothing and says so.
TEST_F(KubeCommands, KubeSetupMakesTheNamespaceAndItsServiceAccountOnce) {
  const Outcome first = run("kube setup --namespace team-x --kubeconfig " + kubeconfig());
  ASSERT_EQ(first.exit_code(), 0) << first.err;
  EXPECT_EQ(first.out,
            "gantry kube setup: namespace team-x created\n"
            "gantry kube setup: serviceaccount team-x/default created\n");
  const std::optional<nlohmann::json> ns = fake_.get("/api/v1/namespaces", "team-x");
  ASSERT_TRUE(ns.has_value());
  EXPECT_EQ((*ns)["kind"], "Namespace");
  const std::optional<nlohmann::json> sa =
      fake_.get("/api/v1/namespaces/team-x/serviceaccounts", "default");
  ASSERT_TRUE(sa.has_value());
  EXPECT_EQ((*sa)["kind"], "ServiceAccount");
  std::vector<std::string> writes;
  for (const auto& r : fake_.requests())
    if (r.method != "GET") writes.push_back(r.method + " " + r.path);
  EXPECT_EQ(writes, (std::vector<std::string>{"POST /api/v1/namespaces",
                                              "POST /api/v1/namespaces/team-x/serviceaccounts"}));

  fake_.clear_requests();
  const Outcome again = run("kube setup --namespace team-x --kubeconfig " + kubeconfig());
  ASSERT_EQ(again.exit_code(), 0) << again.err;
  EXPECT_EQ(again.out,
            "gantry kube setup: namespace team-x exists\n"
            "gantry kube setup: serviceaccount team-x/default exists\n");
  for (const auto& r : fake_.requests()) EXPECT_EQ(r.method, "GET") << r.path;
}

// Without --namespace: the context's (that of gantry serve --world kube's pods; "default" when
// the context names none, as here). A real API server has namespace default from its start (the
// fake too); its ServiceAccount comes from the ServiceAccount controller, absent here.
TEST_F(KubeCommands, KubeSetupDefaultsToTheContextsNamespace) {
  const Outcome o = run("kube setup --kubeconfig " + kubeconfig());
  ASSERT_EQ(o.exit_code(), 0) << o.err;
  EXPECT_EQ(o.out,
            "gantry kube setup: namespace default exists\n"
            "gantry kube setup: serviceaccount default/default created\n");
}

// A refusal names the object, the server and its words, and stops there (exit 2).
TEST_F(KubeCommands, KubeSetupNamesWhatTheServerRefused) {
  kube::testing::Fault forbidden;
  forbidden.method = "POST";
  forbidden.path_prefix = "/api/v1/namespaces";
  forbidden.status = 403;
  forbidden.body =
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
      R"("message":"namespaces is forbidden: User \"u\" cannot create resource \"namespaces\"",)"
      R"("reason":"Forbidden","details":{"kind":"namespaces"},"code":403})";
  fake_.inject(forbidden);
  const Outcome o = run("kube setup --namespace team-x --kubeconfig " + kubeconfig());
  EXPECT_EQ(o.exit_code(), 2);
  EXPECT_EQ(o.err, "error: creating namespace team-x on " + fake_.url() +
                       R"(: 403 Forbidden: namespaces is forbidden: User "u" cannot create )"
                       R"(resource "namespaces")"
                       "\n");
  EXPECT_FALSE(fake_.get("/api/v1/namespaces/team-x/serviceaccounts", "default").has_value());
}

}  // namespace kube_commands_test
}  // namespace gantry::testing
