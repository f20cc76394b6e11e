#include "sim/workload_generator.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <string>

#include "engine/core/units.hpp"

namespace gantry {

namespace {

// Decimal digits of v >= 0 (1 for 0).
int digits(int64_t v) {
  int d = 1;
  while (v >= 10) {
    v /= 10;
    ++d;
  }
  return d;
}

std::string job_name(const std::string& prefix, int64_t index, int width) {
  std::string number = std::to_string(index);
  if (static_cast<int>(number.size()) < width)
    number.insert(0, static_cast<size_t>(width) - number.size(), '0');
  return prefix + "-" + number;
}

std::vector<RoleSpec> roles_for(const JobClass& c) {
  assert(c.gpus_per_pod >= 1 && c.gpus >= c.gpus_per_pod && c.gpus % c.gpus_per_pod == 0);
  const int pods = std::max(1, c.gpus / std::max(1, c.gpus_per_pod));
  const Resources gpu_pod{c.cpu_milli_per_gpu * c.gpus_per_pod,
                          c.memory_bytes_per_gpu * c.gpus_per_pod, c.gpus_per_pod};
  std::vector<RoleSpec> roles;
  switch (c.framework) {
    case Framework::kPyTorch:
      roles.push_back({RoleKind::kMaster, 1, gpu_pod});
      if (pods > 1) roles.push_back({RoleKind::kWorker, pods - 1, gpu_pod});
      break;
    case Framework::kMPI:
      roles.push_back({RoleKind::kLauncher, 1, Resources{1000, 2 * kGiB, 0}});
      roles.push_back({RoleKind::kWorker, pods, gpu_pod});
      break;
    case Framework::kTensorFlow:
      roles.push_back({RoleKind::kWorker, pods, gpu_pod});
      break;
  }
  return roles;
}

}  // namespace

void generate_poisson(const PoissonGeneratorSpec& spec, Time scenario_start, RandomStream& rng,
                      std::vector<JobSpec>& out) {
  if (spec.count <= 0) return;
  assert(!spec.mix.empty());
  if (spec.mix.empty()) return;

  std::vector<double> weights;
  weights.reserve(spec.mix.size());
  for (const JobClass& c : spec.mix) weights.push_back(c.weight);

  const Time first = saturating_add(scenario_start, spec.start);
  const double mean_s = spec.mean_interarrival.seconds();
  const int width = digits(spec.count - 1);
  double elapsed_s = 0;
  out.reserve(out.size() + static_cast<size_t>(spec.count));
  for (int64_t i = 0; i < spec.count; ++i) {
    if (mean_s > 0) elapsed_s += rng.exponential(mean_s);
    const JobClass& c = spec.mix[rng.weighted_index(weights)];
    assert(c.steps.min <= c.steps.max);
    const int64_t steps =
        c.steps.mean > 0
            ? std::clamp<int64_t>(std::llround(rng.exponential(static_cast<double>(c.steps.mean))),
                                  c.steps.min, c.steps.max)
            : rng.uniform_int(c.steps.min, std::max(c.steps.min, c.steps.max));

    JobSpec job;
    job.name = job_name(spec.name, i, width);
    job.tenant = c.tenant;
    job.priority = c.priority;
    job.framework = c.framework;
    job.gpu_type = c.gpu_type;
    job.queue = c.queue;
    job.work.checkpoint_every = c.checkpoint_every;
    job.work.checkpoint_cost = c.checkpoint_cost;
    job.elastic = c.elastic;
    job.restart_policy = c.restart_policy;
    job.roles = roles_for(c);
    job.work.steps = steps;
    job.work.step_compute_ref = c.step_compute_ref;
    job.work.gradient_bytes = c.gradient_bytes;
    job.work.input_bytes_per_step = c.input_bytes_per_step;
    job.submit = saturating_add(first, Duration::from_seconds(elapsed_s));
    out.push_back(std::move(job));
  }
}

std::vector<JobSpec> build_workload(const WorkloadSpec& w, Time scenario_start,
                                    const RandomStreams& streams) {
  std::vector<JobSpec> jobs = w.jobs;
  for (const PoissonGeneratorSpec& g : w.generators) {
    RandomStream rng = streams.stream("workload/" + g.name);
    generate_poisson(g, scenario_start, rng, jobs);
  }
  // Stable: equal submit times keep explicit-then-generators, list order, index order.
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const JobSpec& a, const JobSpec& b) { return a.submit < b.submit; });
  return jobs;
}

}  // namespace gantry
