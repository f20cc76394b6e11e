#include "adapters/kube/kubelet_sim/serving_sim.hpp"

namespace gantry::kube {

ServingSim::ServingSim(KubeClient& client, ApiWorkers& workers, EventLoop& loop,
                       ServingSimOptions options)
    : options_(std::move(options)),
      load_(loop.clock(), options_.loads, options_.seed),
      deployments_(client, workers, loop, options_.deployments) {
  deployments_.set_listener(&load_);
}

ServingSim::~ServingSim() { stop(); }

void ServingSim::start() {
  endpoint_ = std::make_unique<MetricsEndpoint>(options_.metrics_listen,
                                                [this] { return load_.exposition(); });
  deployments_.start();
}

void ServingSim::stop() {
  deployments_.stop();
  endpoint_.reset();
}

}  // namespace gantry::kube
