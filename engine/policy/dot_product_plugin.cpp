#include "engine/policy/dot_product_plugin.hpp"

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
  return 100 - static_cast<int64_t>(ceil_div<Wide>(100 * num, den));
}

NodeScore DotProductPlugin::score(const PlacementContext& ctx, NodeId n) const {
  NodeScore s;
  s.keys[0] = score_of(ctx.cluster.free(n).cpu_milli, ctx.cluster.node_free_milli(n),
                       ctx.pod.cpu_milli, ctx.pod.gpu_milli_total(), maxima_);
  return s;
}

}  // namespace gantry
