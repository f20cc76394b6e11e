// Cluster::check_invariants(): every derived value recomputed from capacity and allocations.
// Kept apart from cluster.cpp because it is a second, deliberately naive implementation of the
// same bookkeeping, the reference the incremental one is checked against.

#include <algorithm>
#include <bit>
#include <map>
#include <string>
#include <utility>

#include "engine/cluster/cluster.hpp"

namespace gantry {

namespace {

std::string node_name(const Cluster& c, NodeId n) {
  return "node " + c.node_info(n).name + " (" + std::to_string(n) + ")";
}

}  // namespace

Status Cluster::check_invariants() const {
  const auto nodes = static_cast<size_t>(node_count());
  // Per node, what the allocations add up to.
  std::vector<Resources> used(nodes);
  std::vector<std::vector<int>> gpu_used(nodes);
  std::vector<std::map<std::pair<int32_t, int32_t>, int32_t>> requests(nodes);
  std::vector<size_t> owners(nodes, 0);
  for (size_t i = 0; i < nodes; ++i)
    gpu_used[i].assign(static_cast<size_t>(gpu_count(static_cast<NodeId>(i))), 0);
  for (const auto& [key, a] : allocations_) {
    if (key != key_of(a.owner)) return Status::error("an allocation is filed under another owner");
    if (a.node < 0 || static_cast<size_t>(a.node) >= nodes)
      return Status::error("an allocation on no node");
    const auto i = static_cast<size_t>(a.node);
    if (state_[i].removed)
      return Status::error(node_name(*this, a.node) + " is removed but holds an allocation");
    used[i] += a.request;
    for (uint64_t bits = a.gpu_mask; bits != 0; bits &= bits - 1) {
      const auto g = static_cast<size_t>(std::countr_zero(bits));
      if (g >= gpu_used[i].size())
        return Status::error(node_name(*this, a.node) + ": an allocation names a GPU it lacks");
      gpu_used[i][g] += a.request.gpu_milli > 0 ? a.request.gpu_milli : kMilliPerGpu;
    }
    if (a.request.gpus > 0 || a.request.gpu_milli > 0)
      ++requests[i][{a.request.gpus, a.request.gpu_milli}];
    ++owners[i];
  }
  int64_t total = 0, free_total = 0;
  std::vector<PerType> types(per_type_.size());
  for (auto& t : types) t.histogram.assign(1, 0);
  for (size_t i = 0; i < nodes; ++i) {
    const auto n = static_cast<NodeId>(i);
    const std::string name = node_name(*this, n);
    const Resources cap = state_[i].removed ? Resources{} : node_class(n).capacity;
    if (free_[i].cpu_milli != cap.cpu_milli - used[i].cpu_milli)
      return Status::error(name + ": free CPU is not capacity minus allocations");
    if (free_[i].memory_bytes != cap.memory_bytes - used[i].memory_bytes)
      return Status::error(name + ": free memory is not capacity minus allocations");
    if (free_[i].cpu_milli < 0 || free_[i].memory_bytes < 0)
      return Status::error(name + ": negative free resources");
    uint64_t full = 0, partial = 0;
    int largest = 0;
    int64_t sum = 0;
    for (size_t g = 0; g < gpu_used[i].size(); ++g) {
      const int expect = state_[i].removed ? 0 : kMilliPerGpu - gpu_used[i][g];
      const int have = gpu_free_milli(n, static_cast<int>(g));
      if (expect < 0)
        return Status::error(name + ": GPU " + std::to_string(g) + " is over-allocated");
      if (have != expect)
        return Status::error(name + ": GPU " + std::to_string(g) + " free milli is " +
                             std::to_string(have) + ", allocations say " + std::to_string(expect));
      sum += have;
      if (have == kMilliPerGpu) full |= 1ull << g;
      if (have > 0 && have < kMilliPerGpu) {
        partial |= 1ull << g;
        largest = std::max(largest, have);
      }
    }
    if (free_mask_[i] != full) return Status::error(name + ": fully-free GPU mask is stale");
    if (partial_mask_[i] != partial) return Status::error(name + ": partly-used GPU mask is stale");
    if (free_[i].gpus != std::popcount(full))
      return Status::error(name + ": free GPU count is stale");
    if (free_[i].gpu_milli != largest) return Status::error(name + ": largest free share is stale");
    if (node_free_milli_[i] != sum) return Status::error(name + ": free milli sum is stale");
    total += state_[i].removed ? 0 : int64_t{cap.gpus} * kMilliPerGpu;
    free_total += sum;
    if (owners_on_[i].size() != owners[i])
      return Status::error(name + ": owner list does not match its allocations");
    for (const AllocationOwner& o : owners_on_[i]) {
      const Allocation* a = allocation_of(o);
      if (a == nullptr || a->node != n)
        return Status::error(name + ": owner list names an allocation elsewhere");
    }
    std::map<std::pair<int32_t, int32_t>, int32_t> counted;
    for (const GpuRequestCount& r : requests_[i]) counted[{r.gpus, r.gpu_milli}] += r.pods;
    if (counted != requests[i]) return Status::error(name + ": GPU request counts are stale");
    const GpuTypeId t = gpu_type_of(n);
    if (t >= 0 && cap.gpus > 0) {
      PerType& pt = types[static_cast<size_t>(t)];
      pt.total += cap.gpus;
      pt.free += std::popcount(full);
      const auto k = static_cast<size_t>(std::popcount(full));
      if (pt.histogram.size() <= static_cast<size_t>(cap.gpus))
        pt.histogram.resize(static_cast<size_t>(cap.gpus) + 1, 0);
      ++pt.histogram[k];
    }
  }
  if (total != total_milli_ || free_total != free_milli_)
    return Status::error("cluster GPU milli totals are stale");
  for (size_t t = 0; t < types.size(); ++t) {
    if (types[t].total != per_type_[t].total || types[t].free != per_type_[t].free)
      return Status::error("GPU type " + std::to_string(t) + ": GPU counters are stale");
    // The kept histogram may be longer (a removed node's size stays); compare the counts.
    std::vector<int> kept = per_type_[t].histogram;
    kept.resize(std::max(kept.size(), types[t].histogram.size()), 0);
    types[t].histogram.resize(kept.size(), 0);
    if (kept != types[t].histogram)
      return Status::error("GPU type " + std::to_string(t) + ": free-GPU histogram is stale");
  }
  return Status::ok();
}

}  // namespace gantry
