#include "sim/serving/spec_tuner.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "sim/serving/serving_simulation.hpp"

namespace gantry {

namespace {

// A capacity key as a replica's GPU model and request: "A10" one GPU, "A10@0.5" a share,
// "A10x2" two whole GPUs.
std::pair<std::string, Resources> read_key(const std::string& key) {
  const std::string share = capacity_key_share(key);
  Resources r;
  if (share.empty()) {
    r.gpus = 1;
  } else if (share.front() == '@') {
    const double v = std::strtod(share.c_str() + 1, nullptr);
    const auto milli = static_cast<int32_t>(std::lround(v * kMilliPerGpu));
    if (milli <= 0 || milli > kMilliPerGpu)
      throw std::invalid_argument("capacity key " + key + ": the share must be in (0, 1]");
    if (milli == kMilliPerGpu)
      r.gpus = 1;
    else
      r.gpu_milli = milli;
  } else {
    r.gpus = std::atoi(share.c_str() + 1);
  }
  return {key.substr(0, key.size() - share.size()), r};
}

double gpus_of(const Resources& r) { return r.gpus + r.gpu_milli / double{kMilliPerGpu}; }

struct Arm {
  const ReplicaCapacity* entry;
  int batch;
  ReplicaCapacity capacity;  // the entry re-derived at this batch
  std::string gpu_type;
  Resources resources;
  double price;        // per replica-hour
  int lower_bound;     // replicas utilisation alone requires
  int answer = 0;      // cheapest count holding the SLO at the last budget (0: none)
  bool final = false;  // simulated in the last round, at the full budget
};

class Tuner {
 public:
  Tuner(const ServiceSpec& service, std::shared_ptr<const std::vector<TraceRequest>> trace,
        const TuneOptions& options)
      : service_(service), trace_(std::move(trace)), options_(options) {
    if (service.predictors.empty() || service.capacity.empty())
      throw std::invalid_argument("tune: the service needs a predictor and a capacity table");
    result_.peak_qps = options.peak_qps > 0 ? options.peak_qps : peak_qps(service, trace_.get());
    if (result_.peak_qps <= 0) throw std::invalid_argument("tune: the service has no load");
    max_replicas_ = std::max(1, service.autoscaler.max_replicas);
    mean_tokens();
    for (const ReplicaCapacity& e : service.capacity) {
      for (int b = 1;; b *= 2) {
        const int batch = std::min(b, std::max(1, e.max_batch));
        arms_.push_back(make_arm(e, batch));
        if (batch == std::max(1, e.max_batch)) break;
      }
    }
    result_.grid_size = static_cast<int>(arms_.size()) * max_replicas_;
    assert(result_.grid_size == tune_grid_size(service));
  }

  TuneResult run() {
    search();
    if (options_.exhaustive) exhaustive();
    return result_;
  }

 private:
  void mean_tokens() {
    if (service_.load.kind == LoadKind::kTrace && trace_ && !trace_->empty()) {
      double p = 0, d = 0;
      for (const TraceRequest& r : *trace_) {
        p += r.prefill_tokens;
        d += r.decode_tokens;
      }
      prefill_ = p / static_cast<double>(trace_->size());
      decode_ = d / static_cast<double>(trace_->size());
    } else {
      prefill_ = static_cast<double>(service_.load.prefill_tokens);
      decode_ = static_cast<double>(service_.load.decode_tokens);
    }
  }

  Arm make_arm(const ReplicaCapacity& e, int batch) const {
    const int full = std::max(1, e.max_batch);
    const double f = options_.fixed_step_share;
    const double step = f + (1 - f) * batch / static_cast<double>(full);  // t(b) / t(B)
    const double prefill =
        e.prefill_tokens_per_second > 0 ? e.prefill_tokens_per_second : 10 * e.tokens_per_second;
    ReplicaCapacity c = e;
    c.max_batch = batch;
    c.tokens_per_second = batch * (e.tokens_per_second / full) / step;
    c.prefill_tokens_per_second = batch * (prefill / full) / step;
    auto [gpu_type, resources] = read_key(e.key);
    const double price = e.price_per_hour > 0 ? e.price_per_hour : gpus_of(resources);
    // Each slot serves 1 / (mean service time) requests per second; the replicas must at least
    // carry the peak: ceil(peak · service time / slots).
    const double service_s =
        prefill_ * batch / c.prefill_tokens_per_second + decode_ * batch / c.tokens_per_second;
    const int lower =
        std::max(1, static_cast<int>(std::ceil(result_.peak_qps * service_s / batch - 1e-9)));
    return Arm{&e, batch, c, gpu_type, resources, price, lower};
  }

