#pragma once
// How fast a job would train at a given size: what the goodput policy (elastic_rules.hpp) needs
// and the engine cannot compute itself (DESIGN.md rule 3: a policy never knows which world it
// runs in). The simulated world implements it with its step-time model
// (sim/step_time_throughput.hpp); a live world could fit one to observed step times, as Pollux
// does.

#include "engine/cluster/cluster.hpp"
#include "engine/cluster/job.hpp"

namespace gantry {

class ThroughputModel {
 public:
  virtual ~ThroughputModel() = default;
  // Training steps per second of `job` with `workers` replicas of its last (elastic, Worker)
  // role and its other roles as specified, on `cluster`. Where the pods would land is the
  // model's own estimate (the policy asks about sizes, not placements). Must be >= 0; 0 means
  // "unknown", and the policy leaves such a job alone. Called on the event loop thread.
  virtual double steps_per_second(const Cluster& cluster, const JobSpec& job,
                                  int workers) const = 0;
};

}  // namespace gantry
