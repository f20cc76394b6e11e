#include "engine/policy/best_fit_plugin.hpp"

namespace gantry {

int64_t BestFitPlugin::score_of(int64_t cpu_left, int64_t gpu_milli_left,
                                const SpecMaxima& maxima) {
  // L = A / (2·C·G) with A = cpu_left·G + gpu_left·C, so floor(100·(1 − L)) = 100 − ceil(100·A /
  // 2CG).
  const int64_t c = maxima.cpu_milli;
  const int64_t g = maxima.gpu_milli;
  return 100 - ceil_div<int64_t>(100 * (cpu_left * g + gpu_milli_left * c), 2 * c * g);
}

NodeScore BestFitPlugin::score(const PlacementContext& ctx, NodeId n) const {
  NodeScore s;
  s.keys[0] = score_of(ctx.cluster.free(n).cpu_milli - ctx.pod.cpu_milli,
                       ctx.cluster.node_free_milli(n) - ctx.pod.gpu_milli_total(), maxima_);
  return s;
}

std::optional<NodeId> BestFitPlugin::select(const PlacementContext& ctx) {
  return select_with_own_score(*this, ctx);
}

}  // namespace gantry
