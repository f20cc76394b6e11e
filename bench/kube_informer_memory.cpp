// Issue #11's figure: the informers' memory for 5,000 nodes and 100,000 pods (target: under
// 500 MiB).
//
// The fake API server runs in a child process (its own copy of every object and of the watch
// history must not count); it is seeded with `nodes` Nodes as kubelet-sim registers them and
// `pods` Pods shaped like a training operator's (labels, an owner, a container with resources,
// environment and mounts, a Running status with conditions). This process then lists and
// watches both collections with two Informers, as the live world does, and reports its
// resident memory (VmRSS, VmHWM from /proc/self/status) before and after the caches are full.
//
// Usage: gantry-kube-informer-memory [nodes=5000] [pods=100000]

#include <fmt/format.h>
#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>

#include "adapters/kube/informer.hpp"
#include "adapters/kube/kubelet_sim/node_objects.hpp"
#include "tests/adapters/kube/fake_api_server.hpp"
#include "tests/adapters/kube/test_support.hpp"

namespace {

using namespace gantry;

int64_t status_kib(const char* key) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key, 0) == 0) return std::stoll(line.substr(std::string(key).size()));
  return -1;
}

nlohmann::json training_pod(int i, int nodes) {
  const std::string job = fmt::format("job-{:05d}", i / 4);
  const std::string name = fmt::format("{}-worker-{}", job, i % 4);
  return {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata",
       {{"name", name},
        {"namespace", fmt::format("team-{}", i % 20)},
        {"labels",
         {{"gantry.dev/gang", job},
          {"training.kubeflow.org/job-name", job},
          {"training.kubeflow.org/replica-type", "worker"},
          {"training.kubeflow.org/replica-index", std::to_string(i % 4)}}},
        {"annotations", {{"gantry.dev/gang-size", "4"}, {"gantry.dev/gpu-index", "0,1"}}},
        {"ownerReferences",
         {{{"apiVersion", "kubeflow.org/v1"},
           {"kind", "PyTorchJob"},
           {"name", job},
           {"uid", fmt::format("6d1c0a3e-0000-4000-8000-{:012d}", i / 4)},
           {"controller", true}}}}}},
      {"spec",
       {{"schedulerName", "gantry"},
        {"nodeName", fmt::format("n{:05d}", i % nodes)},
        {"restartPolicy", "Never"},
        {"containers",
         {{{"name", "pytorch"},
           {"image", "registry.local/team/train:2026-11-01"},
           {"command", {"torchrun", "--nproc-per-node=2", "train.py"}},
           {"env",
            {{{"name", "MASTER_ADDR"}, {"value", job + "-master-0"}},
             {{"name", "MASTER_PORT"}, {"value", "23456"}},
             {{"name", "WORLD_SIZE"}, {"value", "4"}},
             {{"name", "RANK"}, {"value", std::to_string(i % 4)}}}},
           {"resources",
            {{"requests", {{"cpu", "8"}, {"memory", "64Gi"}, {"nvidia.com/gpu", "2"}}},
             {"limits", {{"nvidia.com/gpu", "2"}}}}},
           {"volumeMounts", {{{"name", "data"}, {"mountPath", "/data"}}}}}}},
        {"volumes", {{{"name", "data"}, {"persistentVolumeClaim", {{"claimName", "datasets"}}}}}}}},
      {"status",
       {{"phase", "Running"},
        {"podIP", fmt::format("10.{}.{}.{}", i / 65536 % 256, i / 256 % 256, i % 256)},
        {"hostIP", fmt::format("192.168.{}.{}", i % nodes / 256, i % nodes % 256)},
        {"startTime", "2026-11-24T00:00:05Z"},
        {"conditions",
         {{{"type", "Initialized"}, {"status", "True"}},
          {{"type", "Ready"}, {"status", "True"}},
          {{"type", "ContainersReady"}, {"status", "True"}},
          {{"type", "PodScheduled"}, {"status", "True"}}}},
        {"containerStatuses",
         {{{"name", "pytorch"},
           {"ready", true},
           {"restartCount", 0},
           {"image", "registry.local/team/train:2026-11-01"},
           {"state", {{"running", {{"startedAt", "2026-11-24T00:00:05Z"}}}}}}}}}}};
}

}  // namespace

int main(int argc, char** argv) {
  const int nodes = argc > 1 ? std::atoi(argv[1]) : 5000;
  const int pods = argc > 2 ? std::atoi(argv[2]) : 100000;
  int url_pipe[2], hold_pipe[2];
  if (::pipe(url_pipe) != 0 || ::pipe(hold_pipe) != 0) return 1;
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(url_pipe[0]);
    ::close(hold_pipe[1]);
    kube::testing::FakeApiServer fake;
    Topology t;
    t.gpus = GpuCatalog::with_defaults();
    t.classes.push_back(NodeClass{"dgx-a100", Resources{128'000, int64_t{1} << 40, 8, 0},
                                  t.gpus.find("A100-80G"), 8});
    t.racks = {"r"};
    for (int i = 0; i < nodes; ++i) t.nodes.push_back(NodeInfo{fmt::format("n{:05d}", i), 0, 0});
    for (NodeId n = 0; n < nodes; ++n)
      fake.apply("/api/v1/nodes", kube::node_object(t, n, Time::epoch()));
    for (int i = 0; i < pods; ++i) {
      nlohmann::json p = training_pod(i, nodes);
      const std::string ns = p["metadata"]["namespace"];
      fake.apply("/api/v1/namespaces/" + ns + "/pods", std::move(p));
    }
    const std::string url = fake.url() + "\n";
    if (::write(url_pipe[1], url.data(), url.size()) < 0) ::_exit(1);
    char c;
    while (::read(hold_pipe[0], &c, 1) > 0) {
    }
    ::_exit(0);
  }
  ::close(url_pipe[1]);
  ::close(hold_pipe[0]);
  std::string url;
  for (char c; ::read(url_pipe[0], &c, 1) == 1 && c != '\n';) url += c;
  const int64_t before = status_kib("VmRSS:");
  const auto start = std::chrono::steady_clock::now();
  {
    kube::KubeClient client(kube::testing::config_for(url));
    kube::InformerOptions no{.path = "/api/v1/nodes"};
    kube::InformerOptions po{.path = "/api/v1/pods"};
    kube::Informer node_informer(client, no);
    kube::Informer pod_informer(client, po);
    node_informer.start();
    pod_informer.start();
    node_informer.wait_for_sync();
    pod_informer.wait_for_sync();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const int64_t untrimmed = status_kib("VmRSS:");
    // Freed parse buffers stay in malloc's arenas until trimmed; what the caches hold is what
    // is left after giving them back.
    malloc_trim(0);
    const int64_t after = status_kib("VmRSS:");
    fmt::print("RSS before malloc_trim {:.1f} MiB\n", untrimmed / 1024.0);
    const int64_t peak = status_kib("VmHWM:");
    fmt::print(
        "{} nodes, {} pods cached in {:.1f} s; RSS before {:.1f} MiB, after {:.1f} MiB "
        "(informers {:.1f} MiB, {:.2f} KiB per object), peak {:.1f} MiB\n",
        node_informer.cache().size(), pod_informer.cache().size(), seconds, before / 1024.0,
        after / 1024.0, (after - before) / 1024.0,
        static_cast<double>(after - before) / (nodes + pods), peak / 1024.0);
  }
  ::close(hold_pipe[1]);
  int status = 0;
  ::waitpid(child, &status, 0);
  return 0;
}
