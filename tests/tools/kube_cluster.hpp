#pragma once
// A live cluster for the end-to-end tests of `gantry serve --world kube`: the tests' fake API
// server (tests/adapters/kube/fake_api_server.hpp) with the real `gantry kubelet-sim` playing
// two nodes of four GPUs, a kubeconfig for it (namespace ml, created first), and a server of
// --world kube on it (the real program, serve_process.hpp). Shared by serve_command_test.cpp and
// serve_live_test.cpp.

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "tests/adapters/kube/fake_api_server.hpp"
#include "tests/tools/cli_harness.hpp"
#include "tests/tools/serve_process.hpp"

namespace gantry::testing {

inline const char* kTwoNodes = R"(apiVersion: gantry.dev/v1
kind: Scenario
metadata: {name: two-nodes}
spec:
  start: 2026-01-01T00:00:00Z
  cluster:
    fabric: {kind: InfiniBand, latency: 5us}
    storage: {bandwidth: 100GB/s}
    nodeClasses:
    - {name: box, cpu: "32", memory: 256Gi, gpu: {type: A100-80G, count: 4}, nic: 200Gbps}
    racks:
    - {name: r1, class: box, nodes: 2}
  workload:
    jobs:
    - {name: idle, submit: 0s, framework: PyTorch, roles: [{kind: Worker, replicas: 1, resources: {cpu: "1", memory: 1Gi}}], work: {steps: 1, stepCompute: 1s, gradientSize: 0B}}
  sim: {podStartup: 200ms}
)";

struct KubeCluster {
  explicit KubeCluster(kube::testing::FakeApiServerOptions options = {})
      : fake(std::move(options)) {}
  kube::testing::FakeApiServer fake;
  std::string kubeconfig, scenario;
  std::unique_ptr<ServeProcess> kubelet;
};

// Starts kubelet-sim (its stderr in `dir`/kubelet.stderr) on `scenario`, with `kubelet_more`
// flags; returns once it printed its first line. `fake` configures the API server (e.g. its
// garbage collector).
inline std::unique_ptr<KubeCluster> kube_cluster(const std::filesystem::path& dir,
                                                 const char* scenario = kTwoNodes,
                                                 const std::vector<std::string>& kubelet_more = {},
                                                 kube::testing::FakeApiServerOptions fake = {}) {
  auto c = std::make_unique<KubeCluster>(std::move(fake));
  c->fake.create_namespace(
      "ml");  // as on a real cluster: a pod in a namespace that does not exist is 404
  c->kubeconfig = (dir / "kubeconfig").string();
  std::ofstream(c->kubeconfig) << "apiVersion: v1\nkind: Config\ncurrent-context: t\nclusters:\n"
                               << "- name: f\n  cluster: {server: '" << c->fake.url() << "'}\n"
                               << "contexts:\n- name: t\n  context: {cluster: f, user: u, "
                               << "namespace: ml}\nusers:\n- name: u\n  user: {token: t0k}\n";
  c->scenario = (dir / "two-nodes.yaml").string();
  std::ofstream(c->scenario) << scenario;
  std::vector<std::string> args{"--kubeconfig", c->kubeconfig, "--cluster", c->scenario};
  args.insert(args.end(), kubelet_more.begin(), kubelet_more.end());
  c->kubelet = std::make_unique<ServeProcess>(kGantry, args, (dir / "kubelet.stderr").string(),
                                              "kubelet-sim");
  return c;
}

// `gantry serve --world kube` on `c` with the database `db` and `more` flags; its stderr in
// `dir`/<tag>.stderr.
inline std::unique_ptr<ServeProcess> serve_kube(const KubeCluster& c, const std::string& db,
                                                const std::filesystem::path& dir,
                                                const std::string& tag,
                                                const std::vector<std::string>& more = {}) {
  std::vector<std::string> args = {"--db",         db,           "--listen",
                                   "127.0.0.1:0",  "--world",    "kube",
                                   "--kubeconfig", c.kubeconfig, "--cluster",
                                   c.scenario,     "--ui",       (dir / "no-ui").string()};
  args.insert(args.end(), more.begin(), more.end());
  return std::make_unique<ServeProcess>(kGantry, args, (dir / (tag + ".stderr")).string());
}

}  // namespace gantry::testing
