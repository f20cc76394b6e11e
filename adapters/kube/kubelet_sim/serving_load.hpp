#pragma once
// kubelet-sim's simulated requests for serving pods, and the per-pod Prometheus counters they
// leave (adapters/kube/serving/serving_metric_names.hpp), so the live autoscaler has metrics to
// read without a model server: `gantry kubelet-sim --serving-load chat=50` (parse_serving_load).
//
// Model (modest on purpose, deterministic for a seed):
//   arrivals   per service, Poisson at `qps` (RandomStreams(seed).stream(
//              "kubelet-sim.serving-load.<service>")), or exactly every 1 / qps (`periodic`);
//              the first one 1 / qps after the start when periodic
//   routing    to a predictor (a Deployment of the service: DeploymentSim tells) by its
//              gantry.dev/traffic percent (a weighted draw from the same stream when the service
//              has more than one), then to its Ready pod with the fewest requests in it (ties:
//              by name); with no Ready pod the predictor's activator holds the request, and
//              hands it on when a pod becomes Ready
//   service    every request takes `service_time` once in a batch slot; a pod runs up to its
//              gantry.dev/max-batch requests at once, the others queue in arrival order
//   counted    each request once where it arrives (a pod, or the activator);
//              concurrency-seconds where it waits or runs; GPU busy while a pod runs any;
//              batch slots busy as running / max batch
// A pod deleted or no longer Ready drops the requests in it (its counters with it); a
// predictor deleted drops its activator's. Requests of a service with no predictor are dropped
// (counted in dropped()).
//
// Time is the clock's (the event loop's: virtual in tests, scaled wall time with --speed).
// exposition() advances the model to now and renders it; events are processed in time order,
// so what a scrape sees depends only on the instants of the scrape and of the pods' changes.
//
// Thread-safety: every method locks; exposition() is called on the endpoint's threads (reading
// the clock there: a VirtualClock is only safe to read while nothing moves it, as in the tests'
// harness, which moves time only when the workers that scrape are idle).

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "adapters/kube/kubelet_sim/deployment_sim.hpp"
#include "adapters/kube/serving/serving_metric_names.hpp"
#include "engine/core/clock.hpp"
#include "engine/core/random.hpp"

namespace gantry::kube {

struct ServingLoadSpec {
  std::string service;
  double qps = 0;
  Duration service_time = seconds(1);
  bool periodic = false;  // arrivals exactly every 1 / qps instead of Poisson
};

// "SERVICE=QPS[:SERVICE_TIME[:periodic]]": "chat=50", "chat=50:2s", "chat=4:500ms:periodic".
// QPS above 0 and at most 1e6, the service time above 0 and at most 1 h. Throws InputError
// naming `flag`.
ServingLoadSpec parse_serving_load(const std::string& text,
                                   const std::string& flag = "--serving-load");

class ServingLoad final : public ServingObjectsListener {
 public:
  // The model starts at clock.now(). `clock` must outlive it.
  ServingLoad(const Clock& clock, std::vector<ServingLoadSpec> loads, uint64_t seed = 0);

  // ServingObjectsListener (DeploymentSim, on the loop thread).
  void deployment_changed(const ServingDeployment& d, bool deleted) override;
  void pod_changed(const ServingPod& pod, bool deleted) override;

  // Every pod's and activator's series at the clock's now (serving_metric_names.hpp), labelled
  // namespace, service, predictor, pod.
  std::string exposition();
  // The counters of pod "ns/name" at the clock's now (zeros when unknown).
  PodCounters counters(const std::string& pod_key);
  // The counters of a predictor's activator ("ns/<deployment>").
  PodCounters activator(const std::string& deployment_key);
  int64_t dropped();

 private:
  struct Pod {
    std::string namespace_name, name, service, predictor;
    bool ready = false;
    int max_batch = 1;
    std::vector<int64_t> running;  // finish instants (µs), a min-heap
    int64_t waiting = 0;
    PodCounters counters;
  };
  struct Predictor {
    std::string namespace_name, name, service, predictor;  // name: the Deployment's
    double traffic = 0;
    int64_t held = 0;
    PodCounters counters;  // the activator's
  };
  struct Service {
    ServingLoadSpec spec;
    RandomStream random;
    int64_t next_us = 0;
  };
  void advance(int64_t to_us);
  void integrate(int64_t to_us);
  void arrive(Service& s, int64_t at_us);
  void admit(Pod& p, int64_t at_us);
  void finish_one(Pod& p, int64_t at_us);
  Pod* least_loaded(const std::string& ns, const std::string& service,
                    const std::string& predictor);
  void release_held(Predictor& pr, int64_t at_us);
  int64_t interval_us(Service& s);

  const Clock& clock_;
  std::mutex mutex_;
  int64_t now_us_;                               // guarded by mutex_
  std::map<std::string, Service> services_;      // by service name; guarded by mutex_
  std::map<std::string, Predictor> predictors_;  // by Deployment key; guarded by mutex_
  std::map<std::string, Pod> pods_;              // by pod key; guarded by mutex_
  int64_t dropped_ = 0;                          // guarded by mutex_
};

}  // namespace gantry::kube
