#pragma once
// Inference services in the live world (issue #14, "Live mode"): each predictor of a service a
// Deployment + Service (serving_objects.hpp), its replica count set by the same autoscaler the
// simulator runs (engine/policy/serving: make_serving_autoscaler), from request metrics scraped
// off the serving pods (metrics_scraper.hpp) and kept as ScrapedServingMetrics.
//
//   start()    an informer of the namespace's serving pods (label app.kubernetes.io/component=
//              serving); for every predictor, on a worker, the Deployment (with the initial
//              replicas: initial_replicas()) and the Service created or brought up to date
//              (serving_apply.hpp); the count the Deployment has then (a restarted Gantry keeps
//              its predecessor's) is where the autoscaler starts.
//   baseline   once the pod informer has listed (so that a restarted Gantry sees the pods it
//              finds with their counters as they are, not as an increase), a first scrape
//              round per predictor, decided on by nobody: the origin of its metrics, as the
//              simulator's buckets start with the service. The first tick's window then holds
//              the seconds since start().
//   tick       every autoscaler tick() (KPA 2 s, HPA 15 s) from start(), per predictor:
//                1. the scrape of its ready pods, on a worker (never on the event loop);
//                2. back on the loop: the round added to its metrics (when it could be read)
//                   and ServingAutoscaler::decide(tick instant, counts, metrics), with the
//                   ReplicaCounts of the pods the informer showed at the tick — desired: the
//                   replica count last set; ready: pods whose Ready condition is True;
//                   starting: the others not ended and not being deleted (placement, start-up,
//                   cold start);
//                3. a different answer is written at once: PATCH (merge) {"spec":{"replicas":n}}
//                   of the Deployment, on a worker.
//              The decision is taken at the tick's instant whatever the scrape's own duration
//              (on a virtual clock the two coincide), so the decisions are those of the
//              autoscaler called directly on the same counts and rounds, in the same order.
//              A tick whose predecessor's scrape is still out is skipped (counted). Writes
//              go one at a time per Deployment (the latest decision follows the one in
//              flight); a failed write leaves the count at what was written last, so the next
//              tick decides from it and writes again; a Deployment found gone is applied
//              again.
//
// Why a merge patch and not the scale subresource (PUT/PATCH deployments/{name}/scale, an
// autoscaling/v1 Scale, which is what the HPA writes): the OpenAPI documents Gantry checks its
// bodies against (tests/data/k8s-openapi) do not include apps/v1, and the tests' API server does
// not serve the subresource; for a Deployment both end in the same write of spec.replicas (RBAC
// differs: `patch deployments` instead of `update deployments/scale`).
//
// Departures from the simulated world (sim/serving/service_run.hpp): no activator poke (a
// request reaching a predictor at zero replicas is seen at the next tick, through the
// activator's own series when the metrics source has one — kubelet-sim's does); no held-request
// floor of one replica; a service's `start` offset is ignored (services start with start()).
// Gantry owns spec.replicas: a hand `kubectl scale` is not read back (it is overwritten at the
// next change of decision); a restart reads it once.
//
// Threads: construct, add_service(), start(), stop() and every accessor on the event loop's
// thread (or before it runs). Scrapes and writes run on `workers` and post back; the informer
// posts its events. Destroy after stop(), once the loop runs no more posts.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "adapters/kube/api_workers.hpp"
#include "adapters/kube/informer.hpp"
#include "adapters/kube/kube_client.hpp"
#include "adapters/kube/serving/metrics_scraper.hpp"
#include "adapters/kube/serving/scraped_serving_metrics.hpp"
#include "adapters/kube/serving/serving_objects.hpp"
#include "engine/cluster/service_spec.hpp"
#include "engine/core/event_loop.hpp"
#include "engine/policy/action_log.hpp"
#include "engine/policy/serving/serving_autoscaler.hpp"

