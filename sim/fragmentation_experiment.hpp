#pragma once
// Runs the fragmentation experiment (sim/fragmentation_spec.hpp) on an already loaded cluster
// and pod list: for every (policy, seed), pods arrive one at a time in the seed's order and are
// placed by the scheduler's placement plugin with Scheduler::place_now() — the same code path
// as every other scheduling decision — never retried and never leaving. After every pod the run
// records the arrived GPU (failed pods included), the allocated GPU and the cluster's
// fragmentation (FragmentationModel over the typical pods, whatever the policy).
//
// Everything a seed randomises follows the FGD authors' simulator
// (hkust-adsl/kubernetes-scheduler-simulator, pkg/simulator/core.go and simulator.go), so the
// published curves are reproduced as they were made:
//   - arrival order: the pod list shuffled (Fisher-Yates, stream "experiment/shuffle"), then
//     extended with pods drawn uniformly with replacement from the list (stream
//     "experiment/extend") until the next drawn pod would take the requested GPU over the limit
//     (TunePodsByNodeTotalResource, tuneUpPods). Every policy sees the same order for a seed.
//   - node order: the nodes in a random order (stream "experiment/node-order"). The authors'
//     simulator prefixes every node name with a random rank and its scheduler breaks score ties
//     by the smallest name; Gantry's plugins break ties by the lowest node id, so a random node
//     order per seed gives the same tie-breaking.
//
// Sampling, as the authors' analysis does (experiments/analysis/merge_alloc_discrete_0920.py):
// the value at level L % is the mean over the pods whose arrived GPU, in percent of capacity
// rounded half to even, is L; if no pod's is, the mean over those rounding to L − 1 .. L + 1;
// if none of those either, the value of level L − 1 (0 for level 0).
//
// Deterministic: same inputs, same result, whatever the number of threads (each run reads
// shared inputs and writes only its own result; results are averaged in run order).

#include <functional>
#include <stop_token>
#include <string>
#include <vector>

#include "engine/cluster/job.hpp"
#include "engine/cluster/topology.hpp"
#include "engine/policy/target_workload.hpp"
#include "sim/fragmentation_result.hpp"
#include "sim/fragmentation_spec.hpp"

namespace gantry {

struct FragmentationInput {
  Topology topology;
  std::vector<JobSpec> pods;  // one single-pod job per trace pod
  std::string node_list;      // names for the report
  std::string pod_list;
};

// One (policy, seed) run, sampled at levels 0..floor(limit) (see "Sampling" above).
struct FragmentationRun {
  std::vector<double> allocated_pct;
  std::vector<double> fragmentation_pct;
  std::vector<double> failed_pods;
  size_t pods_arrived = 0;
};

// The GPU a pod requests, in GPUs (a 460-milli share is 0.46).
double requested_gpus(const JobSpec& pod);

// The arrival order for one seed: indices into `pods`.
std::vector<uint32_t> arrival_order(const std::vector<JobSpec>& pods, double capacity_gpus,
                                    double limit_pct, uint64_t seed);

// The topology with its nodes in the seed's random order (see "node order" above).
Topology shuffled_nodes(const Topology& topology, uint64_t seed);

// FGD's target workload for a pod list: the classes covering `coverage` of the pods.
std::vector<WeightedPodClass> typical_pods(const std::vector<JobSpec>& pods, double coverage);

// One run on shuffled_nodes(input.topology, seed). `plugin` is a scheduler plugin name ("fgd",
// "bestfit", ...). A run whose `stop` is requested returns early with the levels it has not
// reached left out; it is asked to only when its result will be thrown away
// (engine/core/parallel_runs.hpp).
FragmentationRun run_fragmentation_once(const FragmentationInput& input,
                                        const std::vector<WeightedPodClass>& typical,
                                        const std::vector<uint32_t>& order,
                                        const std::string& plugin, uint64_t seed, double limit_pct,
                                        std::stop_token stop = {});

// Where the runs of an experiment are, for a progress bar.
struct RunsProgress {
  size_t runs_done = 0;   // runs finished, over every pod list (failed and stopped ones too)
  size_t runs_total = 0;  // pod lists × policies × seeds
  size_t list = 0;        // the first pod list with runs not yet finished (the last when none)
  size_t list_done = 0;   // its runs finished
  size_t list_total = 0;  // its runs: policies × seeds
};

struct ExperimentOptions {
  std::vector<std::string> policies;  // display names (kExperimentPolicies)
  int seeds = 10;
  uint64_t base_seed = 1;
  double limit_pct = 130;
  double typical_coverage = 0.95;
  // Runs at once, one (pod list, policy, seed) each (engine/core/parallel_runs.hpp); 1 runs them
  // one after another on the calling thread. The results do not depend on it.
  unsigned threads = 1;
  // Called on the calling thread as runs finish (not when no run finishes).
  std::function<void(const RunsProgress&)> progress;
};

// The display policy of `name` (a display or plugin name). Throws std::invalid_argument naming
// the known policies.
const ExperimentPolicy& experiment_policy(const std::string& name);

// Every (policy, seed) run, averaged per policy (mean and sample standard deviation).
// Throws std::invalid_argument for an unknown policy name.
FragmentationResult run_fragmentation_experiment(const FragmentationInput& input,
                                                 const ExperimentOptions& options);

// A pod list of an experiment over several: loaded when its first run starts, on the thread
// that starts it (possibly while another list loads on another thread), and dropped when its
// last run ends, so that at most `threads` + 1 lists are in memory at once. Its typical pods
// and each seed's arrival order are worked out once, right after loading, and every run of the
// list reads them (and the pods) in place.
struct PodListSource {
  std::string file;                            // its file name, for FragmentationResult::pod_list
  std::function<std::vector<JobSpec>()> load;  // may throw (a bad file found late)
};

// Every (list, policy, seed) run on one node list, the lists' results in the order of `lists`,
// each as run_fragmentation_experiment() gives it. Runs are numbered list by list, then policy
// by policy, then seed by seed, and the outcome is that of running them in that order on one
// thread (engine/core/parallel_runs.hpp): the same results, and if a run or a list's load
// throws, the exception of the first in that order (after the other threads stopped and
// joined). Throws std::invalid_argument for an unknown policy name, before loading anything.
std::vector<FragmentationResult> run_fragmentation_lists(const Topology& topology,
                                                         const std::string& node_list,
                                                         const std::vector<PodListSource>& lists,
                                                         const ExperimentOptions& options);

}  // namespace gantry
