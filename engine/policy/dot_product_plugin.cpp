#include "engine/policy/dot_product_plugin.hpp"

#include <cmath>

namespace gantry {

int64_t DotProductPlugin::score_of(int64_t free_cpu, int64_t free_gpu_milli, int64_t pod_cpu,
                                   int64_t pod_gpu_milli, const SpecMaxima& maxima) {
  // dot / 2 = num / den with num = fc·pc·G² + fg·pg·C² and den = 2·C²·G²; then
  // floor(100 · (1 − num/den)) = 100 − ceil(100·num / den). C²·G² alone is about 1e18, hence
  // 128 bits (a GCC/Clang extension, which is what this project builds with).
  __extension__ typedef __int128 Wide;  // __extension__: no -Wpedantic warning
  const Wide c = maxima.cpu_milli;
  const Wide g = maxima.gpu_milli;
  const Wide num = Wide{free_cpu} * pod_cpu * g * g + Wide{free_gpu_milli} * pod_gpu_milli * c * c;
  const Wide den = 2 * c * c * g * g;
  // ceil(100·num / den) without a 128-bit division (a slow library call, a twentieth of the
  // FGD artifact's time): a double estimate, then exact 128-bit products move it to the
  // smallest q with q·den >= 100·num (one step at most: the quotient is below 2^53).
  const Wide target = 100 * num;
  auto q = static_cast<int64_t>(std::ceil(static_cast<double>(target) / static_cast<double>(den)));
  while (Wide{q} * den < target) ++q;
  while (Wide{q - 1} * den >= target) --q;
  return 100 - q;
}

NodeScore DotProductPlugin::score(const PlacementContext& ctx, NodeId n) const {
  NodeScore s;
  s.keys[0] = score_of(ctx.cluster.free(n).cpu_milli, ctx.cluster.node_free_milli(n),
                       ctx.pod.cpu_milli, ctx.pod.gpu_milli_total(), maxima_);
  return s;
}

std::optional<NodeId> DotProductPlugin::select(const PlacementContext& ctx) {
  return select_with_own_score(*this, ctx);
}

}  // namespace gantry
