#include "engine/cluster/cluster.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cassert>

namespace gantry {

namespace {
uint64_t low_bits(int n) { return n >= 64 ? ~0ull : ((1ull << n) - 1); }
std::atomic<uint64_t> next_instance{1};
}  // namespace

Cluster::InstanceId::InstanceId() : value(next_instance.fetch_add(1, std::memory_order_relaxed)) {}

Cluster::Cluster(Topology topology) : topology_(std::move(topology)) {
  const size_t n = topology_.nodes.size();
  free_.resize(n);
  free_mask_.resize(n);
  partial_mask_.assign(n, 0);
  gpu_base_.assign(n + 1, 0);
  node_free_milli_.assign(n, 0);
  version_.assign(n, 0);
  requests_.resize(n);
  per_type_.resize(topology_.gpus.size());
  for (size_t i = 0; i < n; ++i) {
    const NodeClass& c = topology_.class_of(static_cast<NodeId>(i));
    assert(c.capacity.gpus <= 64 && "a node holds at most 64 GPUs");
    assert(c.capacity.gpu_milli == 0 && "capacities count whole GPUs only");
    free_[i] = c.capacity;
    free_mask_[i] = low_bits(c.capacity.gpus);
    gpu_base_[i + 1] = gpu_base_[i] + c.capacity.gpus;
    node_free_milli_[i] = int64_t{c.capacity.gpus} * kMilliPerGpu;
    total_milli_ += node_free_milli_[i];
    if (c.gpu_type < 0 || c.capacity.gpus == 0) continue;
    PerType& t = per_type_[static_cast<size_t>(c.gpu_type)];
    t.total += c.capacity.gpus;
    t.free += c.capacity.gpus;
    if (t.histogram.size() <= static_cast<size_t>(c.capacity.gpus))
      t.histogram.resize(static_cast<size_t>(c.capacity.gpus) + 1, 0);
    ++t.histogram[static_cast<size_t>(c.capacity.gpus)];
  }
  free_milli_ = total_milli_;
  gpu_milli_.assign(static_cast<size_t>(gpu_base_[n]), static_cast<uint16_t>(kMilliPerGpu));
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

void Cluster::allocate(NodeId n, const Resources& request, uint64_t gpu_mask) {
  const auto i = static_cast<size_t>(n);
  assert(!(request.gpus > 0 && request.gpu_milli > 0) && "whole GPUs or a share, not both");
  assert(request.fits_in(free_[i]));
  Resources& free = free_[i];
  free.cpu_milli -= request.cpu_milli;
  free.memory_bytes -= request.memory_bytes;
  ++version_[i];
  ++change_count_;
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

void Cluster::release(NodeId n, const Resources& request, uint64_t gpu_mask) {
  const auto i = static_cast<size_t>(n);
  Resources& free = free_[i];
  free.cpu_milli += request.cpu_milli;
  free.memory_bytes += request.memory_bytes;
  ++version_[i];
  ++change_count_;
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
