#include "engine/policy/best_fit_plugin.hpp"

#include <algorithm>

namespace gantry {

void BestFitPlugin::pre_score(const PlacementContext& ctx) {
  if (maxima_of_ == ctx.cluster.instance_id()) return;
  maxima_of_ = ctx.cluster.instance_id();
  max_cpu_ = 1;
  max_gpu_milli_ = 1;
  for (const NodeClass& c : ctx.cluster.topology().classes) {
    max_cpu_ = std::max(max_cpu_, c.capacity.cpu_milli);
    max_gpu_milli_ = std::max<int64_t>(max_gpu_milli_, int64_t{c.capacity.gpus} * kMilliPerGpu);
  }
}

NodeScore BestFitPlugin::score(const PlacementContext& ctx, NodeId n) const {
  const int64_t cpu_left = ctx.cluster.free(n).cpu_milli - ctx.pod.cpu_milli;
  const int64_t gpu_left = ctx.cluster.node_free_milli(n) - ctx.pod.gpu_milli_total();
  NodeScore s;
  s.keys[0] = -(cpu_left * max_gpu_milli_ + gpu_left * max_cpu_);
  return s;
}

}  // namespace gantry
