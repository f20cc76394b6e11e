#include "adapters/kube/kubelet_sim/serving_load.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "engine/config/units.hpp"
#include "engine/core/errors.hpp"

namespace gantry::kube {

namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

}  // namespace

ServingLoadSpec parse_serving_load(const std::string& text, const std::string& flag) {
  const auto fail = [&](const std::string& message) -> ServingLoadSpec {
    throw InputError(SourceLocation{"command line"}, flag, "'" + text + "': " + message);
  };
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    return fail("expected SERVICE=QPS[:SERVICE_TIME[:periodic]], like chat=50 or chat=50:2s");
  ServingLoadSpec out;
  out.service = text.substr(0, eq);
  std::vector<std::string> parts;
  size_t start = eq + 1;
  while (true) {
    const size_t colon = text.find(':', start);
    parts.push_back(
        text.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  if (parts.size() > 3) return fail("expected at most QPS, a service time and 'periodic'");
  const Result<double> qps = parse_number(parts[0], 0, 1e6);
  if (!qps.is_ok()) return fail("QPS: " + qps.error());
  if (!(qps.value() > 0)) return fail("QPS: expected a number above 0");
  out.qps = qps.value();
  if (parts.size() >= 2) {
    const Result<Duration> d = parse_duration(parts[1], hours(1));
    if (!d.is_ok()) return fail("service time: " + d.error());
    if (d.value() <= Duration(0)) return fail("service time: expected a duration above 0");
    out.service_time = d.value();
  }
  if (parts.size() == 3) {
    if (parts[2] != "periodic") return fail("'" + parts[2] + "': expected 'periodic'");
    out.periodic = true;
  }
  return out;
}

ServingLoad::ServingLoad(const Clock& clock, std::vector<ServingLoadSpec> loads, uint64_t seed)
    : clock_(clock), now_us_(clock.now().micros()) {
  const RandomStreams streams(seed);
  for (ServingLoadSpec& spec : loads) {
    const std::string name = spec.service;
    Service s{std::move(spec), streams.stream("kubelet-sim.serving-load." + name), 0};
    s.next_us = now_us_ + interval_us(s);
    services_.insert_or_assign(name, std::move(s));
  }
}

int64_t ServingLoad::interval_us(Service& s) {
  const double mean_us = 1e6 / s.spec.qps;
  const double d = s.spec.periodic ? mean_us : s.random.exponential(mean_us);
  return std::max<int64_t>(1, std::llround(d));
}

void ServingLoad::integrate(int64_t to_us) {
  const int64_t dt_us = to_us - now_us_;
  if (dt_us <= 0) return;
  const double dt = static_cast<double>(dt_us) / 1e6;
  for (auto& [key, p] : pods_) {
    const auto running = static_cast<double>(p.running.size());
    p.counters.concurrency_seconds += (running + static_cast<double>(p.waiting)) * dt;
    if (!p.running.empty()) p.counters.gpu_busy_seconds += dt;
    p.counters.slots_busy_seconds += running / p.max_batch * dt;
  }
  for (auto& [key, pr] : predictors_)
    pr.counters.concurrency_seconds += static_cast<double>(pr.held) * dt;
  now_us_ = to_us;
}

void ServingLoad::admit(Pod& p, int64_t at_us) {
  if (static_cast<int>(p.running.size()) < p.max_batch) {
    p.running.push_back(at_us + services_.at(p.service).spec.service_time.micros());
    std::push_heap(p.running.begin(), p.running.end(), std::greater<>());
  } else {
    ++p.waiting;
  }
}

void ServingLoad::finish_one(Pod& p, int64_t at_us) {
  std::pop_heap(p.running.begin(), p.running.end(), std::greater<>());
  p.running.pop_back();
  if (p.waiting > 0) {
    --p.waiting;
    p.running.push_back(at_us + services_.at(p.service).spec.service_time.micros());
    std::push_heap(p.running.begin(), p.running.end(), std::greater<>());
  }
}

ServingLoad::Pod* ServingLoad::least_loaded(const std::string& ns, const std::string& service,
                                            const std::string& predictor) {
  Pod* best = nullptr;
  for (auto& [key, p] : pods_) {
    if (!p.ready || p.namespace_name != ns || p.service != service || p.predictor != predictor)
      continue;
    const auto load = [](const Pod& x) {
      return static_cast<int64_t>(x.running.size()) + x.waiting;
    };
    if (best == nullptr || load(p) < load(*best)) best = &p;  // key order breaks ties
  }
  return best;
}

void ServingLoad::arrive(Service& s, int64_t at_us) {
  std::vector<Predictor*> candidates;
  std::vector<double> weights;
  for (auto& [key, pr] : predictors_) {
    if (pr.service != s.spec.service) continue;
    candidates.push_back(&pr);
    weights.push_back(pr.traffic);
  }
  if (candidates.empty()) {
    ++dropped_;
    return;
  }
  double total = 0;
  for (double w : weights) total += w;
  if (total <= 0) weights.assign(weights.size(), 1.0);
  Predictor& pr =
      candidates.size() == 1 ? *candidates.front() : *candidates[s.random.weighted_index(weights)];
  if (Pod* p = least_loaded(pr.namespace_name, pr.service, pr.predictor)) {
    p->counters.requests += 1;
    admit(*p, at_us);
  } else {
    pr.counters.requests += 1;
    ++pr.held;
  }
}

void ServingLoad::release_held(Predictor& pr, int64_t at_us) {
  while (pr.held > 0) {
    Pod* p = least_loaded(pr.namespace_name, pr.service, pr.predictor);
    if (p == nullptr) return;
    --pr.held;
    admit(*p, at_us);
  }
}

void ServingLoad::advance(int64_t to_us) {
  for (;;) {
    // The next event: a pod's finish (first, at a tie: it frees a slot), else an arrival.
    int64_t next = kNever;
    Pod* finishing = nullptr;
    for (auto& [key, p] : pods_) {
      if (!p.running.empty() && p.running.front() < next) {
        next = p.running.front();
        finishing = &p;
      }
    }
    Service* arriving = nullptr;
    for (auto& [name, s] : services_) {
      if (s.next_us < next) {
        next = s.next_us;
        arriving = &s;
        finishing = nullptr;
      }
    }
    if (next > to_us) break;
    integrate(next);
    if (finishing != nullptr) {
      finish_one(*finishing, next);
    } else {
      arrive(*arriving, next);
      arriving->next_us = next + interval_us(*arriving);
    }
  }
  integrate(to_us);
}

void ServingLoad::deployment_changed(const ServingDeployment& d, bool deleted) {
  std::lock_guard lock(mutex_);
  advance(clock_.now().micros());
  const std::string key = d.key();
  if (deleted) {
    predictors_.erase(key);
    return;
  }
  Predictor& pr = predictors_[key];
  pr.namespace_name = d.namespace_name;
  pr.name = d.name;
  pr.service = d.service;
  pr.predictor = d.predictor;
  pr.traffic = d.traffic;
  release_held(pr, now_us_);
}

void ServingLoad::pod_changed(const ServingPod& pod, bool deleted) {
  std::lock_guard lock(mutex_);
  advance(clock_.now().micros());
  const std::string key = pod.key();
  if (deleted || !pod.live()) {
    pods_.erase(key);
    return;
  }
  const auto [it, added] = pods_.try_emplace(key);
  Pod& p = it->second;
  if (added) {
    p.namespace_name = pod.namespace_name;
    p.name = pod.name;
    p.service = pod.service;
    p.predictor = pod.predictor;
  }
  p.max_batch = std::max(1, pod.max_batch);
  const bool was_ready = p.ready;
  p.ready = pod.ready;
  if (was_ready && !p.ready) {
    p.running.clear();
    p.waiting = 0;
  }
  if (!was_ready && p.ready && services_.count(p.service) != 0) {
    for (auto& [dkey, pr] : predictors_) {
      if (pr.namespace_name == p.namespace_name && pr.service == p.service &&
          pr.predictor == p.predictor)
        release_held(pr, now_us_);
    }
  }
}

PodCounters ServingLoad::counters(const std::string& pod_key) {
  std::lock_guard lock(mutex_);
  advance(clock_.now().micros());
  const auto it = pods_.find(pod_key);
  return it == pods_.end() ? PodCounters{} : it->second.counters;
}

PodCounters ServingLoad::activator(const std::string& deployment_key) {
  std::lock_guard lock(mutex_);
  advance(clock_.now().micros());
  const auto it = predictors_.find(deployment_key);
  return it == predictors_.end() ? PodCounters{} : it->second.counters;
}

int64_t ServingLoad::dropped() {
  std::lock_guard lock(mutex_);
  advance(clock_.now().micros());
  return dropped_;
}

std::string ServingLoad::exposition() {
  std::lock_guard lock(mutex_);
  advance(clock_.now().micros());
  struct Row {
    std::string labels;
    const PodCounters* counters;
    double running;
    double waiting;
    bool activator;
  };
  std::vector<Row> rows;
  const auto labels = [](const std::string& ns, const std::string& service,
                         const std::string& predictor, const std::string& pod) {
    return "{namespace=\"" + escape_label_value(ns) + "\",service=\"" +
           escape_label_value(service) + "\",predictor=\"" + escape_label_value(predictor) +
           "\",pod=\"" + escape_label_value(pod) + "\"}";
  };
  for (const auto& [key, pr] : predictors_)
    rows.push_back(
        Row{labels(pr.namespace_name, pr.service, pr.predictor, std::string(kActivatorPod)),
            &pr.counters, 0, static_cast<double>(pr.held), true});
  for (const auto& [key, p] : pods_)
    rows.push_back(Row{labels(p.namespace_name, p.service, p.predictor, p.name), &p.counters,
                       static_cast<double>(p.running.size()), static_cast<double>(p.waiting),
                       false});
  std::sort(rows.begin(), rows.end(),
            [](const Row& a, const Row& b) { return a.labels < b.labels; });
  std::string out;
  const auto family = [&](std::string_view name, const char* type, const char* help,
                          bool activator_too, auto&& value) {
    out += "# HELP " + std::string(name) + " " + help + "\n";
    out += "# TYPE " + std::string(name) + " " + type + "\n";
    for (const Row& r : rows) {
      if (r.activator && !activator_too) continue;
      out += std::string(name) + r.labels + " " + format_prom_value(value(r)) + "\n";
    }
  };
  family(kRequestsTotalMetric, "counter", "Requests that arrived at the pod (or the activator).",
         true, [](const Row& r) { return r.counters->requests; });
  family(kConcurrencySecondsMetric, "counter",
         "Integral of the requests in the pod (queued or running) over time, in seconds.", true,
         [](const Row& r) { return r.counters->concurrency_seconds; });
  family(kGpuBusySecondsMetric, "counter", "Seconds during which the pod ran at least one request.",
         false, [](const Row& r) { return r.counters->gpu_busy_seconds; });
  family(kSlotsBusySecondsMetric, "counter",
         "Integral of running requests over max batch, in seconds.", false,
         [](const Row& r) { return r.counters->slots_busy_seconds; });
  family(kRequestsRunningMetric, "gauge", "Requests in a batch slot now.", false,
         [](const Row& r) { return r.running; });
  family(kRequestsWaitingMetric, "gauge", "Requests queued in the pod (or held) now.", true,
         [](const Row& r) { return r.waiting; });
  return out;
}

}  // namespace gantry::kube