namespace gantry::kube {

struct LiveServingOptions {
  ServingObjectOptions objects;  // namespace, scheduler name, ports
  // After a failed create-or-update, try again this much later.
  Duration reapply_after = seconds(10);
  // Whether this replica acts (set_active()).
  bool active = true;
};

// One decision of one predictor's autoscaler.
struct ScaleDecision {
  Time at;
  std::string service;
  std::string predictor;
  ReplicaCounts counts;  // what the autoscaler was given
  int desired = 0;       // what it answered
  bool scraped = false;  // this tick's round was read (else the metrics as they were)
};

struct LiveServingStats {
  int64_t applied = 0;  // predictors whose objects are in place
  int64_t apply_errors = 0;
  int64_t ticks = 0;           // decisions taken
  int64_t ticks_skipped = 0;   // a scrape still out, or the objects not in place yet
  int64_t scrapes_failed = 0;  // rounds that could not be read at all
  int64_t replica_writes = 0;  // replica counts written
  int64_t write_errors = 0;
  int64_t skipped_objects = 0;  // pods that could not be read
};

class LiveServing {
 public:
  // All must outlive this. `scraper` is called on the workers.
  LiveServing(KubeClient& client, ApiWorkers& workers, EventLoop& loop, MetricsScraper& scraper,
              LiveServingOptions options = {});
  ~LiveServing();
  LiveServing(const LiveServing&) = delete;
  LiveServing& operator=(const LiveServing&) = delete;

  // Before start(). The spec must have passed the loader's checks; it is copied. Throws
  // std::invalid_argument when a Deployment name would not be a DNS-1035 label, or the service
  // is there already.
  void add_service(const ServiceSpec& spec);

  void start();
  void stop();

  // With leader election, only the leader acts. An inactive LiveServing writes nothing (no
  // objects, no replica counts) and decides nothing, but keeps scraping every tick, so that its
  // windows are warm when it takes over. Becoming active applies the objects again (reading the
  // replica counts the Deployments have) and decides from the next tick.
  void set_active(bool active);
  bool active() const { return active_; }

  const Informer& pod_informer() const { return *pods_informer_; }
  const std::vector<ScaleDecision>& decisions() const { return decisions_; }
  // Each decision as a "scale" line (engine/policy/action_log.hpp; no "observed": the live
  // world knows its pods' counters, not the predictor's since start). Before start().
  void set_action_log(ActionLog* log) { action_log_ = log; }
  // Called with each decision, on the loop thread.
  void on_decision(std::function<void(const ScaleDecision&)> fn) { on_decision_ = std::move(fn); }
  // The replica count last set for a predictor; nullopt before its objects are in place (or
  // for an unknown one).
  std::optional<int> desired(const std::string& service, const std::string& predictor) const;
  // A predictor's metrics (nullptr for an unknown one), for reports and tests.
  const ScrapedServingMetrics* metrics(const std::string& service,
                                       const std::string& predictor) const;
  // The counts decide() would be given now.
  ReplicaCounts counts(const std::string& service, const std::string& predictor) const;
  LiveServingStats stats() const { return stats_; }

 private:
  struct Run {
    size_t service = 0;    // in services_
    size_t predictor = 0;  // in the spec's predictors
    std::string name;      // the Deployment's
    std::unique_ptr<ServingAutoscaler> autoscaler;
    std::unique_ptr<ScrapedServingMetrics> metrics;
    std::optional<int> desired;  // set once applied: the count decided last
    std::optional<int> written;  // the count the Deployment has, as far as Gantry knows
    bool scraping = false;
    bool writing = false;
    std::optional<TimerId> timer;
  };
  void apply(size_t run);
  void baseline(size_t run);
  // Scrapes on a worker; back on the loop the round goes into the run's metrics (or counts as
  // failed), then `then` is called, unless stopped.
  void scrape(size_t run, const ScrapeRequest& request,
              std::function<void(const ScrapeResult&)> then);
  void tick(size_t run, Time at);
  ScrapeRequest scrape_request(const Run& run, Time at) const;
  void decide(size_t run, Time at, ReplicaCounts counts, const ScrapeResult& result);
  void write(size_t run);
  const Run* find(const std::string& service, const std::string& predictor) const;
  ReplicaCounts counts_of(const Run& run) const;
  void on_pod(const nlohmann::json& object, bool deleted);

  KubeClient& client_;
  ApiWorkers& workers_;
  EventLoop& loop_;
  MetricsScraper& scraper_;
  LiveServingOptions options_;
  std::vector<ServiceSpec> services_;
  std::vector<Run> runs_;
  std::unique_ptr<Informer> pods_informer_;
  std::map<std::string, ServingPod> pods_;  // by key, the namespace's serving pods
  std::vector<ScaleDecision> decisions_;
  std::function<void(const ScaleDecision&)> on_decision_;
  ActionLog* action_log_ = nullptr;
  LiveServingStats stats_;
  bool started_ = false;
  bool stopped_ = false;
  bool active_ = true;
};

}  // namespace gantry::kube
