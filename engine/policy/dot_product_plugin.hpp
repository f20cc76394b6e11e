#pragma once
// "dotproduct": Tetris's alignment heuristic (Grandl et al., "Multi-Resource Packing for
// Cluster Schedulers", SIGCOMM'14) as the FGD paper runs it for its "DotProd" baseline (Weng et
// al., USENIX ATC'23, §6.1): the authors' simulator, hkust-adsl/kubernetes-scheduler-simulator,
// pkg/simulator/plugin/dot_product_score.go with dimExtMethod "merge" and normMethod "max"
// (experiments/run_scripts/generate_run_scripts.py), and GPU selection "best".
//
// Vectors (CPU, GPU), GPU merged over the node's GPUs, both divided by the spec maxima
// (spec_maxima.hpp: 128 cores and 8 GPUs on openb):
//   node  (free CPU / Cmax,  free GPU milli of all GPUs / Gmax)
//   pod   (pod CPU / Cmax,   pod GPU milli (1000 per whole GPU, or the share) / Gmax)
//   dot   = node · pod
// Score (higher is better), an integer as in the Kubernetes scheduling framework:
//   score = floor(100 · (1 − dot / 2))
// so the node whose free resources are scarcest where the pod asks wins (a packing rule; Tetris
// itself maximises). Computed exactly in 128-bit integers, so a product that lands on a whole
// score is never rounded across it. Ties go to the lowest node id (the framework's rule in the
// authors' fork: the lexicographically smallest node name). Memory is not a dimension, as there.
// GPUs inside the node: the default (best-fit GPU for a share, lowest fully free otherwise).

#include "engine/policy/placement_plugin.hpp"
#include "engine/policy/spec_maxima.hpp"

namespace gantry {

class DotProductPlugin final : public PlacementPlugin {
 public:
  std::string_view name() const override { return "dotproduct"; }
  void pre_score(const PlacementContext& ctx) override { maxima_.update(ctx.cluster); }
  NodeScore score(const PlacementContext& ctx, NodeId n) const override;
  // The default select(), with score() inlined (select_with_own_score()).
  std::optional<NodeId> select(const PlacementContext& ctx) override;

  // The score of the rule above for these free and requested amounts.
  static int64_t score_of(int64_t free_cpu, int64_t free_gpu_milli, int64_t pod_cpu,
                          int64_t pod_gpu_milli, const SpecMaxima& maxima);

 private:
  SpecMaxima maxima_;
};

}  // namespace gantry
