#include "sim/serving/service_run.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <utility>

#include "engine/policy/serving/traffic_split.hpp"

namespace gantry {

namespace {
constexpr int64_t kNever = INT64_MAX;
double seconds_of(int64_t us) { return static_cast<double>(us) / 1e6; }
}  // namespace

struct ServiceRun::Replica {
  // A request dispatched to a replica and not finished yet, kept only when the host may lose
  // replicas (ReplicaHost::may_lose_replicas): what fail_in_flight() must take back.
  struct InFlight {
    int64_t finish_us;
    int64_t start_us;
    int64_t latency_us;
    int64_t interval_us;  // the start of the report interval it was counted in
    bool operator>(const InFlight& o) const { return finish_us > o.finish_us; }
  };
  int32_t predictor = 0;
  ReplicaState state = ReplicaState::kPlacing;
  int32_t node = -1;
  int64_t ready_us = 0;
  ReplicaQueue queue;
  std::vector<InFlight> in_flight;  // min-heap by finish
};

struct ServiceRun::Predictor {
  const PredictorSpec* spec = nullptr;
  int percent = 0;
  double us_per_prefill_token = 0;
  double us_per_decode_token = 0;
  int max_batch = 1;
  double gpus = 0;  // per replica, shares as fractions
  std::unique_ptr<ServingAutoscaler> autoscaler;
  std::unique_ptr<MetricBuckets> metrics;
  int desired = 0;
  std::vector<int32_t> ready;  // replicas taking traffic, in the order they became ready
  size_t next_ready = 0;       // round robin
  int placing = 0;
  int starting = 0;
  std::deque<ServingRequest> held;  // the activator's buffer
  LogHistogram latency;
  int64_t requests = 0;
  int cold_starts = 0;
  int max_replicas = 0;
};

ServiceRun::ServiceRun(ServiceSpec spec, Time scenario_start, RandomStream random,
                       ReplicaHost& host, std::shared_ptr<const std::vector<TraceRequest>> trace,
                       Options options)
    : spec_(std::move(spec)),
      options_(options),
      host_(host),
      random_(std::move(random)),
      start_us_((scenario_start + spec_.start).micros()) {
  source_ = make_request_source(spec_.load, start_us_, RandomStream(random_.next_u64()),
                                std::move(trace));
  has_next_ = source_->next(next_);
  slo_us_ = spec_.slo.p99_latency.micros();
  track_in_flight_ = host_.may_lose_replicas();

  std::vector<int> percents;
  if (spec_.canary_percent) {
    percents = canary_split(static_cast<int>(spec_.predictors.size()), *spec_.canary_percent);
  } else {
    std::vector<double> weights;
    for (const PredictorSpec& p : spec_.predictors) weights.push_back(p.traffic);
    percents = split_traffic(weights);
  }
  int sum = 0;
  predictors_.resize(spec_.predictors.size());
  for (size_t i = 0; i < spec_.predictors.size(); ++i) {
    Predictor& p = predictors_[i];
    p.spec = &spec_.predictors[i];
    p.percent = percents[i];
    const ReplicaCapacity* c = spec_.capacity_for(*p.spec);
    assert(c != nullptr && c->tokens_per_second > 0);
    p.max_batch = std::max(1, c->max_batch);
    const double prefill =
        c->prefill_tokens_per_second > 0 ? c->prefill_tokens_per_second : 10 * c->tokens_per_second;
    p.us_per_prefill_token = 1e6 * p.max_batch / prefill;
    p.us_per_decode_token = 1e6 * p.max_batch / c->tokens_per_second;
    p.gpus = p.spec->resources.gpus + p.spec->resources.gpu_milli / 1000.0;
    p.autoscaler = make_serving_autoscaler(spec_.autoscaler);
    const Duration keep = std::max({spec_.autoscaler.stable_window, spec_.autoscaler.panic_window,
                                    spec_.autoscaler.sync_period});
    p.metrics = std::make_unique<MetricBuckets>(Time::from_micros(start_us_), keep);
    sum += p.percent;
    cumulative_percent_.push_back(sum);
  }
  tick_us_ = predictors_.empty() ? kNever : predictors_[0].autoscaler->tick().micros();
  report_.name = spec_.name;
  report_.slo_p99_s = seconds_of(slo_us_);
}

ServiceRun::~ServiceRun() = default;

bool ServiceRun::needs_poke() const {
  for (const Predictor& p : predictors_) {
    if (p.percent > 0 && p.ready.empty() && p.placing + p.starting == 0 && p.desired == 0 &&
        p.autoscaler->scales_from_zero())
      return true;
  }
  return false;
}

Time ServiceRun::next_wakeup() const {
  if (finished_) return Time::max();
  if (!begun_) return Time::from_micros(start_us_);
  int64_t t = next_tick_us_;
  if (!due_.empty()) t = std::min(t, due_.top().at_us);
  if (has_next_ && needs_poke()) t = std::min(t, next_.arrival_us);
  return Time::from_micros(t);
}

void ServiceRun::begin(Time now) {
  begun_ = true;
  now_us_ = now.micros();
  level_since_us_ = now_us_;
  interval_.start = now;
  interval_end_us_ = now_us_ + options_.report_interval.micros();
  next_tick_us_ = tick_us_ == kNever ? kNever : now_us_ + tick_us_;
  const AutoscalerSpec& a = spec_.autoscaler;
  const int initial = a.kind == AutoscalerKind::kKpa ? std::max(a.min_replicas, 1) : a.min_replicas;
  for (size_t i = 0; i < predictors_.size(); ++i) {
    Predictor& p = predictors_[i];
    if (spec_.cold_start.prefetch_nodes > 0 && spec_.cold_start.model_download.size_bytes > 0) {
      const auto download_us = static_cast<int64_t>(
          1e6 * static_cast<double>(spec_.cold_start.model_download.size_bytes) /
          spec_.cold_start.model_download.bandwidth_bytes_per_second);
      for (int32_t node : host_.likely_nodes(*p.spec, spec_.cold_start.prefetch_nodes))
        cache_.put(node, p.spec->model, now_us_ + download_us);
    }
    scale_to(p, static_cast<int>(i), std::min(initial, a.max_replicas), now);
  }
}

void ServiceRun::wake(Time now) {
  assert(!finished_);
  if (!begun_) {
    if (now.micros() < start_us_) return;
    begin(Time::from_micros(start_us_));
  }
  advance(now.micros());
  while (!due_.empty() && due_.top().at_us <= now_us_) {
    const Due d = due_.top();
    due_.pop();
    const Replica& r = replicas_[static_cast<size_t>(d.replica)];
    if (r.state == ReplicaState::kStarting && r.ready_us == d.at_us)
      make_ready(d.replica, d.at_us);
    else if (r.state == ReplicaState::kDraining)
      release(d.replica, d.at_us);
  }
  if (now_us_ >= next_tick_us_) {
    for (size_t i = 0; i < predictors_.size(); ++i)
      decide(predictors_[i], static_cast<int>(i), Time::from_micros(next_tick_us_));
    while (next_tick_us_ <= now_us_) next_tick_us_ += tick_us_;
  }
}

void ServiceRun::advance(int64_t now_us) {
  assert(now_us >= now_us_);
  while (has_next_ && next_.arrival_us <= now_us) {
    roll_intervals(next_.arrival_us);
    route(next_);
    has_next_ = source_->next(next_);
  }
  now_us_ = now_us;
  roll_intervals(now_us);
  for (int32_t index : pokes_) {
    Predictor& p = predictors_[static_cast<size_t>(index)];
    if (p.ready.empty() && p.placing + p.starting == 0)
      scale_to(p, index, std::max(1, std::min(p.desired, spec_.autoscaler.max_replicas)),
               Time::from_micros(now_us));
  }
  pokes_.clear();
}

void ServiceRun::route(const ServingRequest& r) {
  size_t index = 0;
  if (predictors_.size() > 1) {
    const double u = random_.uniform() * 100.0;
    while (index + 1 < predictors_.size() && u >= cumulative_percent_[index]) ++index;
  }
  Predictor& p = predictors_[index];
  ++interval_.arrivals;
  p.metrics->count(ServingMetric::kArrivals, r.arrival_us);
  p.metrics->open(ServingMetric::kConcurrency, r.arrival_us);
  if (!p.ready.empty()) {
    dispatch(p, r, r.arrival_us);
    return;
  }
  p.held.push_back(r);
  if (p.placing + p.starting == 0 && p.desired == 0 && p.autoscaler->scales_from_zero()) {
    p.desired = 1;  // the poke: one replica at once, created after this batch of arrivals
    pokes_.push_back(static_cast<int32_t>(index));
  }
}

void ServiceRun::dispatch(Predictor& p, const ServingRequest& r, int64_t available_us) {
  if (p.next_ready >= p.ready.size()) p.next_ready = 0;
  Replica& replica = replicas_[static_cast<size_t>(p.ready[p.next_ready++])];
  const auto service_us = static_cast<int64_t>(r.prefill_tokens * p.us_per_prefill_token +
                                               r.decode_tokens * p.us_per_decode_token);
  const ReplicaQueue::Admission a = replica.queue.admit(available_us, service_us);
  MetricBuckets& m = *p.metrics;
  const double slot = 1.0 / p.max_batch;
  m.open(ServingMetric::kSlotsBusy, a.start_us, slot);
  m.close(ServingMetric::kSlotsBusy, a.finish_us, slot);
  if (a.busy_grew) {
    if (a.new_period)
      m.open(ServingMetric::kGpuBusy, a.start_us);
    else
      m.close(ServingMetric::kGpuBusy, a.busy_from_us, -1.0);  // the period goes on
    m.close(ServingMetric::kGpuBusy, a.finish_us);
  }
  m.close(ServingMetric::kConcurrency, a.finish_us);
  const int64_t latency = a.finish_us - r.arrival_us;
  latency_.add(latency);
  interval_latency_.add(latency);
  p.latency.add(latency);
  ++p.requests;
  ++interval_.served;
  if (slo_us_ == 0 || latency <= slo_us_) {
    ++within_slo_;
    ++interval_within_slo_;
  }
  if (track_in_flight_) {
    std::vector<Replica::InFlight>& f = replica.in_flight;
    while (!f.empty() && f.front().finish_us <= available_us) {
      std::pop_heap(f.begin(), f.end(), std::greater<>());
      f.pop_back();
    }
    f.push_back({a.finish_us, a.start_us, latency, interval_.start.micros()});
    std::push_heap(f.begin(), f.end(), std::greater<>());
  }
}

void ServiceRun::fail_in_flight(Replica& r, Predictor& p, int64_t at_us) {
  MetricBuckets& m = *p.metrics;
  const double slot = 1.0 / p.max_batch;
  for (const Replica::InFlight& f : r.in_flight) {
    if (f.finish_us <= at_us) continue;
    // It leaves the system now, and its batch slot with it (or never takes one).
    m.close(ServingMetric::kConcurrency, f.finish_us, -1.0);
    m.close(ServingMetric::kConcurrency, at_us);
    if (f.start_us < at_us) {
      m.close(ServingMetric::kSlotsBusy, f.finish_us, -slot);
      m.close(ServingMetric::kSlotsBusy, at_us, slot);
    } else {
      m.open(ServingMetric::kSlotsBusy, f.start_us, -slot);
      m.close(ServingMetric::kSlotsBusy, f.finish_us, -slot);
    }
    // Counted as served when dispatched: taken back from the totals (and from the interval's
    // figures when still open; a closed interval's row keeps it), counted as failed.
    const bool within = slo_us_ == 0 || f.latency_us <= slo_us_;
    latency_.remove(f.latency_us);
    p.latency.remove(f.latency_us);
    --p.requests;
    if (within) --within_slo_;
    if (f.interval_us == interval_.start.micros()) {
      interval_latency_.remove(f.latency_us);
      --interval_.served;
      if (within) --interval_within_slo_;
    }
    ++interval_.failed;
    ++report_.failed;
  }
  r.in_flight.clear();
  // The GPU's busy period ends now (busy periods start at dispatch, never in the future).
  const int64_t busy_until = r.queue.busy_until();
  if (busy_until > at_us) {
    m.close(ServingMetric::kGpuBusy, busy_until, -1.0);
    m.close(ServingMetric::kGpuBusy, at_us);
  }
  r.queue = ReplicaQueue(p.max_batch);
}

void ServiceRun::roll_intervals(int64_t now_us) {
  while (now_us >= interval_end_us_) close_interval(interval_end_us_);
}

void ServiceRun::close_interval(int64_t end_us) {
  change_levels(end_us, ready_level_, starting_level_, gpu_level_);
  const double length_s = seconds_of(end_us - interval_.start.micros());
  ServiceInterval& row = interval_;
  if (length_s > 0) {
    row.qps = static_cast<double>(row.arrivals) / length_s;
    row.ready_replicas = ready_integral_ / (length_s * 1e6);
    row.starting_replicas = starting_integral_ / (length_s * 1e6);
  }
  row.gpu_hours = gpu_integral_us_ / 3.6e9;
  if (row.served > 0) {
    row.p50_s = seconds_of(interval_latency_.percentile(50));
    row.p99_s = seconds_of(interval_latency_.percentile(99));
  }
  if (row.served + row.failed > 0)
    row.slo_attainment =
        static_cast<double>(interval_within_slo_) / static_cast<double>(row.served + row.failed);
  report_.intervals.push_back(row);
  interval_ = ServiceInterval{};
  interval_.start = Time::from_micros(end_us);
  interval_end_us_ = end_us + options_.report_interval.micros();
  interval_latency_.clear();
  interval_within_slo_ = 0;
  ready_integral_ = starting_integral_ = gpu_integral_us_ = 0;
}

void ServiceRun::change_levels(int64_t now_us, int ready, int starting, double gpus) {
  const auto elapsed = static_cast<double>(now_us - level_since_us_);
  ready_integral_ += ready_level_ * elapsed;
  starting_integral_ += starting_level_ * elapsed;
  gpu_integral_us_ += gpu_level_ * elapsed;
  total_gpu_integral_us_ += gpu_level_ * elapsed;
  level_since_us_ = now_us;
  ready_level_ = ready;
  starting_level_ = starting;
  gpu_level_ = gpus;
  report_.max_replicas = std::max(report_.max_replicas, ready + starting);
}

void ServiceRun::decide(Predictor& p, int index, Time now) {
  const ReplicaCounts counts{p.desired, static_cast<int>(p.ready.size()), p.placing + p.starting};
  int desired = p.autoscaler->decide(now, counts, *p.metrics);
  // Requests held by the activator are concurrency the activator reports at once (its own
  // stats, not a window's average): while it holds any, the revision keeps a replica coming.
  if (!p.held.empty()) desired = std::max(desired, std::min(1, spec_.autoscaler.max_replicas));
  if (options_.actions != nullptr) {
    std::array<double, 4> observed{};
    for (size_t k = 0; k < observed.size(); ++k)
      observed[k] = p.metrics->total(static_cast<ServingMetric>(k), now);
    options_.actions->scale(now, ScaleRecord{spec_.name, p.spec->name, counts.ready,
                                             counts.starting, counts.desired, desired, observed});
  }
  scale_to(p, index, desired, now);
}

void ServiceRun::scale_to(Predictor& p, int index, int desired, Time now) {
  p.desired = desired;
  int current = static_cast<int>(p.ready.size()) + p.placing + p.starting;
  for (; current < desired; ++current) create_replica(index, now);
  while (current > desired) {
    // A ReplicaSet's deletion order: unplaced, then not ready, then the most recently ready.
    int32_t victim = -1;
    for (auto state : {ReplicaState::kPlacing, ReplicaState::kStarting}) {
      for (size_t i = replicas_.size(); i-- > 0 && victim < 0;) {
        if (replicas_[i].predictor == index && replicas_[i].state == state)
          victim = static_cast<int32_t>(i);
      }
      if (victim >= 0) break;
    }
    if (victim < 0) victim = p.ready.back();
    remove_replica(victim, now);
    --current;
  }
  p.max_replicas = std::max(p.max_replicas, current);
}

void ServiceRun::create_replica(int predictor, Time now) {
  const auto id = static_cast<int32_t>(replicas_.size());
  Predictor& p = predictors_[static_cast<size_t>(predictor)];
  replicas_.push_back(
      Replica{predictor, ReplicaState::kPlacing, -1, 0, ReplicaQueue(p.max_batch), {}});
  ++p.placing;
  change_levels(now.micros(), ready_level_, starting_level_ + 1, gpu_level_);
  host_.create(*this, id, *p.spec, now);
}

void ServiceRun::on_placed(int32_t replica, int32_t node, Time now) {
  if (now.micros() > now_us_) advance(now.micros());
  Replica& r = replicas_[static_cast<size_t>(replica)];
  Predictor& p = predictors_[static_cast<size_t>(r.predictor)];
  // Placed first, or again after on_lost(): either way from kPlacing.
  if (r.state != ReplicaState::kPlacing) return;
  --p.placing;
  ++p.starting;
  change_levels(now_us_, ready_level_, starting_level_, gpu_level_ + p.gpus);
  r.state = ReplicaState::kStarting;
  r.node = node;
  const int64_t cold = cold_start_us(p, node, now_us_);
  r.ready_us = now_us_ + cold;
  due_.push({r.ready_us, replica});
  ++p.cold_starts;
  ++interval_.cold_starts;
  ++report_.cold_starts;
  report_.cold_start_s.add(seconds_of(cold));
}

void ServiceRun::on_lost(int32_t replica, Time now) {
  if (now.micros() > now_us_) advance(now.micros());
  Replica& r = replicas_[static_cast<size_t>(replica)];
  Predictor& p = predictors_[static_cast<size_t>(r.predictor)];
  switch (r.state) {
    case ReplicaState::kStarting:
      --p.starting;
      change_levels(now_us_, ready_level_, starting_level_, gpu_level_ - p.gpus);
      break;
    case ReplicaState::kReady:
      p.ready.erase(std::find(p.ready.begin(), p.ready.end(), replica));
      change_levels(now_us_, ready_level_ - 1, starting_level_ + 1, gpu_level_ - p.gpus);
      fail_in_flight(r, p, now_us_);
      break;
    case ReplicaState::kDraining:
      fail_in_flight(r, p, now_us_);
      release(replica, now_us_);
      return;
    case ReplicaState::kPlacing:
    case ReplicaState::kGone:
      return;
  }
  // Its ready event, if one is due, no longer matches (state or ready_us) and is skipped.
  r.state = ReplicaState::kPlacing;
  r.node = -1;
  ++p.placing;
  ++report_.replicas_lost;
}

int64_t ServiceRun::cold_start_us(const Predictor& p, int32_t node, int64_t now_us) {
  const ColdStartSpec& c = spec_.cold_start;
  int64_t t = now_us;
  const std::string image = p.spec->image.empty() ? p.spec->model + "-server" : p.spec->image;
  const int64_t image_at = cache_.available_at(node, image);
  if (image_at < 0) {
    t += c.image_pull.micros();
    cache_.put(node, image, t);  // the kubelet keeps pulled images
  } else {
    t = std::max(t, image_at);
  }
  const ModelDownloadSpec& m = c.model_download;
  if (m.size_bytes > 0) {
    const int64_t cached_at = m.cache ? cache_.available_at(node, p.spec->model) : -1;
    if (cached_at >= 0) {
      t = std::max(t, cached_at);
    } else {
      t += static_cast<int64_t>(1e6 * static_cast<double>(m.size_bytes) /
                                m.bandwidth_bytes_per_second);
      if (m.cache) cache_.put(node, p.spec->model, t);
    }
  }
  return t + c.load.micros() - now_us;
}

void ServiceRun::make_ready(int32_t replica, int64_t now_us) {
  Replica& r = replicas_[static_cast<size_t>(replica)];
  Predictor& p = predictors_[static_cast<size_t>(r.predictor)];
  r.state = ReplicaState::kReady;
  --p.starting;
  p.ready.push_back(replica);
  change_levels(now_us, ready_level_ + 1, starting_level_ - 1, gpu_level_);
  while (!p.held.empty()) {  // the activator lets its buffer go to the ready replicas
    dispatch(p, p.held.front(), now_us);
    p.held.pop_front();
  }
}

void ServiceRun::remove_replica(int32_t replica, Time now) {
  Replica& r = replicas_[static_cast<size_t>(replica)];
  Predictor& p = predictors_[static_cast<size_t>(r.predictor)];
  const int64_t now_us = now.micros();
  switch (r.state) {
    case ReplicaState::kPlacing:
      --p.placing;
      r.state = ReplicaState::kGone;
      change_levels(now_us, ready_level_, starting_level_ - 1, gpu_level_);
      host_.release(*this, replica, now);
      return;
    case ReplicaState::kStarting:
      --p.starting;
      r.state = ReplicaState::kGone;
      change_levels(now_us, ready_level_, starting_level_ - 1, gpu_level_ - p.gpus);
      host_.release(*this, replica, now);
      return;
    case ReplicaState::kReady: {
      p.ready.erase(std::find(p.ready.begin(), p.ready.end(), replica));
      r.state = ReplicaState::kDraining;
      change_levels(now_us, ready_level_ - 1, starting_level_, gpu_level_);
      const int64_t drained = std::max(now_us, r.queue.drained_at());
      if (drained <= now_us)
        release(replica, now_us);
      else
        due_.push({drained, replica});
      return;
    }
    case ReplicaState::kDraining:
    case ReplicaState::kGone:
      return;
  }
}

void ServiceRun::release(int32_t replica, int64_t now_us) {
  Replica& r = replicas_[static_cast<size_t>(replica)];
  const Predictor& p = predictors_[static_cast<size_t>(r.predictor)];
  r.state = ReplicaState::kGone;
  change_levels(now_us, ready_level_, starting_level_, gpu_level_ - p.gpus);
  host_.release(*this, replica, Time::from_micros(now_us));
}

void ServiceRun::finish(Time end) {
  if (finished_) return;
  if (!begun_) begin(Time::from_micros(std::min(end.micros(), start_us_)));
  if (end.micros() > now_us_) advance(end.micros());
  if (end.micros() > interval_.start.micros()) close_interval(end.micros());
  finished_ = true;
  report_.requests = static_cast<int64_t>(latency_.count());
  for (const Predictor& p : predictors_) report_.unserved += static_cast<int64_t>(p.held.size());
  if (report_.requests > 0) {
    report_.p50_s = seconds_of(latency_.percentile(50));
    report_.p99_s = seconds_of(latency_.percentile(99));
  }
  // A failed request missed its SLO.
  if (report_.requests + report_.failed > 0)
    report_.slo_attainment =
        static_cast<double>(within_slo_) / static_cast<double>(report_.requests + report_.failed);
  report_.gpu_hours = total_gpu_integral_us_ / 3.6e9;
  for (const Predictor& p : predictors_) {
    report_.predictors.push_back({p.spec->name, p.percent, p.requests,
                                  p.requests > 0 ? seconds_of(p.latency.percentile(99)) : 0,
                                  p.cold_starts, p.max_replicas});
  }
}

}  // namespace gantry
