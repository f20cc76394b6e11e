#pragma once
// Hand-built clusters with GPU shares for the sharing, fragmentation and FGD tests.

#include <vector>

#include "engine/cluster/cluster.hpp"
#include "engine/policy/target_workload.hpp"
#include "tests/engine/policy/test_cluster.hpp"

namespace gantry::testing {

// A node with these GPU model, CPU capacity and per-GPU free milli (its GPU count is the
// list's length; 0 = GPU whole-allocated, 1..999 = partly shared, 1000 = fully free).
struct SharedNode {
  std::string gpu_type = "A100-80G";
  int64_t cpu_milli = 32'000;
  std::vector<int> free_milli = {1000, 1000, 1000, 1000};
  int64_t cpu_used = 0;  // taken by a GPU-less pod
};

inline Cluster shared_cluster(const std::vector<SharedNode>& nodes) {
  std::vector<NodeDef> defs;
  for (const SharedNode& s : nodes) {
    NodeDef d;
    d.gpus = static_cast<int>(s.free_milli.size());
    d.gpu_type = d.gpus > 0 ? s.gpu_type : "";
    d.island_size = d.gpus;
    d.cpu_milli = s.cpu_milli;
    defs.push_back(d);
  }
  Cluster c(make_topology(defs));
  for (size_t i = 0; i < nodes.size(); ++i) {
    const auto n = static_cast<NodeId>(i);
    for (size_t g = 0; g < nodes[i].free_milli.size(); ++g) {
      const int free = nodes[i].free_milli[g];
      const uint64_t bit = 1ull << g;
      if (free == 0) take(c, n, Resources{0, 0, 1, 0}, bit);
      if (free > 0 && free < 1000) take(c, n, Resources{0, 0, 0, 1000 - free}, bit);
    }
    if (nodes[i].cpu_used > 0) take(c, n, Resources{nodes[i].cpu_used, 0, 0, 0}, 0);
  }
  return c;
}

inline Resources share_pod(int milli, int64_t cpu_milli = 1'000) {
  return Resources{cpu_milli, kGi, 0, milli};
}
inline Resources whole_pod(int gpus, int64_t cpu_milli = 1'000) {
  return Resources{cpu_milli, kGi, gpus, 0};
}
inline Resources cpu_pod(int64_t cpu_milli) { return Resources{cpu_milli, kGi, 0, 0}; }

inline WeightedPodClass weighted(Resources r, double weight, std::vector<std::string> models = {}) {
  return WeightedPodClass{pod_class_of(r, std::move(models)), weight};
}

}  // namespace gantry::testing
