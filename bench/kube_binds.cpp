// Issue #11's figure: binds per second through the live adapter against the fake API server
// (target: at least 1,000 pods/s; kube-scheduler does about 100-300 pods/s).
//
// Each repetition: a fresh fake API server with `nodes` 8-GPU nodes (registered as kubelet-sim
// registers them) and `pods` pending single-pod gangs of 1 GPU for Gantry's scheduler; the live
// world (KubeWorld: informers, LiveScheduler with binpack, KubePodBinder on 8 API workers) is
// started on a wall-clock event loop and the clock runs until the fake server holds every pod
// bound. Reported: pods bound per second from the world's start to the last bind, and the
// peer in the same process: the same number of raw POST pods/NAME/binding requests through
// the same KubeClient and 8 threads (the transport's ceiling, without any scheduling).
//
// Usage: gantry-kube-binds [pods=5000] [nodes=1000] [repetitions=5]

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "adapters/kube/api_workers.hpp"
#include "adapters/kube/kubelet_sim/node_objects.hpp"
#include "adapters/kube/world/kube_world.hpp"
#include "engine/core/clock.hpp"
#include "tests/adapters/kube/fake_api_server.hpp"
#include "tests/adapters/kube/test_support.hpp"

namespace {

using namespace gantry;
using Clock = std::chrono::steady_clock;

Topology cluster(int nodes) {
  Topology t;
  t.gpus = GpuCatalog::with_defaults();
  t.classes.push_back(NodeClass{"dgx-a100", Resources{128'000, int64_t{1} << 40, 8, 0},
                                t.gpus.find("A100-80G"), 8});
  t.racks = {"r"};
  for (int i = 0; i < nodes; ++i) t.nodes.push_back(NodeInfo{fmt::format("n{:05d}", i), 0, 0});
  return t;
}

nlohmann::json pending_pod(int i) {
  return {{"metadata", {{"name", fmt::format("p{:06d}", i)}, {"namespace", "bench"}}},
          {"spec",
           {{"schedulerName", "gantry"},
            {"containers",
             {{{"name", "main"},
               {"resources", {{"requests", {{"cpu", "1"}, {"nvidia.com/gpu", "1"}}}}}}}}}},
          {"status", {{"phase", "Pending"}}}};
}

void seed(kube::testing::FakeApiServer& fake, const Topology& t, int pods) {
  for (NodeId n = 0; n < static_cast<NodeId>(t.nodes.size()); ++n)
    fake.apply("/api/v1/nodes", kube::node_object(t, n, Time::epoch()));
  for (int i = 0; i < pods; ++i) fake.apply("/api/v1/namespaces/bench/pods", pending_pod(i));
}

// The adapter: seconds from the world's start to the last of `pods` binds.
double adapter_run(int pods, int nodes) {
  kube::testing::FakeApiServer fake;
  const Topology t = cluster(nodes);
  seed(fake, t, pods);
  kube::KubeClient client(kube::testing::config_for(fake.url()),
                          kube::KubeClientOptions{.qps = 1e9, .burst = 1'000'000});
  EventLoop loop(std::make_unique<WallClock>());
  kube::KubeWorldOptions o;
  o.model = t;
  o.identity = "bench";
  o.api_threads = 8;
  kube::KubeWorld world(client, loop, std::move(o));
  const auto start = Clock::now();
  world.start();
  std::thread loop_thread([&] { loop.run(); });
  // Bound pods are counted on the server: the watch of the pods, as any observer would.
  kube::KubeClient observer(kube::testing::config_for(fake.url()));
  int bound = 0;
  Clock::time_point last;
  observer.watch(
      "/api/v1/namespaces/bench/pods?watch=true&resourceVersion=0", [&](kube::WatchEvent& e) {
        if (e.type == kube::WatchEventType::kModified && e.object["spec"].contains("nodeName")) {
          ++bound;
          last = Clock::now();
        }
        return bound < pods;
      });
  loop.stop();
  loop_thread.join();
  world.stop();
  return std::chrono::duration<double>(last - start).count();
}

// The peer: `pods` raw binding POSTs through one KubeClient on 8 threads.
double raw_binds(int pods, int nodes) {
  kube::testing::FakeApiServer fake;
  const Topology t = cluster(nodes);
  seed(fake, t, pods);
  kube::KubeClient client(kube::testing::config_for(fake.url()),
                          kube::KubeClientOptions{.qps = 1e9, .burst = 1'000'000});
  std::atomic<int> next{0};
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int w = 0; w < 8; ++w)
    threads.emplace_back([&] {
      for (int i; (i = next++) < pods;)
        client.bind("bench", fmt::format("p{:06d}", i), fmt::format("n{:05d}", i % nodes));
    });
  for (auto& th : threads) th.join();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int pods = argc > 1 ? std::atoi(argv[1]) : 5000;
  const int nodes = argc > 2 ? std::atoi(argv[2]) : 1000;
  const int reps = argc > 3 ? std::atoi(argv[3]) : 5;
  std::vector<double> adapter, raw;
  for (int r = 0; r < reps; ++r) {
    const double a = adapter_run(pods, nodes);
    const double b = raw_binds(pods, nodes);
    adapter.push_back(pods / a);
    raw.push_back(pods / b);
    fmt::print(
        "rep {}: adapter {:.0f} pods/s ({:.2f} s), raw binding POSTs {:.0f}/s ({:.2f} s), ratio "
        "{:.2f}\n",
        r + 1, pods / a, a, pods / b, b, a > 0 ? b / a : 0);
    std::fflush(stdout);
  }
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  fmt::print("median of {}: adapter {:.0f} pods/s, raw {:.0f} binds/s, adapter/raw {:.2f}\n", reps,
             median(adapter), median(raw), median(adapter) / median(raw));
}
