#include "adapters/kube/serving/live_serving.hpp"

#include <algorithm>
#include <stdexcept>

#include "adapters/kube/serving/serving_apply.hpp"
#include "engine/core/errors.hpp"

namespace gantry::kube {

namespace {

// The longest window an autoscaler of `a` asks ServingMetrics for.
Duration metrics_keep(const AutoscalerSpec& a) {
  return std::max({a.stable_window, a.panic_window, a.sync_period, a.tick});
}

}  // namespace

LiveServing::LiveServing(KubeClient& client, ApiWorkers& workers, EventLoop& loop,
                         MetricsScraper& scraper, LiveServingOptions options)
    : client_(client),
      workers_(workers),
      loop_(loop),
      scraper_(scraper),
      options_(std::move(options)),
      active_(options_.active) {}

LiveServing::~LiveServing() { stop(); }

void LiveServing::add_service(const ServiceSpec& spec) {
  if (started_) throw std::logic_error("LiveServing::add_service after start()");
  for (const ServiceSpec& s : services_)
    if (s.name == spec.name)
      throw std::invalid_argument("service " + spec.name + " is there already");
  for (const PredictorSpec& p : spec.predictors) predictor_object_name(spec, p);  // throws
  services_.push_back(spec);
  const size_t index = services_.size() - 1;
  for (size_t i = 0; i < spec.predictors.size(); ++i) {
    Run run;
    run.service = index;
    run.predictor = i;
    run.name = predictor_object_name(spec, spec.predictors[i]);
    run.autoscaler = make_serving_autoscaler(spec.autoscaler);
    run.metrics = std::make_unique<ScrapedServingMetrics>(metrics_keep(spec.autoscaler));
    runs_.push_back(std::move(run));
  }
}

void LiveServing::start() {
  if (started_) return;
  started_ = true;
  InformerOptions io;
  io.path = "/api/v1/namespaces/" + options_.objects.namespace_name + "/pods";
  io.label_selector = std::string(kServingSelector);
  io.dispatch = [this](std::function<void()> fn) { loop_.post(std::move(fn)); };
  pods_informer_ = std::make_unique<Informer>(client_, std::move(io));
  pods_informer_->add_handler([this](const InformerEvent& e) {
    if (!stopped_) on_pod(e.object, e.type == InformerEventType::kDeleted);
  });
  pods_informer_->start();
  const Time now = loop_.now();
  for (size_t i = 0; i < runs_.size(); ++i) {
    if (active_) apply(i);
    const Duration every = runs_[i].autoscaler->tick();
    runs_[i].timer = loop_.schedule_at(now + every, [this, i, at = now + every] { tick(i, at); });
    runs_[i].scraping = true;  // the baseline's
  }
  // The informer's first list is dispatched (posted) before wait_for_sync() returns, so the
  // post below finds the pods it listed.
  workers_.submit([this] {
    pods_informer_->wait_for_sync();
    loop_.post([this] {
      for (size_t i = 0; i < runs_.size(); ++i) baseline(i);
    });
  });
}

ScrapeRequest LiveServing::scrape_request(const Run& run, Time at) const {
  const ServiceSpec& spec = services_[run.service];
  ScrapeRequest request;
  request.at = at;
  request.namespace_name = options_.objects.namespace_name;
  request.service = spec.name;
  request.predictor = spec.predictors[run.predictor].name;
  for (const auto& [key, pod] : pods_) {
    if (pod.service == request.service && pod.predictor == request.predictor && pod.live() &&
        pod.ready)
      request.pods.push_back(ScrapeTarget{pod.name, pod.pod_ip});
  }
  return request;
}

void LiveServing::baseline(size_t index) {
  if (stopped_) return;
  scrape(index, scrape_request(runs_[index], loop_.now()), {});
}

void LiveServing::scrape(size_t index, const ScrapeRequest& request,
                         std::function<void(const ScrapeResult&)> then) {
  runs_[index].scraping = true;
  workers_.submit([this, index, request, then = std::move(then)] {
    ScrapeResult result;
    try {
      result = scraper_.scrape(request);
    } catch (const std::exception& e) {
      result = ScrapeResult{};
      result.errors.push_back(e.what());
    }
    loop_.post([this, index, at = request.at, result, then] {
      Run& run = runs_[index];
      run.scraping = false;
      if (stopped_) return;
      if (result.ok) {
        run.metrics->add_scrape(at, result.pods, result.failed);
      } else {
        ++stats_.scrapes_failed;
      }
      if (then) then(result);
    });
  });
}

void LiveServing::stop() {
  if (stopped_) return;
  stopped_ = true;
  if (pods_informer_) pods_informer_->stop();
  for (Run& r : runs_) {
    if (r.timer) loop_.cancel(*r.timer);
    r.timer.reset();
  }
}

void LiveServing::set_active(bool active) {
  if (active == active_) return;
  active_ = active;
  if (!active_ || !started_ || stopped_) return;
  for (size_t i = 0; i < runs_.size(); ++i) {
    runs_[i].desired.reset();
    runs_[i].written.reset();
    apply(i);
  }
}

void LiveServing::apply(size_t index) {
  const Run& run = runs_[index];
  const ServiceSpec& spec = services_[run.service];
  const PredictorSpec& predictor = spec.predictors[run.predictor];
  const nlohmann::json deployment =
      deployment_body(spec, predictor, initial_replicas(spec.autoscaler), options_.objects);
  const nlohmann::json service = service_body(spec, predictor, options_.objects);
  workers_.submit([this, index, deployment, service] {
    std::optional<int> replicas;
    try {
      const ApplyResult d = apply_deployment(client_, deployment);
      apply_service(client_, service);
      replicas = d.object.contains("spec") ? d.object["spec"].value("replicas", 1) : 1;
    } catch (const std::exception&) {
      replicas.reset();
    }
    loop_.post([this, index, replicas] {
      if (stopped_ || !active_) return;
      if (!replicas) {
        ++stats_.apply_errors;
        loop_.schedule_after(options_.reapply_after, [this, index] {
          if (!stopped_ && active_) apply(index);
        });
        return;
      }
      runs_[index].desired = *replicas;
      runs_[index].written = *replicas;
      ++stats_.applied;
    });
  });
}

void LiveServing::tick(size_t index, Time at) {
  Run& run = runs_[index];
  run.timer.reset();
  if (stopped_) return;
  const Time next = at + run.autoscaler->tick();
  run.timer = loop_.schedule_at(next, [this, index, next] { tick(index, next); });
  // Active: decide once the objects are in place. Inactive: scrape only (warm windows).
  if (run.scraping || (active_ && !run.desired)) {
    ++stats_.ticks_skipped;
    return;
  }
  const ScrapeRequest request = scrape_request(run, at);
  // The counts as the loop knows them at the tick (not when the scrape is back: changes
  // arriving meanwhile would make the decision depend on the scrape's speed).
  const ReplicaCounts counts = counts_of(run);
  scrape(index, request, [this, index, at, counts](const ScrapeResult& result) {
    decide(index, at, counts, result);
  });
}

void LiveServing::decide(size_t index, Time at, ReplicaCounts counts, const ScrapeResult& result) {
  Run& run = runs_[index];
  if (!active_ || !run.desired) return;
  // A write that failed since the tick restored the count: decide from the count as it is.
  counts.desired = *run.desired;
  const int desired = run.autoscaler->decide(at, counts, *run.metrics);
  ++stats_.ticks;
  const ServiceSpec& spec = services_[run.service];
  decisions_.push_back(ScaleDecision{at, spec.name, spec.predictors[run.predictor].name, counts,
                                     desired, result.ok});
  if (on_decision_) on_decision_(decisions_.back());
  if (action_log_ != nullptr)
    action_log_->scale(at, ScaleRecord{spec.name, spec.predictors[run.predictor].name, counts.ready,
                                       counts.starting, counts.desired, desired, std::nullopt});
  if (desired != counts.desired) {
    run.desired = desired;
    write(index);
  }
}

void LiveServing::write(size_t index) {
  Run& run = runs_[index];
  // One write at a time per Deployment, so that two cannot land in the wrong order; the
  // latest decision is written when the one in flight is done.
  if (run.writing || !active_ || !run.desired || run.written == run.desired) return;
  const int replicas = *run.desired;
  run.writing = true;
  const std::string ns = options_.objects.namespace_name;
  const std::string name = run.name;
  workers_.submit([this, index, ns, name, replicas] {
    // 0 written, 1 the Deployment is gone, 2 another failure.
    int outcome = 2;
    try {
      outcome = write_replicas(client_, ns, name, replicas) == WriteOutcome::kOk ? 0 : 1;
    } catch (const std::exception&) {
      outcome = 2;
    }
    loop_.post([this, index, replicas, outcome] {
      Run& r = runs_[index];
      r.writing = false;
      if (stopped_ || !active_) return;
      if (outcome == 0) {
        ++stats_.replica_writes;
        r.written = replicas;
        write(index);  // a later decision, if any
        return;
      }
      ++stats_.write_errors;
      if (outcome == 1) {
        // Deleted by hand: put the objects back; ticks wait until they are.
        r.desired.reset();
        r.written.reset();
        apply(index);
        return;
      }
      // The Deployment keeps what was written last: decide from that at the next tick.
      r.desired = r.written;
    });
  });
}

const LiveServing::Run* LiveServing::find(const std::string& service,
                                          const std::string& predictor) const {
  for (const Run& r : runs_) {
    const ServiceSpec& s = services_[r.service];
    if (s.name == service && s.predictors[r.predictor].name == predictor) return &r;
  }
  return nullptr;
}

std::optional<int> LiveServing::desired(const std::string& service,
                                        const std::string& predictor) const {
  const Run* r = find(service, predictor);
  return r != nullptr ? r->desired : std::nullopt;
}

const ScrapedServingMetrics* LiveServing::metrics(const std::string& service,
                                                  const std::string& predictor) const {
  const Run* r = find(service, predictor);
  return r != nullptr ? r->metrics.get() : nullptr;
}

ReplicaCounts LiveServing::counts(const std::string& service, const std::string& predictor) const {
  const Run* r = find(service, predictor);
  return r != nullptr ? counts_of(*r) : ReplicaCounts{};
}

ReplicaCounts LiveServing::counts_of(const Run& run) const {
  const ServiceSpec& spec = services_[run.service];
  const std::string& predictor = spec.predictors[run.predictor].name;
  ReplicaCounts c;
  c.desired = run.desired.value_or(0);
  for (const auto& [key, pod] : pods_) {
    if (pod.service != spec.name || pod.predictor != predictor || !pod.live()) continue;
    ++(pod.ready ? c.ready : c.starting);
  }
  return c;
}

void LiveServing::on_pod(const nlohmann::json& object, bool deleted) {
  ServingPod pod;
  try {
    pod = parse_serving_pod(object);
  } catch (const InputError&) {
    ++stats_.skipped_objects;
    return;
  }
  if (deleted || pod.service.empty()) {
    pods_.erase(pod.key());
    return;
  }
  pods_[pod.key()] = std::move(pod);
}

}  // namespace gantry::kube
