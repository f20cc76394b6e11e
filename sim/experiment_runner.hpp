#pragma once
// Runs an Experiment (sim/experiment_spec.hpp): the fragmentation experiment on its pod list
// and then on each variant's, every (policy, seed) of each (sim/fragmentation_experiment.hpp),
// on a given number of threads. What `gantry simulate EXPERIMENT` does between reading its
// flags and writing its outputs.
//
// sim/ cannot read trace formats (adapters/traces depends on sim/), so the caller passes the
// loaders: adapters/traces/trace_ref_loader.hpp's load_trace_topology and load_trace_pods.
// They throw InputError or FileError for a bad trace file, which run_experiment passes on.
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

// Where a run is: pod list `list` of `lists` (named `name`), `done` of its `total` runs.
struct ExperimentProgress {
  size_t list = 0;
  size_t lists = 0;
  std::string name;
  size_t done = 0;
  size_t total = 0;
};

struct ExperimentRunOptions {
  std::vector<std::string> policies;  // display names (kExperimentPolicies); empty: the spec's
  std::optional<uint64_t> seed;       // run this one seed instead of the spec's seeds
  unsigned threads = 1;
  // Called on the calling thread: with done = 0 when a pod list starts, then as runs finish.
  std::function<void(const ExperimentProgress&)> progress;
};

// One result per pod list, the experiment's own first (named by pod_list_name()), then each
// variant's under its name. Each result's `scenario` is the experiment's name. Throws
// std::invalid_argument for a policy name that is not one of kExperimentPolicies.
std::vector<NamedResult> run_experiment(const ExperimentSpec& experiment,
                                        const ExperimentTraces& traces,
                                        const ExperimentRunOptions& options);

// The name of a pod list in reports: its file name without folder, extension and the openb
// prefix ("data/openb/openb_pod_list_default.csv" -> "default").
std::string pod_list_name(const std::string& path);

}  // namespace gantry
