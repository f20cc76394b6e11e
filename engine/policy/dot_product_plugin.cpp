#include "engine/policy/dot_product_plugin.hpp"

#include <cmath>

namespace gantry {

NodeScore DotProductPlugin::score(const PlacementContext& ctx, NodeId n) const {
  const Resources& cap = ctx.cluster.node_class(n).capacity;
  const Resources& free = ctx.cluster.free(n);
  double dot = 0;
  if (cap.cpu_milli > 0) {
    const double c = static_cast<double>(cap.cpu_milli);
    dot += (static_cast<double>(free.cpu_milli) / c) * (static_cast<double>(ctx.pod.cpu_milli) / c);
  }
  if (cap.gpus > 0) {
    const double g = static_cast<double>(cap.gpus) * kMilliPerGpu;
    dot += (static_cast<double>(ctx.cluster.node_free_milli(n)) / g) *
           (static_cast<double>(ctx.pod.gpu_milli_total()) / g);
  }
  NodeScore s;
  s.keys[0] = -std::llround(std::ldexp(dot, 40));
  return s;
}

}  // namespace gantry
