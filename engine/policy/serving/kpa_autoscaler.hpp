#pragma once
// KpaAutoscaler: Knative's Pod Autoscaler for one predictor (revision), with the arithmetic of
// knative/serving pkg/autoscaler/scaling/autoscaler.go (Scale()) and the bounds and
// scale-to-zero of pkg/reconciler/autoscaling/kpa/scaler.go; defaults of config-autoscaler
// (AutoscalerSpec names them).
//
// ## One tick (decide(), every tick = 2 s, Knative's tickInterval)
//
//   readyPods   = max(1, ready)                        (starting pods are not counted)
//   stable      = average(kConcurrency, now, stable_window = 60 s)
//   panic       = average(kConcurrency, now, panic_window = 6 s)
//   target      = target_concurrency · target_utilization_percent / 100
//   maxScaleUp  = ceil(max_scale_up_rate · readyPods)
//   maxScaleDown= floor(readyPods / max_scale_down_rate)      (0 when the rate is <= 0)
//   dspc = ceil(stable / target),  dppc = ceil(panic / target)
//   desiredStable = min(max(dspc, maxScaleDown), maxScaleUp)   (same for desiredPanic)
//   overPanicThreshold = dppc / readyPods >= panic_threshold (2.0)
// Upstream compares the *rounded* panic desire dppc, not panic / target, with the threshold: 2
// ready pods at target 10 panic from a 6 s concurrency of 30.0001 (dppc 4), not only from 40.
// Panic mode:
//   enter    when not panicking and over the threshold (panicTime = now)
//   extend   when over the threshold (panicTime = now)
//   leave    when not over the threshold and panicTime + stable_window < now, strictly: with the
//            last over-threshold tick at T, the tick at T + 60 s still panics, T + 62 s leaves
// Desire:
//   stable mode  desiredStable
//   panic mode   maxPanicPods = max(maxPanicPods, desiredStable, desiredPanic); desire =
//                maxPanicPods — never a scale-down while panicking (maxPanicPods resets to 0
//                on leaving)
// With scale_down_delay (Knative's scale-down-delay, default 0) the desire is then the highest
// desire of the ticks within the last scale_down_delay (upstream's delayWindow: a max over a
// time window), so it goes down only once every tick of the delay wanted less. Then it is
// clamped to [min_replicas, max_replicas] (the PodAutoscaler's scale bounds).
//
// Scale-down per tick is at most by the factor max_scale_down_rate (10 ready → at least 5), so
// with the default rate 2 the desire reaches 0 only from readyPods 1 (floor(1 / 2) = 0), and
// only when the stable average is exactly 0: no request in the system (running, queued or held
// by the activator) for the whole stable window, or since the first sample.
//
// ## Scale to zero
//
// Knative marks an idle revision inactive, routes it through the activator, and removes the
// last pod once the activator has been in the path for scale-to-zero-grace-period (30 s). Gantry
// models that as: when the clamped desire is 0, the first such tick is noted (zeroSince); until
// now − zeroSince >= scale_to_zero_grace the answer is counts.desired (the Deployment stays as it
// is, as Knative does not apply a 0 before the grace), and from then on 0. Any tick with a
// desire above 0 forgets zeroSince. A predictor already at 0 stays at 0 at once.
//
// ## From zero
//
// With no replica the activator holds the requests, and they count in kConcurrency; readyPods is
// 1, so any concurrency above 0 gives dspc = 1 and a desire of 1 (more under a burst: dppc / 1
// >= 2 panics at once). scales_from_zero() is true: the world calls decide() when a request
// arrives at a predictor with no replica, as the activator pokes the autoscaler.
//
// ## Starting pods
//
// Upstream counts ready pods only. While replicas start (ready 0, starting > 0) readyPods is 1,
// so maxScaleDown is 0 and a panic from dppc >= 2 holds the count during a cold start; a stable
// desire below counts.desired (a burst that ended before the replicas were ready) does scale
// down, as in Knative.
//
// Not modelled: initial-scale (a new revision starts at 0 replicas, or min_replicas),
// activation-scale, target-burst-capacity and the activator's subsetting, and
// the autoscaler starting in panic after a restart. Rounding: serving_math.hpp.

#include <deque>
#include <optional>
#include <utility>

#include "engine/cluster/service_spec.hpp"
#include "engine/policy/serving/serving_autoscaler.hpp"

namespace gantry {

class KpaAutoscaler : public ServingAutoscaler {
 public:
  explicit KpaAutoscaler(const AutoscalerSpec& spec);

  Duration tick() const override { return spec_.tick; }
  int decide(Time now, const ReplicaCounts& counts, const ServingMetrics& metrics) override;
  bool scales_from_zero() const override { return true; }

  // State after the last decide(), for tests and reports.
  bool panicking() const { return panic_time_.has_value(); }
  int max_panic_pods() const { return max_panic_pods_; }

 private:
  AutoscalerSpec spec_;
  std::optional<Time> panic_time_;  // upstream's panicTime: the last over-threshold tick
  int max_panic_pods_ = 0;
  std::optional<Time> zero_since_;           // first tick of the current run of 0 desires
  std::deque<std::pair<Time, int>> recent_;  // (tick, desire) within scale_down_delay
};

}  // namespace gantry
