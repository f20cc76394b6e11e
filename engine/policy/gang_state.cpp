#include "engine/policy/gang_state.hpp"

#include <algorithm>
#include <cassert>

namespace gantry {

void GangState::begin(const Cluster& cluster, std::vector<Resources> pods,
                      std::vector<GpuTypeId> gpu_types) {
  ++gang_;
  node_selector_ = nullptr;
  tolerations_ = nullptr;
  pods_ = std::move(pods);
  gpu_types_ = std::move(gpu_types);
  type_pinned_ = false;
  placements_.assign(pods_.size(), PodPlacement{});
  placed_.clear();
  nodes_.clear();
  order_.resize(pods_.size());
  for (size_t i = 0; i < pods_.size(); ++i) order_[i] = static_cast<int>(i);
  std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) {
    if (pod(a).gpus != pod(b).gpus) return pod(a).gpus > pod(b).gpus;
    return pod(a).gpu_milli > pod(b).gpu_milli;
  });
  same_run_.assign(pods_.size(), 1);
  for (size_t j = pods_.size(); j-- > 1;)
    if (pod(order_[j - 1]) == pod(order_[j])) same_run_[j - 1] = same_run_[j] + 1;
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

int GangState::remaining_like_current() const {
  const auto j = placed_.size();
  return j < same_run_.size() ? same_run_[j] : 0;
}

bool GangState::allows_type(GpuTypeId t) const {
  return std::find(gpu_types_.begin(), gpu_types_.end(), t) != gpu_types_.end();
}

void GangState::count_on(const Cluster& cluster, NodeId n) {
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
}

void GangState::add_existing(const Cluster& cluster, NodeId n, uint64_t gpu_mask) {
  count_on(cluster, n);
  if (gpu_mask != 0 && !type_pinned_) {
    type_pinned_ = true;
    gpu_types_.assign(1, cluster.gpu_type_of(n));
  }
}

void GangState::add(const Cluster& cluster, NodeId n, uint64_t gpu_mask) {
  assert(!complete());
  const int index = current();
  const Resources& request = pod(index);
  placements_[static_cast<size_t>(index)] = PodPlacement{n, gpu_mask};
  placed_.push_back(index);
  count_on(cluster, n);
  if (request.needs_gpu() && !type_pinned_) {
    type_pinned_ = true;
    gpu_types_.assign(1, cluster.gpu_type_of(n));
  }
}

}  // namespace gantry
