#pragma once
// One inference service, request by request (issue #14). Every request arrives (request_source),
// is routed to a predictor by traffic weight (engine/policy/serving/traffic_split), goes to a
// ready replica of it in turn (round robin, as kube-proxy spreads a Service's connections) or,
// when none is ready, waits in the activator; it queues in the replica, runs in a batch slot
// (replica_queue.hpp: prefill + decode time from its tokens and the replica's capacity) and
// leaves. The predictor's autoscaler (HPA or KPA, engine/policy/serving) reads the metrics the
// requests leave (metric_buckets.hpp) every tick and the run creates or removes replicas
// through a ReplicaHost. A replica takes no traffic until its cold start is over:
//   cold start = image pull (unless the node has the image) + model download (unless cached on
//                the node, or the rest of a download already under way there) + load.
//
// The run is a state machine a driver steps: next_wakeup() says when it next needs control,
// wake(now) processes every arrival up to now and whatever is due (replicas ready, replicas
// drained, autoscaler ticks), and the host reports placements with on_placed(). It needs no
// event per request: between two wake-ups the set of ready replicas is fixed, so each request's
// finish is computed when it arrives. Memory does not grow with the number of requests.
//
// Scale-down removes replicas still being placed first, then those in cold start, then the
// most recently ready (a ReplicaSet's deletion order); a removed ready replica takes no new
// requests and is released when its queue has drained. A request reaching a predictor with no
// replica at all makes a KPA scale to one at once (Knative's activator pokes the autoscaler).
// Knative starts a revision with one replica (initial-scale 1), so KPA services begin with
// max(minReplicas, 1); HPA and `none` begin with minReplicas.

#include <cstdint>
#include <deque>
#include <memory>
#include <queue>
#include <vector>

#include "engine/cluster/service_spec.hpp"
#include "engine/core/random.hpp"
#include "engine/metrics/log_histogram.hpp"
#include "engine/policy/action_log.hpp"
#include "engine/policy/serving/serving_autoscaler.hpp"
#include "sim/serving/metric_buckets.hpp"
#include "sim/serving/node_cache.hpp"
#include "sim/serving/replica_host.hpp"
#include "sim/serving/replica_queue.hpp"
#include "sim/serving/request_source.hpp"
#include "sim/serving/service_report.hpp"

namespace gantry {

class ServiceRun {
 public:
  struct Options {
    Duration report_interval = minutes(5);
    // When set, every autoscaler tick is a "scale" line (engine/policy/action_log.hpp) with the
    // predictor's metrics as counters, so the live world can be compared with this one.
    ActionLog* actions = nullptr;
  };

  // `scenario_start`: the service starts at scenario_start + spec.start. `random`: this
  // service's stream (arrivals and routing draw from it). `trace`: the load's rows when the
  // load is a trace. The spec must have passed the loader's checks; it is copied.
  ServiceRun(ServiceSpec spec, Time scenario_start, RandomStream random, ReplicaHost& host,
             std::shared_ptr<const std::vector<TraceRequest>> trace, Options options);
  ServiceRun(const ServiceRun&) = delete;
  ServiceRun& operator=(const ServiceRun&) = delete;
  ~ServiceRun();

  // The next instant the run needs wake() called; Time::max() when nothing is due.
  Time next_wakeup() const;
  // Processes arrivals up to and including `now`, then replicas ready or drained at `now`,
  // then the autoscaler's tick if one is due. `now` never goes backwards.
  void wake(Time now);
  // The host placed `replica` on `node` at `now` (now >= the replica's creation).
  void on_placed(int32_t replica, int32_t node, Time now);
  // The host lost `replica` at `now` (its node or GPU failed, it was drained or preempted): it
  // holds no GPU and takes no requests until placed again (on_placed), with a new cold start.
  // Requests in flight on it (queued or running) fail at `now`: they leave the served
  // figures and count as failed (missing the SLO); a closed report interval keeps them in its
  // latency. A replica being drained after a scale-down is released instead, its requests
  // failed the same way.
  void on_lost(int32_t replica, Time now);
  // Ends the run at `end`: the last interval is cut there and the totals computed.
  void finish(Time end);

  const ServiceSpec& spec() const { return spec_; }
  const ServiceReport& report() const { return report_; }

 private:
  enum class ReplicaState { kPlacing, kStarting, kReady, kDraining, kGone };
  struct Replica;
  struct Predictor;
  struct Due {
    int64_t at_us;
    int32_t replica;
    bool operator>(const Due& o) const {
      return at_us != o.at_us ? at_us > o.at_us : replica > o.replica;
    }
  };

  void begin(Time now);
  void advance(int64_t now_us);
  void route(const ServingRequest& r);
  void dispatch(Predictor& p, const ServingRequest& r, int64_t available_us);
  void roll_intervals(int64_t now_us);
  void close_interval(int64_t end_us);
  void change_levels(int64_t now_us, int ready, int starting, double gpus);
  void decide(Predictor& p, int index, Time now);
  void scale_to(Predictor& p, int index, int desired, Time now);
  void create_replica(int predictor, Time now);
  void remove_replica(int32_t replica, Time now);
  void make_ready(int32_t replica, int64_t now_us);
  void release(int32_t replica, int64_t now_us);
  void fail_in_flight(Replica& r, Predictor& p, int64_t at_us);
  int64_t cold_start_us(const Predictor& p, int32_t node, int64_t now_us);
  bool needs_poke() const;

  ServiceSpec spec_;
  Options options_;
  ReplicaHost& host_;
  RandomStream random_;
  std::unique_ptr<RequestSource> source_;
  ServingRequest next_{};
  bool has_next_ = false;
  int64_t start_us_;
  bool begun_ = false;
  bool finished_ = false;
  int64_t now_us_ = 0;
  int64_t next_tick_us_ = 0;
  int64_t tick_us_ = 0;
  int64_t slo_us_ = 0;
  bool track_in_flight_ = false;  // the host may lose replicas

  std::vector<Predictor> predictors_;
  std::vector<int> cumulative_percent_;  // routing thresholds, ends at 100
  std::vector<Replica> replicas_;
  std::priority_queue<Due, std::vector<Due>, std::greater<>> due_;
  NodeCache cache_;
  std::vector<int32_t> pokes_;  // predictors to scale from zero after the current batch

  // Totals and the open report interval.
  LogHistogram latency_;
  int64_t within_slo_ = 0;
  LogHistogram interval_latency_;
  int64_t interval_within_slo_ = 0;
  ServiceInterval interval_;
  int64_t interval_end_us_ = 0;
  int64_t level_since_us_ = 0;
  int ready_level_ = 0;
  int starting_level_ = 0;
  double gpu_level_ = 0;  // GPUs allocated (shares as fractions)
  double ready_integral_ = 0;
  double starting_integral_ = 0;
  double gpu_integral_us_ = 0;
  double total_gpu_integral_us_ = 0;
  ServiceReport report_;
};

}  // namespace gantry
