#include "engine/policy/gpu_selection.hpp"

#include <algorithm>
#include <array>
#include <bit>

namespace gantry {

namespace {

constexpr int kMaxIslands = 64;

uint64_t low_bits(int n) { return n >= 64 ? ~0ull : ((1ull << n) - 1); }

// The `count` lowest set bits of mask (count <= popcount(mask)).
uint64_t lowest_bits(uint64_t mask, int count) {
  uint64_t chosen = 0;
  for (int k = 0; k < count; ++k) {
    const uint64_t bit = mask & (~mask + 1);
    chosen |= bit;
    mask &= ~bit;
  }
  return chosen;
}

struct Islands {
  int count = 0;
  int size = 0;
  std::array<uint64_t, kMaxIslands> free{};  // free GPUs of each island, as node-wide masks
};

Islands islands_of(const Cluster& cluster, NodeId n) {
  const NodeClass& c = cluster.node_class(n);
  const uint64_t free = cluster.free_gpu_mask(n);
  Islands is;
  if (c.island_size <= 0 || c.island_size >= c.capacity.gpus) {
    is.count = 1;
    is.size = c.capacity.gpus;
    is.free[0] = free;
    return is;
  }
  is.size = c.island_size;
  is.count = std::min(c.capacity.gpus / c.island_size, kMaxIslands);
  for (int i = 0; i < is.count; ++i)
    is.free[static_cast<size_t>(i)] = free & (low_bits(is.size) << (i * is.size));
  return is;
}

// Island indices by free GPUs, most first, ties to the lowest index. Insertion sort: nodes
// have a handful of islands, and this runs for every candidate node, so no allocation.
std::array<int, kMaxIslands> by_most_free(const Islands& is) {
  std::array<int, kMaxIslands> order{};
  std::array<int, kMaxIslands> count{};
  for (int i = 0; i < is.count; ++i) {
    const int c = std::popcount(is.free[static_cast<size_t>(i)]);
    int j = i;
    while (j > 0 && count[static_cast<size_t>(j - 1)] < c) {
      order[static_cast<size_t>(j)] = order[static_cast<size_t>(j - 1)];
      count[static_cast<size_t>(j)] = count[static_cast<size_t>(j - 1)];
      --j;
    }
    order[static_cast<size_t>(j)] = i;
    count[static_cast<size_t>(j)] = c;
  }
  return order;
}

// Best fit for `gpus` among islands not in `used`: fewest free that still fits; -1 if none.
int best_fit_island(const Islands& is, int gpus, uint64_t used) {
  int best = -1;
  int best_free = 0;
  for (int i = 0; i < is.count; ++i) {
    if ((used >> i) & 1) continue;
    const int f = std::popcount(is.free[static_cast<size_t>(i)]);
    if (f >= gpus && (best < 0 || f < best_free)) {
      best = i;
      best_free = f;
    }
  }
  return best;
}

}  // namespace

int islands_needed(const Cluster& cluster, NodeId n, int gpus) {
  if (gpus <= 0) return 0;
  if (cluster.free(n).gpus < gpus) return cluster.node_class(n).capacity.gpus + 1;
  const NodeClass& c = cluster.node_class(n);
  if (c.island_size <= 0 || c.island_size >= c.capacity.gpus) return 1;
  const Islands is = islands_of(cluster, n);
  const auto order = by_most_free(is);
  int have = 0;
  for (int j = 0; j < is.count; ++j) {
    have += std::popcount(is.free[static_cast<size_t>(order[static_cast<size_t>(j)])]);
    if (have >= gpus) return j + 1;
  }
  return cluster.node_class(n).capacity.gpus + 1;  // unreachable: free(n).gpus >= gpus
}

uint64_t island_best_fit_gpus(const Cluster& cluster, NodeId n, int gpus) {
  if (gpus <= 0) return 0;
  if (cluster.free(n).gpus < gpus) return 0;
  const Islands is = islands_of(cluster, n);
  if (const int one = best_fit_island(is, gpus, 0); one >= 0)
    return lowest_bits(is.free[static_cast<size_t>(one)], gpus);
  const auto order = by_most_free(is);
  uint64_t chosen = 0;
  uint64_t used = 0;
  int left = gpus;
  for (int j = 0; j < is.count && left > 0; ++j) {
    const int i = order[static_cast<size_t>(j)];
    const uint64_t f = is.free[static_cast<size_t>(i)];
    // Would the rest fit in one of the islands not taken yet? Then best-fit it and stop.
    if (const int last = best_fit_island(is, left, used); last >= 0) {
      chosen |= lowest_bits(is.free[static_cast<size_t>(last)], left);
      return chosen;
    }
    chosen |= f;
    used |= 1ull << i;
    left -= std::popcount(f);
  }
  return left <= 0 ? chosen : 0;
}

}  // namespace gantry
