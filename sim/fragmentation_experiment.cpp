#include "sim/fragmentation_experiment.hpp"

#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "engine/cluster/cluster.hpp"
#include "engine/core/parallel_runs.hpp"
#include "engine/core/random.hpp"
#include "engine/policy/fragmentation.hpp"
#include "engine/policy/scheduler.hpp"

namespace gantry {

namespace {

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

// requested_milli() of each pod, once per list rather than twice per pod of every run (summing
// a pod's roles was a twentieth of the FGD artifact's time).
std::vector<int64_t> requested_millis(const std::vector<JobSpec>& pods) {
  std::vector<int64_t> out;
  out.reserve(pods.size());
  for (const JobSpec& p : pods) out.push_back(requested_milli(p));
  return out;
}

}  // namespace

const ExperimentPolicy& experiment_policy(const std::string& name) {
  for (const ExperimentPolicy& p : kExperimentPolicies)
    if (name == p.display || name == p.plugin) return p;
  std::string known;
  for (const ExperimentPolicy& p : kExperimentPolicies)
    known += (known.empty() ? "" : ", ") + std::string(p.display);
  throw std::invalid_argument("unknown policy '" + name + "'; known: " + known);
}

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

namespace {

// One run (run_fragmentation_once's contract) on inputs shared by every run of a pod list.
// `milli_of`: requested_millis(pods).
FragmentationRun place_and_sample(const Topology& topology, const std::vector<JobSpec>& pods,
                                  const std::vector<int64_t>& milli_of,
                                  const std::vector<WeightedPodClass>& typical,
                                  const std::vector<uint32_t>& order, const std::string& plugin,
                                  uint64_t seed, double limit_pct, const std::stop_token& stop) {
  Cluster cluster(shuffled_nodes(topology, seed));
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
  // The cluster's fragmentation, kept here as the sum of the nodes' (exact integers, so the
  // same sum as FragmentationModel::cluster_fragmentation() to the last bit): a pod changes only
  // the node it is bound to, and re-reading that node alone spares the model's check of every
  // node's version after every pod (O(nodes) each; a fifth of a BestFit run).
  std::vector<int64_t> node_frag(static_cast<size_t>(cluster.node_count()));
  int64_t frag_scaled = 0;
  for (NodeId n = 0; n < cluster.node_count(); ++n) {
    node_frag[static_cast<size_t>(n)] = fragmentation.node_fragmentation_scaled(cluster, n);
    frag_scaled += node_frag[static_cast<size_t>(n)];
  }
  const double weight = static_cast<double>(fragmentation.weight_total());
  const auto frag_milli = [&] {
    return weight == 0 ? 0.0 : static_cast<double>(frag_scaled) / weight;
  };

  int64_t arrived = 0, allocated = 0;
  double failed = 0;
  FragmentationRun run;
  for (size_t k = 0; k < order.size(); ++k) {
    // An atomic load every 256 pods (a few microseconds of placing).
    if (k % 256 == 0 && stop.stop_requested()) return run;
    const JobSpec& pod = pods[order[k]];
    const int64_t pod_milli = milli_of[order[k]];
    arrived += pod_milli;
    if (const std::optional<BindAction> bind =
            scheduler.place_now(cluster, static_cast<JobId>(k), pod)) {
      allocated += pod_milli;
      for (const PodPlacement& placed : bind->pods) {
        int64_t& before = node_frag[static_cast<size_t>(placed.node)];
        const int64_t after = fragmentation.node_fragmentation_scaled(cluster, placed.node);
        frag_scaled += after - before;
        before = after;
      }
    } else {
      failed += 1;
    }
    ++run.pods_arrived;
    // std::nearbyint rounds half to even in the default rounding mode, as pandas' round() does.
    const double level = std::nearbyint(percent(static_cast<double>(arrived)));
    if (level < 0 || level >= static_cast<double>(buckets.size())) continue;
    Bucket& b = buckets[static_cast<size_t>(level)];
    b.allocated += percent(static_cast<double>(allocated));
    b.fragmentation += percent(frag_milli());
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

// A pod list ready for its runs; read by all of them at once, written by none.
struct PreparedPodList {
  std::vector<JobSpec> pods;
  std::vector<int64_t> milli;  // requested_millis(pods)
  std::vector<WeightedPodClass> typical;
  std::vector<std::vector<uint32_t>> orders;  // per seed: options.base_seed + index
};

// A pod list's state while its runs go on. The runs of one list share it; `mutex` guards the
// members it names, `done` is read by the progress reports while runs write it.
struct PodListState {
  std::mutex mutex;
  bool loading_tried = false;                    // guarded
  std::exception_ptr load_error;                 // guarded: the load's exception, for every run
  std::shared_ptr<const PreparedPodList> input;  // guarded: null before loading and after the end
  size_t runs_left = 0;                          // guarded: at 0 `input` is dropped
  int pods_in_list = 0;                          // guarded; read after every run has joined
  std::atomic<size_t> done{0};
};

// The prepared list, loading it if this is its first run. Throws the load's exception (to every
// run of the list: each is the list's first in somebody's order).
std::shared_ptr<const PreparedPodList> acquire_pod_list(PodListState& state,
                                                        const PodListSource& source,
                                                        double capacity,
                                                        const ExperimentOptions& options) {
  std::lock_guard lock(state.mutex);
  if (!state.loading_tried) {
    state.loading_tried = true;
    try {
      auto prepared = std::make_shared<PreparedPodList>();
      prepared->pods = source.load();
      prepared->milli = requested_millis(prepared->pods);
      prepared->typical = typical_pods(prepared->pods, options.typical_coverage);
      for (int s = 0; s < options.seeds; ++s)
        prepared->orders.push_back(arrival_order(prepared->pods, capacity, options.limit_pct,
                                                 options.base_seed + static_cast<uint64_t>(s)));
      state.pods_in_list = static_cast<int>(prepared->pods.size());
      state.input = std::move(prepared);
    } catch (...) {
      state.load_error = std::current_exception();
    }
  }
  if (state.load_error) std::rethrow_exception(state.load_error);
  return state.input;
}

// The result of one list from its runs, `runs[p * seeds + s]`.
FragmentationResult average_runs(const std::vector<const ExperimentPolicy*>& policies,
                                 const FragmentationRun* runs, const ExperimentOptions& options) {
  FragmentationResult result;
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

}  // namespace

FragmentationRun run_fragmentation_once(const FragmentationInput& input,
                                        const std::vector<WeightedPodClass>& typical,
                                        const std::vector<uint32_t>& order,
                                        const std::string& plugin, uint64_t seed, double limit_pct,
                                        std::stop_token stop) {
  return place_and_sample(input.topology, input.pods, requested_millis(input.pods), typical, order,
                          plugin, seed, limit_pct, stop);
}

std::vector<FragmentationResult> run_fragmentation_lists(const Topology& topology,
                                                         const std::string& node_list,
                                                         const std::vector<PodListSource>& lists,
                                                         const ExperimentOptions& options) {
  std::vector<const ExperimentPolicy*> policies;
  for (const std::string& name : options.policies) policies.push_back(&experiment_policy(name));

  const Cluster probe(topology);
  const double capacity = static_cast<double>(probe.total_gpu_milli()) / 1000.0;
  const size_t seeds = static_cast<size_t>(std::max(0, options.seeds));
  const size_t per_list = policies.size() * seeds;
  const size_t total = lists.size() * per_list;

  std::vector<PodListState> states(lists.size());
  for (PodListState& state : states) state.runs_left = per_list;
  std::vector<FragmentationRun> runs(total);  // slot i: run i, written by its task only

  // Run i is (list, policy, seed) = (i / per_list, i % per_list / seeds, i % seeds).
  const auto run = [&](size_t i, std::stop_token stop) {
    const size_t l = i / per_list, p = i % per_list / seeds, s = i % seeds;
    PodListState& state = states[l];
    // However the run ends, it is done, and the list's last run drops the list.
    struct Done {
      PodListState& state;
      ~Done() {
        state.done.fetch_add(1, std::memory_order_relaxed);
        std::lock_guard lock(state.mutex);
        if (--state.runs_left == 0) state.input.reset();
      }
    } done{state};
    const std::shared_ptr<const PreparedPodList> input =
        acquire_pod_list(state, lists[l], capacity, options);
    runs[i] =
        place_and_sample(topology, input->pods, input->milli, input->typical, input->orders[s],
                         policies[p]->plugin, options.base_seed + s, options.limit_pct, stop);
  };
  std::function<void(size_t)> progress;
  if (options.progress)
    progress = [&](size_t finished) {
      RunsProgress at;
      at.runs_done = finished;
      at.runs_total = total;
      at.list_total = per_list;
      at.list = lists.empty() ? 0 : lists.size() - 1;
      for (size_t l = 0; l < lists.size(); ++l)
        if (states[l].done.load(std::memory_order_relaxed) < per_list) {
          at.list = l;
          break;
        }
      if (!lists.empty()) at.list_done = states[at.list].done.load(std::memory_order_relaxed);
      options.progress(at);
    };
  run_in_order(total, options.threads, run, progress);

  // In list order, whatever order the runs finished in.
  std::vector<FragmentationResult> results;
  for (size_t l = 0; l < lists.size(); ++l) {
    FragmentationResult r = average_runs(policies, runs.data() + l * per_list, options);
    r.node_list = node_list;
    r.pod_list = lists[l].file;
    r.capacity_gpus = capacity;
    r.nodes = probe.node_count();
    r.pods_in_list = states[l].pods_in_list;
    results.push_back(std::move(r));
  }
  return results;
}

FragmentationResult run_fragmentation_experiment(const FragmentationInput& input,
                                                 const ExperimentOptions& options) {
  // The list is already in memory: its "load" copies it once, for the runs to share.
  const PodListSource list{input.pod_list, [&input] { return input.pods; }};
  return std::move(
      run_fragmentation_lists(input.topology, input.node_list, {list}, options).front());
}

}  // namespace gantry
