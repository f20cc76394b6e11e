#include "engine/policy/elastic/elastic_rules.hpp"

#include <algorithm>
#include <tuple>

namespace gantry {

int step_of(const ElasticSpec& spec) { return std::max(1, spec.scale_step); }

int grow_steps(const ElasticSpec& spec, int workers) {
  return std::max(0, (spec.max_replicas - workers) / step_of(spec));
}

int shrink_steps(const ElasticSpec& spec, int workers) {
  return std::max(0, (workers - std::max(1, spec.min_replicas)) / step_of(spec));
}

void sort_for_growth(std::vector<ElasticJob>& jobs) {
  std::sort(jobs.begin(), jobs.end(), [](const ElasticJob& a, const ElasticJob& b) {
    return std::tuple(-a.priority, a.started, a.id) < std::tuple(-b.priority, b.started, b.id);
  });
}

void sort_for_shrink(std::vector<ElasticJob>& jobs) {
  std::sort(jobs.begin(), jobs.end(), [](const ElasticJob& a, const ElasticJob& b) {
    return std::tuple(a.priority, b.started, b.id) < std::tuple(b.priority, a.started, a.id);
  });
}

double effective_gpus(const GoodputJob& j, double throughput) {
  if (j.t_min <= 0) return 0;
  const int m = std::max(1, j.job.spec.min_replicas);
  return throughput / j.t_min * m * j.job.gpus_per_worker;
}

std::optional<double> gain_per_gpu(const GoodputJob& j) {
  const int s = step_of(j.job.spec);
  if (grow_steps(j.job.spec, j.job.workers) < 1 || j.t_min <= 0 || j.t_up <= 0 ||
      j.job.gpus_per_worker <= 0)
    return std::nullopt;
  return (effective_gpus(j, j.t_up) - effective_gpus(j, j.t_now)) / (s * j.job.gpus_per_worker);
}

std::optional<double> loss_per_gpu(const GoodputJob& j) {
  const int s = step_of(j.job.spec);
  if (shrink_steps(j.job.spec, j.job.workers) < 1 || j.t_min <= 0 || j.t_down <= 0 ||
      j.job.gpus_per_worker <= 0)
    return std::nullopt;
  return (effective_gpus(j, j.t_now) - effective_gpus(j, j.t_down)) / (s * j.job.gpus_per_worker);
}

namespace {

// GPU-seconds a job's GPUs sit idle while it restarts at `workers` Workers.
double restart_cost(const GoodputJob& j, int workers) {
  return j.job.spec.resize_cost.seconds() * workers * j.job.gpus_per_worker;
}

}  // namespace

double goodput_net_gain(const GoodputJob& r, const GoodputJob* d, Duration interval) {
  const double interval_s = interval.seconds();
  double gain = effective_gpus(r, r.t_up) - effective_gpus(r, r.t_now);
  double cost = restart_cost(r, r.job.workers + step_of(r.job.spec));
  if (d != nullptr) {
    gain -= effective_gpus(*d, d->t_now) - effective_gpus(*d, d->t_down);
    cost += restart_cost(*d, d->job.workers - step_of(d->job.spec));
  }
  return interval_s * gain - cost;
}

std::vector<size_t> receiver_order(std::span<const GoodputJob> jobs) {
  std::vector<size_t> out;
  for (size_t i = 0; i < jobs.size(); ++i)
    if (gain_per_gpu(jobs[i])) out.push_back(i);
  std::sort(out.begin(), out.end(), [&](size_t a, size_t b) {
    const ElasticJob& x = jobs[a].job;
    const ElasticJob& y = jobs[b].job;
    return std::tuple(-*gain_per_gpu(jobs[a]), -x.priority, x.started, x.id) <
           std::tuple(-*gain_per_gpu(jobs[b]), -y.priority, y.started, y.id);
  });
  return out;
}

std::vector<size_t> donor_order(std::span<const GoodputJob> jobs) {
  std::vector<size_t> out;
  for (size_t i = 0; i < jobs.size(); ++i)
    if (loss_per_gpu(jobs[i])) out.push_back(i);
  std::sort(out.begin(), out.end(), [&](size_t a, size_t b) {
    const ElasticJob& x = jobs[a].job;
    const ElasticJob& y = jobs[b].job;
    return std::tuple(*loss_per_gpu(jobs[a]), x.priority, y.started, y.id) <
           std::tuple(*loss_per_gpu(jobs[b]), y.priority, x.started, x.id);
  });
  return out;
}

}  // namespace gantry
