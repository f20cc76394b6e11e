#include "sim/fragmentation_experiment.hpp"

#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdint>
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

int64_t requested_milli(const JobSpec& pod) {
  const Resources r = pod.total_request();
  return int64_t{r.gpus} * kMilliPerGpu + r.gpu_milli;
}

}  // namespace

double requested_gpus(const JobSpec& pod) {
  return static_cast<double>(requested_milli(pod)) / 1000.0;
}

std::vector<uint32_t> arrival_order(const std::vector<JobSpec>& pods, double capacity_gpus,
                                    double limit_pct, uint64_t seed) {
  std::vector<uint32_t> order(pods.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  if (pods.empty()) return order;
  const RandomStreams streams(seed);
  RandomStream shuffle = streams.stream("experiment/shuffle");
  for (size_t i = order.size() - 1; i > 0; --i)
    std::swap(order[i],
              order[static_cast<size_t>(shuffle.uniform_int(0, static_cast<int64_t>(i)))]);
  // In milli-GPU, so that a pod that reaches the limit exactly is still taken.
  int64_t requested = 0;
  for (uint32_t i : order) requested += requested_milli(pods[i]);
  const double target = capacity_gpus * 1000.0 * limit_pct / 100.0;
  RandomStream extend = streams.stream("experiment/extend");
  bool any_gpu = false;
  for (const JobSpec& p : pods) any_gpu |= requested_milli(p) > 0;
  while (any_gpu) {
    const auto i =
        static_cast<uint32_t>(extend.uniform_int(0, static_cast<int64_t>(pods.size()) - 1));
    const int64_t r = requested_milli(pods[i]);
    if (static_cast<double>(requested + r) > target) break;
    order.push_back(i);
    requested += r;
  }
  return order;
}

Topology shuffled_nodes(const Topology& topology, uint64_t seed) {
  Topology out = topology;
  RandomStream stream = RandomStreams(seed).stream("experiment/node-order");
  for (size_t i = out.nodes.size(); i > 1; --i)
    std::swap(out.nodes[i - 1],
              out.nodes[static_cast<size_t>(stream.uniform_int(0, static_cast<int64_t>(i) - 1))]);
  return out;
}

std::vector<WeightedPodClass> typical_pods(const std::vector<JobSpec>& pods, double coverage) {
  std::vector<PodClass> classes;
  classes.reserve(pods.size());
  for (const JobSpec& p : pods)
    classes.push_back(pod_class_of(p.total_request(), p.allowed_gpu_models()));
  return typical_pod_classes(classes, coverage);
}

FragmentationRun run_fragmentation_once(const FragmentationInput& input,
                                        const std::vector<WeightedPodClass>& typical,
                                        const std::vector<uint32_t>& order,
                                        const std::string& plugin, uint64_t seed,
                                        double limit_pct) {
  Cluster cluster(shuffled_nodes(input.topology, seed));
  SchedulerConfig config;
  config.placement = plugin;
  config.seed = seed;
  Scheduler scheduler(config);
  scheduler.set_target_workload(typical);
  FragmentationModel fragmentation(typical);

  const int64_t capacity = cluster.total_gpu_milli();
  const size_t levels = static_cast<size_t>(std::floor(limit_pct)) + 1;
  // Per level (one more, for the window of the last level): sums over the pods whose arrival
  // rounds to it.
  struct Bucket {
    double allocated = 0, fragmentation = 0, failed = 0;
    int64_t pods = 0;
  };
  std::vector<Bucket> buckets(levels + 1);
  const auto percent = [capacity](double milli) {
    return 100.0 * milli / static_cast<double>(capacity);
  };
  int64_t arrived = 0, allocated = 0;
  double failed = 0;
  FragmentationRun run;
  for (size_t k = 0; k < order.size(); ++k) {
    const JobSpec& pod = input.pods[order[k]];
    arrived += requested_milli(pod);
    if (scheduler.place_now(cluster, static_cast<JobId>(k), pod)) {
      allocated += requested_milli(pod);
    } else {
      failed += 1;
    }
    ++run.pods_arrived;
    // std::nearbyint rounds half to even in the default rounding mode, as pandas' round() does.
    const double level = std::nearbyint(percent(static_cast<double>(arrived)));
    if (level < 0 || level >= static_cast<double>(buckets.size())) continue;
    Bucket& b = buckets[static_cast<size_t>(level)];
    b.allocated += percent(static_cast<double>(allocated));
    b.fragmentation += percent(fragmentation.cluster_fragmentation(cluster));
    b.failed += failed;
    ++b.pods;
  }
  run.allocated_pct.reserve(levels);
  for (size_t level = 0; level < levels; ++level) {
    Bucket sum = buckets[level];
    if (sum.pods == 0) {  // the authors' fallback: the neighbouring levels together
      for (const size_t near : {level - 1, level + 1}) {
        if (near >= buckets.size()) continue;  // level − 1 wraps around for level 0
        sum.allocated += buckets[near].allocated;
        sum.fragmentation += buckets[near].fragmentation;
        sum.failed += buckets[near].failed;
        sum.pods += buckets[near].pods;
      }
    }
    if (sum.pods == 0) {
      run.allocated_pct.push_back(level == 0 ? 0.0 : run.allocated_pct.back());
      run.fragmentation_pct.push_back(level == 0 ? 0.0 : run.fragmentation_pct.back());
      run.failed_pods.push_back(level == 0 ? 0.0 : run.failed_pods.back());
      continue;
    }
    const double n = static_cast<double>(sum.pods);
    run.allocated_pct.push_back(sum.allocated / n);
    run.fragmentation_pct.push_back(sum.fragmentation / n);
    run.failed_pods.push_back(sum.failed / n);
  }
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
