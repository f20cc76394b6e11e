#include "sim/fragmentation_experiment.hpp"

#include <atomic>
#include <cstdint>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "engine/cluster/cluster.hpp"
#include "engine/core/random.hpp"
#include "engine/policy/fragmentation.hpp"
#include "engine/policy/scheduler.hpp"

namespace gantry {

namespace {

const ExperimentPolicy& policy_named(const std::string& name) {
  for (const ExperimentPolicy& p : kExperimentPolicies)
    if (name == p.display || name == p.plugin) return p;
  std::string known;
  for (const ExperimentPolicy& p : kExperimentPolicies)
    known += (known.empty() ? "" : ", ") + std::string(p.display);
  throw std::invalid_argument("unknown policy '" + name + "'; known: " + known);
}

// Mean and sample standard deviation of column `level` across runs.
void mean_sd(const std::vector<const std::vector<double>*>& runs, size_t level, double& mean,
             double& sd) {
  double sum = 0;
  for (const auto* r : runs) sum += (*r)[level];
  const double n = static_cast<double>(runs.size());
  mean = sum / n;
  double squares = 0;
  for (const auto* r : runs) squares += ((*r)[level] - mean) * ((*r)[level] - mean);
  sd = runs.size() > 1 ? std::sqrt(squares / (n - 1)) : 0.0;
}

}  // namespace

double requested_gpus(const JobSpec& pod) {
  const Resources r = pod.total_request();
  return static_cast<double>(r.gpus) + static_cast<double>(r.gpu_milli) / 1000.0;
}

std::vector<uint32_t> arrival_order(const std::vector<JobSpec>& pods, double capacity_gpus,
                                    double limit_pct, uint64_t seed) {
  std::vector<uint32_t> order(pods.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  if (pods.empty()) return order;
  const RandomStreams streams(seed);
  RandomStream shuffle = streams.stream("experiment/shuffle");
  for (size_t i = order.size() - 1; i > 0; --i)
    std::swap(order[i], order[static_cast<size_t>(shuffle.uniform_int(0, static_cast<int64_t>(i)))]);
  double requested = 0;
  for (uint32_t i : order) requested += requested_gpus(pods[i]);
  const double target = capacity_gpus * limit_pct / 100.0;
  RandomStream extend = streams.stream("experiment/extend");
  bool any_gpu = false;
  for (const JobSpec& p : pods) any_gpu |= requested_gpus(p) > 0;
  while (any_gpu && requested < target) {
    const auto i = static_cast<uint32_t>(extend.uniform_int(0, static_cast<int64_t>(pods.size()) - 1));
    order.push_back(i);
    requested += requested_gpus(pods[i]);
  }
  return order;
}

std::vector<WeightedPodClass> typical_pods(const std::vector<JobSpec>& pods, double coverage) {
  std::vector<PodClass> classes;
  classes.reserve(pods.size());
  for (const JobSpec& p : pods) classes.push_back(pod_class_of(p.total_request(), p.allowed_gpu_models()));
  return typical_pod_classes(classes, coverage);
}

FragmentationRun run_fragmentation_once(const FragmentationInput& input,
                                        const std::vector<WeightedPodClass>& typical,
                                        const std::vector<uint32_t>& order,
                                        const std::string& plugin, uint64_t seed,
                                        double limit_pct) {
  Cluster cluster(input.topology);
  SchedulerConfig config;
  config.placement = plugin;
  config.seed = seed;
  Scheduler scheduler(config);
  scheduler.set_target_workload(typical);
  FragmentationModel fragmentation(typical);

  // Arrival and allocation are counted in integer milli-GPU so that level crossings are exact
  // (0.6 + 0.6 + 1 GPU on 2 GPUs is exactly 110 %, not 110.00000000000001 %).
  const int64_t capacity = cluster.total_gpu_milli();
  const size_t levels = static_cast<size_t>(std::floor(limit_pct)) + 1;
  FragmentationRun run;
  run.allocated_pct.reserve(levels);
  int64_t arrived = 0, allocated = 0;
  double failed = 0;
  const auto percent = [capacity](double milli) { return 100.0 * milli / static_cast<double>(capacity); };
  double frag_pct = percent(fragmentation.cluster_fragmentation(cluster));
  // Records the current state for every level L not yet recorded with L% of capacity below
  // `arrived_milli` (all remaining levels when it is INT64_MAX).
  const auto sample_below = [&](int64_t arrived_milli) {
    while (run.allocated_pct.size() < levels &&
           (arrived_milli == INT64_MAX ||
            static_cast<int64_t>(run.allocated_pct.size()) * capacity < arrived_milli * 100)) {
      run.allocated_pct.push_back(percent(static_cast<double>(allocated)));
      run.fragmentation_pct.push_back(frag_pct);
      run.failed_pods.push_back(failed);
    }
  };
  for (size_t k = 0; k < order.size(); ++k) {
    const JobSpec& pod = input.pods[order[k]];
    const Resources r = pod.total_request();
    const int64_t request = static_cast<int64_t>(r.gpus) * 1000 + r.gpu_milli;
    // Levels strictly below the arrival after this pod keep the state before it.
    sample_below(arrived + request);
    arrived += request;
    if (scheduler.place_now(cluster, static_cast<JobId>(k), pod)) {
      allocated += request;
    } else {
      failed += 1;
    }
    frag_pct = percent(fragmentation.cluster_fragmentation(cluster));
    ++run.pods_arrived;
  }
  sample_below(INT64_MAX);
  return run;
}

FragmentationResult run_fragmentation_experiment(const FragmentationInput& input,
                                                 const ExperimentOptions& options) {
  std::vector<const ExperimentPolicy*> policies;
  for (const std::string& name : options.policies) policies.push_back(&policy_named(name));

  const Cluster probe(input.topology);
  const double capacity = static_cast<double>(probe.total_gpu_milli()) / 1000.0;
  const std::vector<WeightedPodClass> typical = typical_pods(input.pods, options.typical_coverage);
  std::vector<std::vector<uint32_t>> orders;
  for (int s = 0; s < options.seeds; ++s)
    orders.push_back(arrival_order(input.pods, capacity, options.limit_pct,
                                   options.base_seed + static_cast<uint64_t>(s)));

  // Tasks are (policy, seed) pairs; each worker takes the next task and writes only its own
  // slot, so the result does not depend on scheduling between threads.
  const size_t total = policies.size() * static_cast<size_t>(options.seeds);
  std::vector<FragmentationRun> runs(total);
  std::atomic<size_t> next{0};
  std::mutex mutex;
  std::condition_variable finished_one;
  size_t done = 0;
  std::exception_ptr failure;
  const auto worker = [&] {
    for (size_t t = next++; t < total; t = next++) {
      const size_t p = t / static_cast<size_t>(options.seeds);
      const size_t s = t % static_cast<size_t>(options.seeds);
      try {
        runs[t] = run_fragmentation_once(input, typical, orders[s], policies[p]->plugin,
                                         options.base_seed + s, options.limit_pct);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!failure) failure = std::current_exception();
      }
      {
        std::lock_guard lock(mutex);
        ++done;
      }
      finished_one.notify_one();
    }
  };
  // The workers do the runs; the calling thread only reports progress and joins them.
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < std::max(1u, options.threads); ++i) threads.emplace_back(worker);
  if (options.progress) {
    std::unique_lock lock(mutex);
    for (size_t reported = 0;;) {
      lock.unlock();
      options.progress(reported, total);
      lock.lock();
      if (reported == total) break;
      finished_one.wait(lock, [&] { return done != reported; });
      reported = done;
    }
  }
  for (std::thread& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);

