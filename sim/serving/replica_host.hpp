#pragma once
// Where a service's replicas run. The request-level simulator (service_run.hpp) asks for a
// replica's pod and is told later where it landed; a host is the whole simulated cluster (the
// scheduler places replicas among training jobs: sim/serving/cluster_host.hpp) or, for spec
// tuning and benchmarks, an unbounded set of nodes (first_fit_host.hpp).

#include <cstdint>
#include <vector>

#include "engine/cluster/service_spec.hpp"
#include "engine/core/time.hpp"

namespace gantry {

class ServiceRun;

class ReplicaHost {
 public:
  virtual ~ReplicaHost() = default;
  // Place replica `replica` of `service`'s predictor `predictor`. The host calls
  // run.on_placed(replica, node, at) when (and if) it is placed — possibly before create()
  // returns.
  virtual void create(ServiceRun& run, int32_t replica, const PredictorSpec& predictor,
                      Time now) = 0;
  // The replica is gone at `now`: free what it holds (or stop trying to place it).
  virtual void release(ServiceRun& run, int32_t replica, Time now) = 0;
  // Up to `count` nodes where a replica of `predictor` would land now, best first (for
  // prefetching its model).
  virtual std::vector<int32_t> likely_nodes(const PredictorSpec& predictor, int count) = 0;
  // Whether the host may take a placed replica away (ServiceRun::on_lost): the run then keeps
  // each replica's requests in flight, to fail them when it happens.
  virtual bool may_lose_replicas() const { return false; }
};

}  // namespace gantry
