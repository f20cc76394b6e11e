#include "engine/cluster/cluster.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cassert>
#include <string>

namespace gantry {

namespace {
uint64_t low_bits(int n) { return n >= 64 ? ~0ull : ((1ull << n) - 1); }
std::atomic<uint64_t> next_instance{1};
}  // namespace

Cluster::InstanceId::InstanceId() : value(next_instance.fetch_add(1, std::memory_order_relaxed)) {}

Cluster::Cluster(Topology topology) : topology_(std::move(topology)) {
  per_type_.resize(topology_.gpus.size());
  for (auto& t : per_type_) t.histogram.assign(1, 0);
  gpu_base_.assign(1, 0);
  for (const NodeInfo& node : topology_.nodes)
    append_node(topology_.classes[static_cast<size_t>(node.node_class)]);
}

void Cluster::append_node(const NodeClass& c) {
  assert(c.capacity.gpus <= 64 && "a node holds at most 64 GPUs");
  assert(c.capacity.gpu_milli == 0 && "capacities count whole GPUs only");
  free_.push_back(c.capacity);
  free_mask_.push_back(low_bits(c.capacity.gpus));
  partial_mask_.push_back(0);
  gpu_base_.push_back(gpu_base_.back() + c.capacity.gpus);
  gpu_milli_.resize(static_cast<size_t>(gpu_base_.back()), static_cast<uint16_t>(kMilliPerGpu));
  node_free_milli_.push_back(int64_t{c.capacity.gpus} * kMilliPerGpu);
  version_.push_back(0);
  requests_.emplace_back();
  // The node's NodeInfo is already in topology_.nodes, at the index this node gets.
  state_.push_back(NodeState{.tainted = !topology_.nodes[state_.size()].taints.empty()});
  owners_on_.emplace_back();
  total_milli_ += node_free_milli_.back();
  free_milli_ += node_free_milli_.back();
  if (c.gpu_type < 0 || c.capacity.gpus == 0) return;
  PerType& t = per_type_[static_cast<size_t>(c.gpu_type)];
  t.total += c.capacity.gpus;
  t.free += c.capacity.gpus;
  if (t.histogram.size() <= static_cast<size_t>(c.capacity.gpus))
    t.histogram.resize(static_cast<size_t>(c.capacity.gpus) + 1, 0);
  ++t.histogram[static_cast<size_t>(c.capacity.gpus)];
}

int Cluster::total_gpus() const {
  int sum = 0;
  for (const auto& t : per_type_) sum += t.total;
  return sum;
}

int Cluster::free_gpus() const {
  int sum = 0;
  for (const auto& t : per_type_) sum += t.free;
  return sum;
}

void Cluster::move_in_histogram(NodeId n, int from_free, int to_free) {
  const GpuTypeId type = gpu_type_of(n);
  if (type < 0) return;
  PerType& t = per_type_[static_cast<size_t>(type)];
  --t.histogram[static_cast<size_t>(from_free)];
  ++t.histogram[static_cast<size_t>(to_free)];
  t.free += to_free - from_free;
}

void Cluster::refresh_largest_share(size_t i) {
  int best = 0;
  const uint16_t* milli = gpu_milli_.data() + gpu_base_[i];
  for (uint64_t bits = partial_mask_[i]; bits != 0; bits &= bits - 1)
    best = std::max(best, int{milli[std::countr_zero(bits)]});
  free_[i].gpu_milli = best;
}

void Cluster::count_request(size_t i, const Resources& request, int delta) {
  auto& list = requests_[i];
  for (size_t k = 0; k < list.size(); ++k) {
    if (list[k].gpus != request.gpus || list[k].gpu_milli != request.gpu_milli) continue;
    list[k].pods += delta;
    assert(list[k].pods >= 0 && "released a GPU request that was never allocated");
    if (list[k].pods == 0) {
      list[k] = list.back();
      list.pop_back();
    }
    return;
  }
  assert(delta > 0 && "released a GPU request that was never allocated");
  list.push_back(GpuRequestCount{request.gpus, request.gpu_milli, delta});
}

std::string Cluster::why_not(NodeId n, const Resources& request, uint64_t gpu_mask) const {
  if (n < 0 || n >= node_count()) return "no node " + std::to_string(n);
  const auto i = static_cast<size_t>(n);
  if (state_[i].removed) return "node " + node_info(n).name + " was removed";
  if (request.cpu_milli < 0 || request.memory_bytes < 0 || request.gpus < 0 ||
      request.gpu_milli < 0)
    return "a negative request";
  if (request.gpus > 0 && request.gpu_milli > 0) return "whole GPUs and a share in one request";
  if (request.gpu_milli >= kMilliPerGpu) return "a share must be 1..999 milli-GPU";
  const Resources& free = free_[i];
  const std::string where = " on node " + node_info(n).name;
  if (request.cpu_milli > free.cpu_milli)
    return "CPU " + std::to_string(request.cpu_milli) + "m does not fit" + where + " (" +
           std::to_string(free.cpu_milli) + "m free)";
  if (request.memory_bytes > free.memory_bytes) return "memory does not fit" + where;
  const uint64_t all = gpu_count(n) >= 64 ? ~0ull : ((1ull << gpu_count(n)) - 1);
  if ((gpu_mask & ~all) != 0) return "GPU mask names GPUs the node does not have" + where;
  if (request.gpu_milli > 0) {
    if (std::popcount(gpu_mask) != 1) return "a share takes exactly one GPU";
    const int g = std::countr_zero(gpu_mask);
    const int left = gpu_free_milli(n, g);
    if (left < request.gpu_milli)
      return "GPU " + std::to_string(g) + where + " has " + std::to_string(left) + " milli free, " +
             std::to_string(request.gpu_milli) + " asked";
    return {};
  }
  if (std::popcount(gpu_mask) != request.gpus) return "the GPU mask does not match the GPU count";
  if ((free_mask_[i] & gpu_mask) != gpu_mask) return "GPUs not fully free" + where;
  return {};
}

Status Cluster::allocate(NodeId n, const Resources& request, uint64_t gpu_mask,
                         AllocationOwner owner) {
  if (allocations_.count(key_of(owner)) != 0)
    return Status::error("workload " + std::to_string(owner.workload) + " pod " +
                         std::to_string(owner.pod) + " already holds an allocation");
  if (std::string why = why_not(n, request, gpu_mask); !why.empty()) return Status::error(why);
  take(n, request, gpu_mask);
  allocations_.emplace(key_of(owner), Allocation{owner, n, request, gpu_mask});
  owners_on_[static_cast<size_t>(n)].push_back(owner);
  return Status::ok();
}

Status Cluster::release(AllocationOwner owner) {
  const auto it = allocations_.find(key_of(owner));
  if (it == allocations_.end())
    return Status::error("workload " + std::to_string(owner.workload) + " pod " +
                         std::to_string(owner.pod) + " holds no allocation");
  const Allocation a = it->second;
  allocations_.erase(it);
  auto& owners = owners_on_[static_cast<size_t>(a.node)];
  const auto pos = std::find(owners.begin(), owners.end(), owner);
  *pos = owners.back();
  owners.pop_back();
  give_back(a.node, a.request, a.gpu_mask);
  return Status::ok();
}

const Allocation* Cluster::allocation_of(AllocationOwner owner) const {
  const auto it = allocations_.find(key_of(owner));
  return it == allocations_.end() ? nullptr : &it->second;
}

void Cluster::touch(NodeId n) {
  ++version_[static_cast<size_t>(n)];
  log_change(n);
}

Result<NodeId> Cluster::add_node(NodeInfo info) {
  if (info.node_class < 0 || static_cast<size_t>(info.node_class) >= topology_.classes.size())
    return Status::error("node " + info.name + ": no node class " +
                         std::to_string(info.node_class));
  const NodeClass& c = topology_.classes[static_cast<size_t>(info.node_class)];
  if (c.capacity.gpus > 64) return Status::error("node " + info.name + ": more than 64 GPUs");
  // A topology without racks has one implicit rack 0 (racks are optional in tests).
  if (info.rack < 0 || (info.rack > 0 && static_cast<size_t>(info.rack) >= topology_.racks.size()))
    return Status::error("node " + info.name + ": no rack " + std::to_string(info.rack));
  if (c.gpu_type >= static_cast<GpuTypeId>(per_type_.size()))
    return Status::error("node " + info.name + ": unknown GPU type");
  const auto n = static_cast<NodeId>(topology_.nodes.size());
  topology_.nodes.push_back(std::move(info));
  append_node(c);
  log_change(n);
  ++growth_count_;
  return n;
}

Result<int32_t> Cluster::add_node_class(NodeClass c) {
  if (c.capacity.gpus < 0 || c.capacity.gpus > 64)
    return Status::error("node class " + c.name + ": 0 to 64 GPUs");
  if (c.capacity.gpu_milli != 0)
    return Status::error("node class " + c.name + ": capacity counts whole GPUs");
  if (c.gpu_type >= static_cast<GpuTypeId>(topology_.gpus.size()) ||
      (c.gpu_type < 0 && c.capacity.gpus > 0))
    return Status::error("node class " + c.name + ": unknown GPU type");
  if (c.island_size > 0 && c.capacity.gpus % c.island_size != 0)
    return Status::error("node class " + c.name + ": islands must divide the GPUs");
  topology_.classes.push_back(std::move(c));
  return static_cast<int32_t>(topology_.classes.size() - 1);
}

GpuTypeId Cluster::add_gpu_type(GpuType type) {
  if (const GpuTypeId known = topology_.gpus.find(type.name); known >= 0) return known;
  const GpuTypeId id = topology_.gpus.add(std::move(type));
  per_type_.resize(topology_.gpus.size());
  per_type_.back().histogram.assign(1, 0);
  return id;
}

RackId Cluster::add_rack(const std::string& name) {
  for (size_t i = 0; i < topology_.racks.size(); ++i)
    if (topology_.racks[i] == name) return static_cast<RackId>(i);
  topology_.racks.push_back(name);
  return static_cast<RackId>(topology_.racks.size() - 1);
}

Status Cluster::remove_node(NodeId n) {
  if (n < 0 || n >= node_count()) return Status::error("no node " + std::to_string(n));
  const auto i = static_cast<size_t>(n);
  if (state_[i].removed) return Status::ok();
  if (!owners_on_[i].empty())
    return Status::error("node " + node_info(n).name + " still holds " +
                         std::to_string(owners_on_[i].size()) + " allocation(s)");
  // Empty, so free == capacity: take all of it out of the counters.
  const int gpus = gpu_count(n);
  if (gpu_type_of(n) >= 0 && gpus > 0) {
    PerType& t = per_type_[static_cast<size_t>(gpu_type_of(n))];
    --t.histogram[static_cast<size_t>(gpus)];
    t.total -= gpus;
    t.free -= gpus;
  }
  total_milli_ -= node_free_milli_[i];
  free_milli_ -= node_free_milli_[i];
  node_free_milli_[i] = 0;
  for (int g = 0; g < gpus; ++g) gpu_milli_[static_cast<size_t>(gpu_base_[i] + g)] = 0;
  free_[i] = Resources{};
  free_mask_[i] = 0;
  partial_mask_[i] = 0;
  state_[i].removed = true;
  touch(n);
  return Status::ok();
}

void Cluster::set_cordoned(NodeId n, bool cordoned) {
  state_[static_cast<size_t>(n)].cordoned = cordoned;
  if (!cordoned) ++growth_count_;
  touch(n);
}

void Cluster::set_ready(NodeId n, bool ready) {
  state_[static_cast<size_t>(n)].ready = ready;
  if (ready) ++growth_count_;
  touch(n);
}

void Cluster::set_labels(NodeId n, Labels labels) {
  topology_.nodes[static_cast<size_t>(n)].labels = std::move(labels);
  ++growth_count_;  // a label may let a selector in
  touch(n);
}

void Cluster::set_taints(NodeId n, std::vector<Taint> taints) {
  topology_.nodes[static_cast<size_t>(n)].taints = std::move(taints);
  state_[static_cast<size_t>(n)].tainted = !topology_.nodes[static_cast<size_t>(n)].taints.empty();
  touch(n);
}

void Cluster::take(NodeId n, const Resources& request, uint64_t gpu_mask) {
  const auto i = static_cast<size_t>(n);
  assert(!(request.gpus > 0 && request.gpu_milli > 0) && "whole GPUs or a share, not both");
  assert(request.fits_in(free_[i]));
  Resources& free = free_[i];
  free.cpu_milli -= request.cpu_milli;
  free.memory_bytes -= request.memory_bytes;
  ++version_[i];
  log_change(n);
  if (request.gpu_milli > 0) {
    assert(request.gpu_milli < kMilliPerGpu && "a share is 1..999 milli");
    assert(std::popcount(gpu_mask) == 1 && "a share takes exactly one GPU");
    const int g = std::countr_zero(gpu_mask);
    assert(g < gpu_count(n));
    uint16_t& milli = gpu_milli_[static_cast<size_t>(gpu_base_[i] + g)];
    assert(milli >= request.gpu_milli && "the GPU has too little free milli");
    if (milli == kMilliPerGpu) {
      free_mask_[i] &= ~gpu_mask;
      --free.gpus;
      move_in_histogram(n, free.gpus + 1, free.gpus);
    }
    milli = static_cast<uint16_t>(milli - request.gpu_milli);
    if (milli > 0) {
      partial_mask_[i] |= gpu_mask;
    } else {
      partial_mask_[i] &= ~gpu_mask;
    }
    node_free_milli_[i] -= request.gpu_milli;
    free_milli_ -= request.gpu_milli;
    refresh_largest_share(i);
    count_request(i, request, +1);
    return;
  }
  assert(std::popcount(gpu_mask) == request.gpus);
  assert((free_mask_[i] & gpu_mask) == gpu_mask && "GPUs must be fully free");
  if (request.gpus == 0) return;
  const int before = free.gpus;
  free.gpus -= request.gpus;
  free_mask_[i] &= ~gpu_mask;
  uint16_t* milli = gpu_milli_.data() + gpu_base_[i];
  for (uint64_t bits = gpu_mask; bits != 0; bits &= bits - 1) milli[std::countr_zero(bits)] = 0;
  const int64_t taken = int64_t{request.gpus} * kMilliPerGpu;
  node_free_milli_[i] -= taken;
  free_milli_ -= taken;
  move_in_histogram(n, before, free.gpus);
  count_request(i, request, +1);
}

void Cluster::give_back(NodeId n, const Resources& request, uint64_t gpu_mask) {
  const auto i = static_cast<size_t>(n);
  Resources& free = free_[i];
  free.cpu_milli += request.cpu_milli;
  free.memory_bytes += request.memory_bytes;
  ++version_[i];
  log_change(n);
  ++growth_count_;
  if (request.gpu_milli > 0) {
    assert(std::popcount(gpu_mask) == 1 && "a share takes exactly one GPU");
    const int g = std::countr_zero(gpu_mask);
    uint16_t& milli = gpu_milli_[static_cast<size_t>(gpu_base_[i] + g)];
    assert(milli + request.gpu_milli <= kMilliPerGpu && "share released twice");
    milli = static_cast<uint16_t>(milli + request.gpu_milli);
    if (milli == kMilliPerGpu) {
      partial_mask_[i] &= ~gpu_mask;
      free_mask_[i] |= gpu_mask;
      ++free.gpus;
      move_in_histogram(n, free.gpus - 1, free.gpus);
    } else {
      partial_mask_[i] |= gpu_mask;
    }
    node_free_milli_[i] += request.gpu_milli;
    free_milli_ += request.gpu_milli;
    refresh_largest_share(i);
    count_request(i, request, -1);
    return;
  }
  assert((free_mask_[i] & gpu_mask) == 0 && "GPUs released twice");
  assert(std::popcount(gpu_mask) == request.gpus);
  if (request.gpus == 0) return;
  const int before = free.gpus;
  free.gpus += request.gpus;
  free_mask_[i] |= gpu_mask;
  assert(free.gpus <= node_class(n).capacity.gpus);
  uint16_t* milli = gpu_milli_.data() + gpu_base_[i];
  for (uint64_t bits = gpu_mask; bits != 0; bits &= bits - 1) {
    assert(milli[std::countr_zero(bits)] == 0 && "whole GPUs released while shared");
    milli[std::countr_zero(bits)] = static_cast<uint16_t>(kMilliPerGpu);
  }
  const int64_t given = int64_t{request.gpus} * kMilliPerGpu;
  node_free_milli_[i] += given;
  free_milli_ += given;
  move_in_histogram(n, before, free.gpus);
  count_request(i, request, -1);
}

uint64_t Cluster::lowest_free_gpus(NodeId n, int count) const {
  uint64_t mask = free_mask_[static_cast<size_t>(n)];
  if (std::popcount(mask) < count) return 0;
  uint64_t chosen = 0;
  for (int k = 0; k < count; ++k) {
    const uint64_t bit = mask & (~mask + 1);  // lowest set bit
    chosen |= bit;
    mask &= ~bit;
  }
  return chosen;
}

int Cluster::best_fit_share_gpu(NodeId n, int milli) const {
  const auto i = static_cast<size_t>(n);
  const uint16_t* free = gpu_milli_.data() + gpu_base_[i];
  int best = -1;
  int best_free = kMilliPerGpu + 1;
  for (uint64_t bits = partial_mask_[i]; bits != 0; bits &= bits - 1) {
    const int g = std::countr_zero(bits);
    if (free[g] >= milli && (free[g] < best_free || (free[g] == best_free && g < best))) {
      best = g;
      best_free = free[g];
    }
  }
  if (best >= 0) return best;
  const uint64_t whole = free_mask_[i];
  return whole != 0 && milli <= kMilliPerGpu ? std::countr_zero(whole) : -1;
}

int Cluster::pods_with_gpu_request(NodeId n, int gpus, int gpu_milli) const {
  for (const GpuRequestCount& r : requests_[static_cast<size_t>(n)])
    if (r.gpus == gpus && r.gpu_milli == gpu_milli) return r.pods;
  return 0;
}

}  // namespace gantry
