#pragma once
// A whole live world for tests: the fake API server, kubelet-sim playing a topology's nodes,
// and the live world (KubeWorld) placing pods, on one virtual-time loop stepped by the
// LiveHarness. Constructed started and synced (every informer listed, every watch open).
// The namespaces the test writes in are the test's to create (FakeApiServer::create_namespace),
// as on a real cluster.

#include <memory>
#include <string>

#include "adapters/kube/kubelet_sim/kubelet_sim.hpp"
#include "adapters/kube/world/kube_world.hpp"
#include "tests/adapters/kube/fake_api_server.hpp"
#include "tests/adapters/kube/test_support.hpp"
#include "tests/adapters/kube/world/live_harness.hpp"

namespace gantry::kube::testing {

struct LiveStack {
  LiveStack(Time start, const Topology& topology, SchedulerConfig policy, Duration pod_startup,
            std::string identity = "gantry-0", Duration restart_delay = {}, bool drains = false)
      : loop(EventLoop::virtual_time(start)),
        client(config_for(fake.url())),
        kubelet_workers(4),
        kubelet(client, kubelet_workers, *loop, topology,
                KubeletSimOptions{.pod_startup = pod_startup,
                                  .renew_leases = false,
                                  // The server's clock keeps the loop's pace (speed 1).
                                  .server_now = [l = loop.get()] { return l->now(); }}),
        world(client, *loop,
              KubeWorldOptions{.model = topology,
                               .scheduler = {.scheduler_name = "gantry",
                                             .policy = policy,
                                             .restart_delay = restart_delay},
                               .identity = std::move(identity),
                               .drains = drains}),
        harness(*loop, fake) {
    kubelet.start();
    world.start();
    harness.add(kubelet_workers);
    harness.add(world.workers());
    harness.add(world.event_workers());
    harness.add(*kubelet.informer(), "/api/v1/pods", "spec.nodeName!=");
    harness.add(world.node_informer(), "/api/v1/nodes");
    harness.add(world.pod_informer(), "/api/v1/pods");
    if (drains) harness.add(world.drainer()->informer(), "/api/v1/pods", "spec.nodeName!=");
    const_cast<Informer&>(world.node_informer()).wait_for_sync();
    const_cast<Informer&>(world.pod_informer()).wait_for_sync();
    const_cast<Informer*>(kubelet.informer())->wait_for_sync();
    if (drains) const_cast<Informer&>(world.drainer()->informer()).wait_for_sync();
    fake.wait_for_watches_started(drains ? 4 : 3);
    harness.settle();
  }
  ~LiveStack() {
    world.stop();
    kubelet.stop();
  }
  LiveStack(const LiveStack&) = delete;
  LiveStack& operator=(const LiveStack&) = delete;

  FakeApiServer fake;
  std::unique_ptr<EventLoop> loop;
  KubeClient client;
  ApiWorkers kubelet_workers;
  KubeletSim kubelet;
  KubeWorld world;
  LiveHarness harness;
};

}  // namespace gantry::kube::testing
