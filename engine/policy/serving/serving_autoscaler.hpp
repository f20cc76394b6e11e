#pragma once
// The serving autoscalers both worlds run: Kubernetes' HPA and Knative's KPA, each with the
// arithmetic of its upstream controller (hpa_autoscaler.hpp, kpa_autoscaler.hpp), and `none`
// (a fixed count). A world calls decide() every tick() with the predictor's replica counts and
// metrics and carries out the answer: create replicas up to it, or remove the newest above it.

#include <memory>

#include "engine/cluster/service_spec.hpp"
#include "engine/core/time.hpp"
#include "engine/policy/serving/serving_metrics.hpp"

namespace gantry {

// One predictor's replica counts at a decision.
struct ReplicaCounts {
  int desired = 0;   // what the autoscaler asked for last (the Deployment's spec.replicas)
  int ready = 0;     // serving traffic
  int starting = 0;  // created, not ready yet (placement and cold start)
};

class ServingAutoscaler {
 public:
  virtual ~ServingAutoscaler() = default;
  // How often the world calls decide(): KPA 2 s, HPA 15 s (AutoscalerSpec).
  virtual Duration tick() const = 0;
  // The replica count wanted at `now`, within [min_replicas, max_replicas]. Called at every
  // tick, in time order; it may keep state (windows, panic mode, past recommendations).
  virtual int decide(Time now, const ReplicaCounts& counts, const ServingMetrics& metrics) = 0;
  // Whether a request arriving at a predictor with no replica should make the world call
  // decide() at once instead of at the next tick (Knative's activator "pokes" the autoscaler).
  virtual bool scales_from_zero() const { return false; }
};

// The autoscaler a spec asks for. The spec must have passed the loader's checks (HPA has
// min_replicas >= 1: Kubernetes disables an HPA whose target has zero replicas).
//   KPA   KpaAutoscaler (kpa_autoscaler.hpp), tick 2 s, scales from zero
//   HPA   HpaAutoscaler (hpa_autoscaler.hpp), tick sync_period 15 s
//   none  always min_replicas, which the loader sets from the service's `replicas`; tick
//         sync_period (the answer never changes, the tick only bounds how soon a world that
//         lost a replica hears the count again)
std::unique_ptr<ServingAutoscaler> make_serving_autoscaler(const AutoscalerSpec& spec);

}  // namespace gantry
