#pragma once
// "bestfit": the node left with the least weighted CPU and GPU after placing the pod, the FGD
// paper's "BestFit" baseline (Weng et al., USENIX ATC'23, §6.1) as the authors' simulator
// scores it (hkust-adsl/kubernetes-scheduler-simulator, pkg/simulator/plugin/best_fit_score.go,
// GPU selection "best").
//
// Leftover of node n after the pod, CPU and GPU divided by the spec maxima (spec_maxima.hpp:
// 128 cores and 8 GPUs on openb) and weighted 0.5 each:
//   L = 0.5 · (free CPU − pod CPU) / Cmax  +  0.5 · (free GPU milli − pod GPU milli) / Gmax
// with free GPU milli summed over the node's GPUs and the pod's 1000 per whole GPU or its share.
// Score (higher is better), an integer as in the Kubernetes scheduling framework:
//   score = floor(100 · (1 − L))
// computed exactly in integers. (The authors' plugin then min-max normalises the scores of all
// nodes to 0..100; that maps the highest score, and only it, to 100, so it never changes the
// winner and is left out.) Ties go to the lowest node id (the authors' fork of the framework
// breaks ties by the smallest node name). GPUs inside the node: the default (best-fit GPU for a
// share, lowest fully free otherwise).

#include <cstdint>

#include "engine/policy/placement_plugin.hpp"
#include "engine/policy/spec_maxima.hpp"

namespace gantry {

class BestFitPlugin final : public PlacementPlugin {
 public:
  std::string_view name() const override { return "bestfit"; }
  void pre_score(const PlacementContext& ctx) override { maxima_.update(ctx.cluster); }
  NodeScore score(const PlacementContext& ctx, NodeId n) const override;
  // The default select(), with score() inlined (select_with_own_score()).
  std::optional<NodeId> select(const PlacementContext& ctx) override;

  // The score of the rule above; the pod must fit (leftovers >= 0).
  static int64_t score_of(int64_t cpu_left, int64_t gpu_milli_left, const SpecMaxima& maxima);

 private:
  SpecMaxima maxima_;
};

}  // namespace gantry
