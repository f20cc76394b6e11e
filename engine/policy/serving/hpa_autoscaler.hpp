#pragma once
// HpaAutoscaler: Kubernetes' Horizontal Pod Autoscaler (autoscaling/v2) for one predictor, with
// the arithmetic of the upstream controller (kubernetes/kubernetes
// pkg/controller/podautoscaler/horizontal.go and replica_calculator.go) and its default behavior
// (kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/#default-behavior).
//
// ## One sync: decide(), every sync_period (15 s, --horizontal-pod-autoscaler-sync-period)
//
// current = counts.desired (the Deployment's spec.replicas, as upstream reads scale.Spec.Replicas).
//   current == 0        → min_replicas. Upstream disables an HPA whose target was scaled to 0 by
//                         hand; in Gantry current is 0 only before the first decision, when the
//                         Deployment is created, and KServe creates it at minReplicas. With
//                         min_replicas 0 the answer stays 0 for good, as upstream's disabled HPA.
//   current > max       → max_replicas;  current < min → min_replicas   (no metric read)
//   otherwise           → the replica calculator's proposal, stabilised, then rate-limited:
//
// 1. Replica calculator. The metric per ready pod is
//      gpu  100 · average(kGpuBusy,  now, sync_period) / ready   vs target_utilization (percent)
//      cpu  100 · average(kSlotsBusy, now, sync_period) / ready  vs target_utilization (percent)
//      qps  average(kArrivals, now, sync_period) / ready         vs target_qps (averageValue)
//    usageRatio = metric / target.
//      ready == 0                               → current (upstream: no metrics, no change)
//      no starting pod, or usageRatio <= 1:
//        |usageRatio − 1| <= tolerance (0.1)    → current
//        else                                   → ceil(usageRatio · ready)
//    Starting (not ready) pods are upstream's unready pods: ignored on a scale-down; on a
//    scale-up (usageRatio > 1) they count as pods using 0, so
//      newRatio = usageRatio · ready / (ready + starting)
//        |newRatio − 1| <= tolerance or newRatio < 1 (the direction flips) → current
//        else ceil(newRatio · (ready + starting)), but never below current.
//    Gantry has no "missing" pods (a ready replica always has metrics), so upstream's rule for
//    them (count as the target on a scale-down) never applies.
// 2. Stabilisation (behavior.scaleDown.stabilizationWindowSeconds 300, scaleUp 0): the proposal
//    is recorded with its time; a proposal below current becomes
//      min(current, the highest proposal recorded in (now − 300 s, now], this one included),
//    and one at or above current stays as it is. The first decide() also records current at that
//    instant (upstream's recordInitialRecommendation). A proposal recorded at exactly now − 300 s
//    no longer counts (upstream keeps timestamps strictly after the cutoff).
// 3. Rate limits (behavior defaults, selectPolicy Max):
//      scale-up    to at most max(periodStart + 4, ceil(2 · periodStart)) (policies Pods 4 and
//                  Percent 100 per 15 s), never below current, and at most max_replicas;
//      scale-down  Percent 100 per 15 s: no limit beyond min_replicas;
//    periodStart = current − replicas added + replicas removed by this autoscaler's decisions in
//    (now − 15 s, now] (a decision exactly 15 s ago is outside, as upstream's cutoff). With
//    decisions exactly one sync apart periodStart is current: 1 → 5, 10 → 20 per sync.
//
// Departures from upstream: the rounding allowance of serving_math.hpp (a ratio of exactly 1.1
// is within the tolerance; 72 % / 60 % · 5 is 6 replicas, not 7), the 0-replica case above, and
// no CPU initialisation period (a ready replica's metric counts from its first second).

#include <deque>

#include "engine/cluster/service_spec.hpp"
#include "engine/policy/serving/serving_autoscaler.hpp"

namespace gantry {

class HpaAutoscaler : public ServingAutoscaler {
 public:
  explicit HpaAutoscaler(const AutoscalerSpec& spec);

  Duration tick() const override { return spec_.sync_period; }
  int decide(Time now, const ReplicaCounts& counts, const ServingMetrics& metrics) override;

  // The replica calculator alone (step 1 above), for tests and reports.
  int proposal(Time now, const ReplicaCounts& counts, const ServingMetrics& metrics) const;

  // Upstream's scale-up rate limit for the default behavior (step 3), from periodStart.
  static int scale_up_limit(int period_start);

 private:
  struct Recommendation {
    Time at;
    int replicas = 0;
  };
  struct ScaleEvent {
    Time at;
    int change = 0;  // + added, − removed
  };

  int stabilise(Time now, int current, int proposed);
  int rate_limit(Time now, int current, int stabilised) const;

  AutoscalerSpec spec_;
  bool initialised_ = false;
  std::deque<Recommendation> recommendations_;  // within the stabilisation window, oldest first
  std::deque<ScaleEvent> events_;               // within one rate-limit period, oldest first
};

// The rate-limit period of the default behavior policies (periodSeconds 15).
inline constexpr Duration kHpaPolicyPeriod = seconds(15);

}  // namespace gantry
