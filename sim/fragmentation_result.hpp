#pragma once
// Results of the fragmentation experiment (issue #3, after Weng et al., "Beware of
// Fragmentation", USENIX ATC'23): for each placement policy, the cluster's allocated and
// unallocated GPU share and its fragmentation as the arrived workload grows, sampled at every
// integer percent of cluster GPU capacity, as mean and standard deviation over seeds.

#include <string>
#include <vector>

namespace gantry {

struct PolicyCurves {
  std::string policy;            // "FGD", "BestFit", ...
  int seeds = 0;                 // runs averaged
  std::vector<int> arrival_pct;  // 0, 1, ..., limit
  std::vector<double> allocated_gpu_pct_mean, allocated_gpu_pct_sd;
  std::vector<double> unallocated_gpu_pct_mean, unallocated_gpu_pct_sd;
  std::vector<double> fragmentation_pct_mean, fragmentation_pct_sd;
  std::vector<double> failed_pods_mean;  // pods that found no node, cumulative
};

struct FragmentationResult {
  std::string scenario;
  std::string pod_list;  // the pod list's file name
  std::string node_list;
  double capacity_gpus = 0;  // the cluster's GPUs
  int nodes = 0;
  int pods_in_list = 0;
  std::vector<PolicyCurves> policies;  // in the order the scenario lists them
};

}  // namespace gantry
