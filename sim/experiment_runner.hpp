#pragma once
// Runs an Experiment (sim/experiment_spec.hpp): the fragmentation experiment on its pod list
// and then on each variant's, every (policy, seed) of each (sim/fragmentation_experiment.hpp),
// on a given number of threads. What `gantry simulate EXPERIMENT` does between reading its
// flags and writing its outputs.
//
// sim/ cannot read trace formats (adapters/traces depends on sim/), so the caller passes the
// loaders: adapters/traces/trace_ref_loader.hpp's load_trace_topology and load_trace_pods.
// They throw InputError or FileError for a bad trace file, which run_experiment passes on.
// `pods` is called on the runs' threads and must be safe for that (those two are: they only
// read their file).
//
// Deterministic: the same spec and options give the same results, whatever the threads.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/cluster/job.hpp"
#include "engine/cluster/topology.hpp"
#include "sim/experiment_spec.hpp"
#include "sim/fragmentation_export.hpp"

namespace gantry {

struct ExperimentTraces {
  std::function<Topology(const TraceRef&)> nodes;
  std::function<std::vector<JobSpec>(const TraceRef&)> pods;  // one single-pod job per pod
};

// Where the runs are: `runs_done` of all `runs_total` runs finished (whatever their pod list);
// the first pod list with runs not finished is `list` of `lists`, named `name`, with `done` of
// its `total` runs finished.
struct ExperimentProgress {
  size_t list = 0;
  size_t lists = 0;
  std::string name;
  size_t done = 0;
  size_t total = 0;
  size_t runs_done = 0;
  size_t runs_total = 0;
};

struct ExperimentRunOptions {
  std::vector<std::string> policies;  // display names (kExperimentPolicies); empty: the spec's
  std::optional<uint64_t> seed;       // run this one seed instead of the spec's seeds
  // Runs at once (sim/fragmentation_experiment.hpp, ExperimentOptions::threads); the results do
  // not depend on it.
  unsigned threads = 1;
  // Called on the calling thread as runs finish.
  std::function<void(const ExperimentProgress&)> progress;
};

// One result per pod list, the experiment's own first (named by pod_list_name()), then each
// variant's under its name. Each result's `scenario` is the experiment's name. Loads the node
// list first, on the calling thread; each pod list when its first run starts, on that run's
// thread (`traces.pods` may be called for two lists at once), and keeps it only while its runs
// go on. Throws std::invalid_argument for a policy name that is not one of kExperimentPolicies
// (before loading anything), and what the loaders throw; a pod list that fails to load, or a
// run that throws, stops the experiment with the exception one thread would have met first
// (sim/fragmentation_experiment.hpp, run_fragmentation_lists).
std::vector<NamedResult> run_experiment(const ExperimentSpec& experiment,
                                        const ExperimentTraces& traces,
                                        const ExperimentRunOptions& options);

// The name of a pod list in reports: its file name without folder, extension and the openb
// prefix ("data/openb/openb_pod_list_default.csv" -> "default").
std::string pod_list_name(const std::string& path);

}  // namespace gantry
