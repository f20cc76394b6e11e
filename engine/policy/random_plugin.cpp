#include "engine/policy/random_plugin.hpp"

#include <algorithm>

namespace gantry {

namespace {
constexpr const char* kStream = "placement.random";
}  // namespace

RandomPlugin::RandomPlugin() : stream_(RandomStreams(0).stream(kStream)) {}

void RandomPlugin::configure(const SchedulerConfig& config) {
  stream_ = RandomStreams(config.seed).stream(kStream);
}

NodeScore RandomPlugin::score(const PlacementContext&, NodeId) const { return {}; }

std::optional<NodeId> RandomPlugin::select(const PlacementContext& ctx) {
  chosen_node_ = -1;
  std::optional<NodeId> drawn;
  if (score_buckets_on() && ScoreBuckets::applies(ctx)) {
    // Every feasible node in one bucket (score 0), so nth() counts them in id order, as
    // draw_feasible_node() does, with the same single draw.
    const ScoreBuckets::Class* c = score_buckets().sync(ctx, [](NodeId) { return NodeScore{}; });
    if (c->feasible > 0) drawn = ScoreBuckets::nth(*c, stream_.uniform_int(0, c->feasible - 1));
  } else {
    drawn = draw_feasible_node(ctx, stream_, feasible_);
  }
  if (!drawn) return std::nullopt;
  const NodeId n = *drawn;
  chosen_node_ = n;
  chosen_version_ = ctx.cluster.version(n);
  chosen_pod_ = ctx.pod;
  if (ctx.pod.shares_gpu()) {
    int fitting[64];
    int count = 0;
    const auto milli = ctx.cluster.gpu_free_milli(n);
    for (size_t g = 0; g < milli.size(); ++g)
      if (milli[g] >= ctx.pod.gpu_milli) fitting[count++] = static_cast<int>(g);
    chosen_mask_ = uint64_t{1} << fitting[stream_.uniform_int(0, count - 1)];
  } else {
    chosen_mask_ = ctx.cluster.lowest_free_gpus(n, ctx.pod.gpus);
  }
  return n;
}

uint64_t RandomPlugin::pick_gpus(const PlacementContext& ctx, NodeId n) const {
  if (n == chosen_node_ && ctx.cluster.version(n) == chosen_version_ && ctx.pod == chosen_pod_)
    return chosen_mask_;
  return default_gpus(ctx.cluster, n, ctx.pod);  // not the node select() chose: no draw
}

}  // namespace gantry
