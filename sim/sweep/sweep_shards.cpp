#include "sim/sweep/sweep_shards.hpp"

#include <algorithm>

namespace gantry {

std::vector<ShardRange> split_runs(size_t runs, size_t shards) {
  std::vector<ShardRange> out;
  if (runs == 0) return out;
  shards = std::clamp<size_t>(shards, 1, runs);
  const size_t base = runs / shards, larger = runs % shards;
  size_t at = 0;
  for (size_t k = 0; k < shards; ++k) {
    const size_t size = base + (k < larger ? 1 : 0);
    out.push_back({at, at + size});
    at += size;
  }
  return out;
}

std::pair<size_t, int> run_at(const SweepSpec& sweep, size_t run) {
  const size_t seeds = static_cast<size_t>(sweep.seeds);
  return {run / seeds, static_cast<int>(run % seeds)};
}

}  // namespace gantry
