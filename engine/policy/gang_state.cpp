#include "engine/policy/gang_state.hpp"

#include <algorithm>
#include <cassert>

namespace gantry {

void GangState::begin(const Cluster& cluster, std::vector<Resources> pods,
                      std::vector<GpuTypeId> gpu_types) {
  ++gang_;
  pods_ = std::move(pods);
  gpu_types_ = std::move(gpu_types);
  type_pinned_ = false;
  placements_.clear();
  nodes_.clear();
  same_run_.assign(pods_.size(), 1);
  for (size_t i = pods_.size(); i-- > 1;)
    if (pods_[i - 1] == pods_[i]) same_run_[i - 1] = same_run_[i] + 1;
  const auto node_count = static_cast<size_t>(cluster.node_count());
  if (node_stamp_.size() != node_count) {
    node_stamp_.assign(node_count, 0);
    node_pods_.assign(node_count, 0);
  }
  const size_t racks = std::max(cluster.topology().racks.size(), size_t{1});
  if (rack_stamp_.size() < racks) {
    rack_stamp_.resize(racks, 0);
    rack_pods_.resize(racks, 0);
  }
}

int GangState::remaining_like_next() const {
  const auto i = placements_.size();
  return i < same_run_.size() ? same_run_[i] : 0;
}

bool GangState::allows_type(GpuTypeId t) const {
  return std::find(gpu_types_.begin(), gpu_types_.end(), t) != gpu_types_.end();
}

void GangState::add(const Cluster& cluster, NodeId n, uint64_t gpu_mask) {
  assert(next() < pod_count());
  const Resources& request = pods_[placements_.size()];
  placements_.push_back(PodPlacement{n, gpu_mask});
  const auto i = static_cast<size_t>(n);
  if (node_stamp_[i] != gang_) {
    node_stamp_[i] = gang_;
    node_pods_[i] = 0;
    nodes_.push_back(n);
  }
  ++node_pods_[i];
  const RackId rack = cluster.rack_of(n);
  if (static_cast<size_t>(rack) >= rack_stamp_.size()) {
    rack_stamp_.resize(static_cast<size_t>(rack) + 1, 0);
    rack_pods_.resize(static_cast<size_t>(rack) + 1, 0);
  }
  const auto r = static_cast<size_t>(rack);
  if (rack_stamp_[r] != gang_) {
    rack_stamp_[r] = gang_;
    rack_pods_[r] = 0;
  }
  ++rack_pods_[r];
  if (request.gpus > 0 && !type_pinned_) {
    type_pinned_ = true;
    gpu_types_.assign(1, cluster.gpu_type_of(n));
  }
}

}  // namespace gantry
