#include "engine/policy/fgd_plugin.hpp"

namespace gantry {

void FgdPlugin::set_target_workload(std::span<const WeightedPodClass> workload) {
  model_.set_workload(workload);
  score_ = FgdScore(model_.weight_total());
  cache_of_ = 0;  // every cached ΔF was for the old workload
  score_settings_changed();
}

std::vector<FgdPlugin::Entry>& FgdPlugin::entries_for(const PlacementContext& ctx) const {
  const Key key{ctx.pod.cpu_milli, ctx.pod.gpus, ctx.pod.gpu_milli};
  if (cache_of_ != ctx.cluster.instance_id() || class_ids_.size() >= kMaxCachedClasses) {
    cache_of_ = ctx.cluster.instance_id();
    class_ids_.clear();
    entries_.clear();
    current_ = nullptr;
  }
  if (current_ != nullptr && key == current_key_) return *current_;
  auto [it, added] = class_ids_.try_emplace(key, entries_.size());
  if (added) entries_.emplace_back(static_cast<size_t>(ctx.cluster.node_count()));
  current_key_ = key;
  current_ = &entries_[it->second];
  return *current_;
}

const FgdPlugin::Entry& FgdPlugin::entry(const PlacementContext& ctx, NodeId n) const {
  std::vector<Entry>& entries = entries_for(ctx);
  if (static_cast<size_t>(n) >= entries.size())  // nodes added since the class was first seen
    entries.resize(static_cast<size_t>(ctx.cluster.node_count()));
  Entry& e = entries[static_cast<size_t>(n)];
  const uint64_t v = ctx.cluster.version(n);
  if (e.version != v) {
    e.move = model_.best_move(ctx.cluster, n, ctx.pod, &score_);
    e.score = score_.score(e.move.delta);
    e.version = v;
  }
  return e;
}

void FgdPlugin::pre_score(const PlacementContext& ctx) { entries_for(ctx); }

NodeScore FgdPlugin::score(const PlacementContext& ctx, NodeId n) const {
  NodeScore s;
  s.keys[0] = entry(ctx, n).score;
  return s;
}

uint64_t FgdPlugin::pick_gpus(const PlacementContext& ctx, NodeId n) const {
  return entry(ctx, n).move.gpu_mask;
}

std::optional<NodeId> FgdPlugin::select(const PlacementContext& ctx) {
  return select_with_own_score(*this, ctx);
}

}  // namespace gantry