  FragmentationResult result;
  result.node_list = input.node_list;
  result.pod_list = input.pod_list;
  result.capacity_gpus = capacity;
  result.nodes = probe.node_count();
  result.pods_in_list = static_cast<int>(input.pods.size());
  const size_t levels = static_cast<size_t>(std::floor(options.limit_pct)) + 1;
  for (size_t p = 0; p < policies.size(); ++p) {
    PolicyCurves c;
    c.policy = policies[p]->display;
    c.seeds = options.seeds;
    std::vector<const std::vector<double>*> allocated, fragmented, failed;
    for (size_t s = 0; s < static_cast<size_t>(options.seeds); ++s) {
      const FragmentationRun& r = runs[p * static_cast<size_t>(options.seeds) + s];
      allocated.push_back(&r.allocated_pct);
      fragmented.push_back(&r.fragmentation_pct);
      failed.push_back(&r.failed_pods);
    }
    for (size_t level = 0; level < levels; ++level) {
      double m, sd;
      c.arrival_pct.push_back(static_cast<int>(level));
      mean_sd(allocated, level, m, sd);
      c.allocated_gpu_pct_mean.push_back(m);
      c.allocated_gpu_pct_sd.push_back(sd);
      c.unallocated_gpu_pct_mean.push_back(100.0 - m);
      c.unallocated_gpu_pct_sd.push_back(sd);
      mean_sd(fragmented, level, m, sd);
      c.fragmentation_pct_mean.push_back(m);
      c.fragmentation_pct_sd.push_back(sd);
      mean_sd(failed, level, m, sd);
      c.failed_pods_mean.push_back(m);
    }
    result.policies.push_back(std::move(c));
  }
  return result;
}

}  // namespace gantry