  ServiceSpec point_spec(const Arm& arm, int replicas) const {
    ServiceSpec s;
    s.name = service_.name;
    PredictorSpec p = service_.predictors.front();
    p.traffic = 100;
    p.gpu_type = arm.gpu_type;
    p.resources.gpus = arm.resources.gpus;
    p.resources.gpu_milli = arm.resources.gpu_milli;
    s.predictors = {p};
    s.capacity = {arm.capacity};
    s.capacity.front().key = capacity_key(arm.gpu_type, p.resources);
    s.autoscaler.kind = AutoscalerKind::kNone;
    s.autoscaler.min_replicas = s.autoscaler.max_replicas = replicas;
    s.slo.p99_latency = options_.slo_p99;
    s.load = service_.load;
    if (s.load.kind == LoadKind::kTrace && trace_ && trace_->size() > 1) {
      // The trace's own mix of tokens, replayed at the peak rate.
      const double span_s = static_cast<double>(trace_->back().offset_us) / 1e6;
      const double rate = static_cast<double>(trace_->size() - 1) / std::max(span_s, 1e-6);
      s.load.speedup = result_.peak_qps / rate;
      s.load.loop = true;
    } else {
      s.load.kind = LoadKind::kPoisson;
      s.load.qps = result_.peak_qps;
    }
    return s;
  }

  TunePoint simulate(const Arm& arm, int replicas, Duration budget) {
    ServingRunOptions o;
    o.horizon = budget;
    o.seed = options_.seed;
    o.report_interval = budget;
    const ServiceReport r = simulate_services({point_spec(arm, replicas)}, {trace_}, o).front();
    TunePoint p{arm.entry->key,
                arm.batch,
                replicas,
                r.p99_s,
                replicas * arm.price,
                r.requests > 0 && r.p99_s <= options_.slo_p99.seconds()};
    return p;
  }

  // The cheapest replica count of `arm` in [lo, hi] that holds the SLO at `budget`, by
  // bisection; 0 when even hi does not.
  int cheapest(Arm& arm, int lo, int hi, Duration budget) {
    int found = 0;
    while (lo <= hi) {
      const int mid = lo + (hi - lo) / 2;
      const TunePoint p = simulate(arm, mid, budget);
      ++result_.simulations;
      sampled_.insert({arm.entry->key, arm.batch, mid});
      if (p.meets_slo) {
        found = mid;
        hi = mid - 1;
      } else {
        lo = mid + 1;
      }
    }
    return found;
  }

  void search() {
    std::vector<Arm*> alive;
    for (Arm& a : arms_) alive.push_back(&a);
    const Duration budgets[] = {Duration(options_.measure.micros() / 4),
                                Duration(options_.measure.micros() / 2), options_.measure};
    for (size_t round = 0; round < 3 && !alive.empty(); ++round) {
      const bool last = round == 2;
      double best_cost = INFINITY;
      // Cheapest lower bounds first, so the bound prunes as early as it can.
      std::sort(alive.begin(), alive.end(), [](const Arm* a, const Arm* b) {
        return a->lower_bound * a->price < b->lower_bound * b->price;
      });
      for (Arm* a : alive) {
        if (a->lower_bound > max_replicas_ || a->lower_bound * a->price > best_cost) {
          a->answer = 0;
          continue;
        }
        // Later rounds look near the last answer: a longer run moves the threshold a little.
        const int lo =
            round == 0 || a->answer == 0 ? a->lower_bound : std::max(a->lower_bound, a->answer - 2);
        const int hi =
            round == 0 || a->answer == 0 ? max_replicas_ : std::min(max_replicas_, a->answer + 2);
        int answer = cheapest(*a, lo, hi, budgets[round]);
        if (answer == 0 && round > 0 && hi < max_replicas_)
          answer = cheapest(*a, hi + 1, max_replicas_, budgets[round]);
        a->answer = answer;
        a->final = last;
        if (answer > 0) best_cost = std::min(best_cost, answer * a->price);
      }
      std::erase_if(alive, [](const Arm* a) { return a->answer == 0; });
      // The cheaper half goes on (ties keep the order of the table and of batch sizes).
      std::stable_sort(alive.begin(), alive.end(), [](const Arm* a, const Arm* b) {
        return a->answer * a->price < b->answer * b->price - 1e-9;
      });
      if (!last)
        alive.resize((alive.size() + 1) / 2);
      else {
        // Among the arms as cheap as the cheapest, the lowest p99 (as the exhaustive pass
        // breaks ties).
        for (const Arm* a : alive) {
          if (a->answer * a->price > alive.front()->answer * alive.front()->price + 1e-9) break;
          const TunePoint p = simulate(*a, a->answer, options_.measure);
          if (!result_.best || p.p99_s < result_.best->p99_s) result_.best = p;
        }
      }
    }
    settle_pruned();
    result_.sampled = static_cast<int>(sampled_.size());
  }

