#include "engine/cluster/cluster.hpp"

#include <bit>
#include <cassert>

namespace gantry {

namespace {
uint64_t low_bits(int n) { return n >= 64 ? ~0ull : ((1ull << n) - 1); }
}  // namespace

Cluster::Cluster(Topology topology) : topology_(std::move(topology)) {
  const size_t n = topology_.nodes.size();
  free_.resize(n);
  free_mask_.resize(n);
  per_type_.resize(topology_.gpus.size());
  for (size_t i = 0; i < n; ++i) {
    const NodeClass& c = topology_.class_of(static_cast<NodeId>(i));
    assert(c.capacity.gpus <= 64 && "a node holds at most 64 GPUs");
    free_[i] = c.capacity;
    free_mask_[i] = low_bits(c.capacity.gpus);
    if (c.gpu_type < 0 || c.capacity.gpus == 0) continue;
    PerType& t = per_type_[static_cast<size_t>(c.gpu_type)];
    t.total += c.capacity.gpus;
    t.free += c.capacity.gpus;
    if (t.histogram.size() <= static_cast<size_t>(c.capacity.gpus))
      t.histogram.resize(static_cast<size_t>(c.capacity.gpus) + 1, 0);
    ++t.histogram[static_cast<size_t>(c.capacity.gpus)];
  }
  for (auto& t : per_type_)
    if (t.histogram.empty()) t.histogram.assign(1, 0);
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

void Cluster::allocate(NodeId n, const Resources& request, uint64_t gpu_mask) {
  const auto i = static_cast<size_t>(n);
  assert(request.fits_in(free_[i]));
  assert(std::popcount(gpu_mask) == request.gpus);
  assert((free_mask_[i] & gpu_mask) == gpu_mask && "GPUs must be free");
  const int before = free_[i].gpus;
  free_[i] -= request;
  free_mask_[i] &= ~gpu_mask;
  if (request.gpus != 0) move_in_histogram(n, before, free_[i].gpus);
}

void Cluster::release(NodeId n, const Resources& request, uint64_t gpu_mask) {
  const auto i = static_cast<size_t>(n);
  assert((free_mask_[i] & gpu_mask) == 0 && "GPUs released twice");
  const int before = free_[i].gpus;
  free_[i] += request;
  free_mask_[i] |= gpu_mask;
  assert(free_[i].gpus <= node_class(n).capacity.gpus);
  if (request.gpus != 0) move_in_histogram(n, before, free_[i].gpus);
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

}  // namespace gantry
