#pragma once
// The action log: every action a world is asked to carry out and every observation it reports,
// one JSON object per line, in the order they happened. The simulated world writes it
// (`gantry simulate SCENARIO --actions FILE`) and the live adapter writes the same format, so a
// conformance test can run one scenario in both worlds and compare the two logs.
//
// Line shapes (keys in this order; absent keys are omitted):
//   {"t":"2026-01-05T08:10:00Z","kind":"bind","workload":3,
//    "pods":[{"pod":0,"node":"r1-n000","gpus":[0,1],"gpuMilli":0}, ...]}
//   {"t":...,"kind":"evict","workload":3,"reason":"preempted"}
//   {"t":...,"kind":"resize","workload":3,"replicas":4,"pods":[...]}   (pods: a scale-out's
//    new pods, numbered from the first added; absent for a scale-in)
//   {"t":...,"kind":"<observation kind>","workload":3,"pod":1,"node":"r1-n000","exitCode":137,
//    "reason":"..."}   (kinds as Observation::Kind's to_string: bound, running, finished, ...)
//   {"t":...,"kind":"scale","service":"chat","predictor":"v1","ready":2,"starting":1,"from":3,
//    "to":4,"observed":{"requests":1200,"concurrencySeconds":840.5,"gpuBusySeconds":...,
//    "slotsBusySeconds":...}}   (an inference service's autoscaler tick, issue #14: the replicas
//    it was given and its answer; "observed", the predictor's metrics as counters since the
//    service started, only where the world knows them whole: the simulator's)
// "gpus" lists the GPU indices of the node a pod holds (its whole GPUs, or the one GPU its share
// is on); "gpuMilli" is the share (0 for whole GPUs).
//
// Not thread-safe (event loop thread). Write errors surface as the stream's state, for the
// owner of the stream to check.

#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "engine/cluster/cluster.hpp"
#include "engine/policy/actions.hpp"
#include "engine/policy/serving/serving_metrics.hpp"

namespace gantry {

// One tick of an inference service's autoscaler, for the "scale" line.
struct ScaleRecord {
  std::string service;
  std::string predictor;
  int ready = 0;
  int starting = 0;  // placing or in their cold start
  int from = 0;      // the replica count set before the tick
  int to = 0;        // the autoscaler's answer
  // Indexed by ServingMetric: the integral of each since the service started (metric ·
  // seconds; kArrivals: requests).
  std::optional<std::array<double, 4>> observed;
};

class ActionLog {
 public:
  // Writes to `out`, which must outlive the log. Node names come from `cluster`.
  ActionLog(std::ostream& out, const Cluster& cluster) : out_(out), cluster_(cluster) {}

  void bind(Time at, const BindAction& action);
  void evict(Time at, const EvictAction& action);
  void resize(Time at, const ResizeAction& action);
  void observation(const Observation& o);
  void scale(Time at, const ScaleRecord& record);

 private:
  using Json = nlohmann::ordered_json;
  // The "pods" array: pods[i] is pod first_pod + i.
  Json pods_json(const std::vector<PodPlacement>& pods, const std::vector<Resources>& requests,
                 int32_t first_pod) const;

  std::ostream& out_;
  const Cluster& cluster_;
};

}  // namespace gantry
