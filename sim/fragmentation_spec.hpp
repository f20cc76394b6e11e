#pragma once
// The fragmentation experiment (a `kind: Experiment` file of `type: Fragmentation`,
// sim/experiment_spec.hpp), after Weng et al., "Beware of Fragmentation: Scheduling
// GPU-Sharing Workloads with Fragmentation Gradient Descent", USENIX ATC'23: a trace's nodes, a
// trace's pod list shuffled with a seed and extended by sampling with replacement for as long as
// the requested GPU stays within `arrival_limit_pct` of the cluster's GPU capacity, placed one pod
// at a time, never retried and never leaving (sim/fragmentation_experiment.hpp has the exact
// rules).

#include <string>
#include <vector>

#include "engine/core/errors.hpp"

namespace gantry {

// A data file in a known trace format, with its path resolved against the scenario's folder.
struct TraceRef {
  std::string format;    // "openb-nodes", "openb-pods", "pai-machines", "spot-nodes"
  std::string path;      // as resolved
  std::string file;      // as written in the scenario
  SourceLocation where;  // of the reference, for messages about the file
};

// One pod list of a sweep.
struct PodListVariant {
  std::string name;
  TraceRef pods;
};

struct FragmentationExperimentSpec {
  TraceRef nodes;
  TraceRef pods;
  double arrival_limit_pct = 130;  // extend while requested GPU stays within this share of capacity
  int seeds = 10;                  // seeds base, base+1, ... (base = spec.seed)
  double typical_coverage = 0.95;  // FGD's target workload: classes covering this pod share
  std::vector<std::string> policies;     // display names: Random, DotProduct, ..., FGD
  std::vector<PodListVariant> variants;  // a sweep over pod lists (empty: just `pods`)
};

// The placement policies of the experiment, by display name (as the paper names them) and by
// scheduler plugin name.
struct ExperimentPolicy {
  const char* display;
  const char* plugin;
};
inline constexpr ExperimentPolicy kExperimentPolicies[] = {
    {"Random", "random"},         {"DotProduct", "dotproduct"}, {"GpuClustering", "gpuclustering"},
    {"GpuPacking", "gpupacking"}, {"BestFit", "bestfit"},       {"FGD", "fgd"}};

}  // namespace gantry
