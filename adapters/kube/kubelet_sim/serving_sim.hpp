#pragma once
// kubelet-sim's serving parts assembled, for `gantry kubelet-sim --serving-load ...`: the
// Deployment stand-in (deployment_sim.hpp) telling the simulated load (serving_load.hpp) about
// every serving Deployment and pod, and the load's counters served on a loopback Prometheus
// endpoint (metrics_endpoint.hpp) for Gantry's LiveServing to scrape with an EndpointScraper
// (adapters/kube/serving/metrics_scraper.hpp).
//
// Threads: construct, start() and stop() on the event loop's thread (or before it runs); see
// the parts. Destroy after stop(), once the loop runs no more posts.

#include <memory>
#include <string>
#include <vector>

#include "adapters/kube/kubelet_sim/deployment_sim.hpp"
#include "adapters/kube/kubelet_sim/metrics_endpoint.hpp"
#include "adapters/kube/kubelet_sim/serving_load.hpp"

namespace gantry::kube {

struct ServingSimOptions {
  std::vector<ServingLoadSpec> loads;  // --serving-load, one per service
  uint64_t seed = 0;                   // of the arrivals and the routing
  // The endpoint's address; port 0 picks a free one. Loopback unless asked otherwise.
  std::string metrics_listen = "127.0.0.1:9400";
  DeploymentSimOptions deployments{};
};

class ServingSim {
 public:
  // All must outlive it. Does not contact the server or listen yet.
  ServingSim(KubeClient& client, ApiWorkers& workers, EventLoop& loop, ServingSimOptions options);
  ~ServingSim();
  ServingSim(const ServingSim&) = delete;
  ServingSim& operator=(const ServingSim&) = delete;

  // Listens (throws std::runtime_error naming the address when it cannot), then starts the
  // Deployment stand-in's informers.
  void start();
  void stop();

  // "http://127.0.0.1:PORT/metrics" once started.
  std::string metrics_url() const { return endpoint_ ? endpoint_->url() : std::string(); }
  DeploymentSim& deployments() { return deployments_; }
  ServingLoad& load() { return load_; }

 private:
  ServingSimOptions options_;
  ServingLoad load_;
  DeploymentSim deployments_;
  std::unique_ptr<MetricsEndpoint> endpoint_;
};

}  // namespace gantry::kube