  // An early round's answer is optimistic (a shorter run sees less of the tail), so an arm
  // pruned against it, its bound costlier than that answer, may still beat the final one. Every
  // arm not simulated at the full budget whose bound is cheaper than the final answer (all of
  // them when there is none) is settled at the full budget, cheapest bound first, bisecting only
  // up to the count that would still be cheaper. When the early answers were not misleading this
  // costs nothing: every such bound is above the final answer.
  void settle_pruned() {
    std::vector<Arm*> rest;
    for (Arm& a : arms_)
      if (!a.final && a.lower_bound <= max_replicas_) rest.push_back(&a);
    std::stable_sort(rest.begin(), rest.end(), [](const Arm* a, const Arm* b) {
      return a->lower_bound * a->price < b->lower_bound * b->price;
    });
    for (Arm* a : rest) {
      const double best = result_.best ? result_.best->cost_per_hour : INFINITY;
      if (a->lower_bound * a->price >= best - 1e-9) break;  // sorted: no later arm is cheaper
      const int hi =
          std::isinf(best)
              ? max_replicas_
              : std::min(max_replicas_, static_cast<int>(std::floor(best / a->price + 1e-9)));
      const int answer = cheapest(*a, a->lower_bound, hi, options_.measure);
      if (answer == 0) continue;
      const TunePoint p = simulate(*a, answer, options_.measure);
      if (!result_.best || p.cost_per_hour < best - 1e-9 ||
          (std::abs(p.cost_per_hour - best) <= 1e-9 && p.p99_s < result_.best->p99_s))
        result_.best = p;
    }
  }

  void exhaustive() {
    for (Arm& a : arms_) {
      for (int r = 1; r <= max_replicas_; ++r) {
        const TunePoint p = simulate(a, r, options_.measure);
        if (!p.meets_slo) continue;
        const auto& b = result_.exhaustive_best;
        if (!b || p.cost_per_hour < b->cost_per_hour - 1e-9 ||
            (std::abs(p.cost_per_hour - b->cost_per_hour) <= 1e-9 && p.p99_s < b->p99_s))
          result_.exhaustive_best = p;
      }
    }
  }

  const ServiceSpec& service_;
  std::shared_ptr<const std::vector<TraceRequest>> trace_;
  TuneOptions options_;
  TuneResult result_;
  int max_replicas_ = 1;
  double prefill_ = 0;
  double decode_ = 0;
  std::vector<Arm> arms_;
  std::set<std::tuple<std::string, int, int>> sampled_;
};

}  // namespace

double peak_qps(const ServiceSpec& service, const std::vector<TraceRequest>* trace) {
  const LoadSpec& l = service.load;
  switch (l.kind) {
    case LoadKind::kPoisson:
      return l.qps;
    case LoadKind::kCurve:
      return l.peak_qps;
    case LoadKind::kTrace: {
      if (trace == nullptr || trace->empty()) return 0;
      // The busiest 60 s of the trace, as a sliding window over its arrivals.
      size_t most = 0;
      size_t first = 0;
      for (size_t i = 0; i < trace->size(); ++i) {
        while ((*trace)[i].offset_us - (*trace)[first].offset_us >= 60'000'000) ++first;
        most = std::max(most, i - first + 1);
      }
      return static_cast<double>(most) / 60.0 * l.speedup;
    }
  }
  return 0;
}

int tune_grid_size(const ServiceSpec& service) {
  int arms = 0;
  for (const ReplicaCapacity& e : service.capacity) {
    const int full = std::max(1, e.max_batch);
    for (int b = 1;; b *= 2) {
      ++arms;
      if (std::min(b, full) == full) break;
    }
  }
  return arms * std::max(1, service.autoscaler.max_replicas);
}

TuneResult tune_service(const ServiceSpec& service,
                        std::shared_ptr<const std::vector<TraceRequest>> trace,
                        const TuneOptions& options) {
  return Tuner(service, std::move(trace), options).run();
}

}  // namespace gantry
