#pragma once
// A sweep's runs split into shards, for workers that each take one (a Kubernetes Indexed Job's
// pods: shard k is the pod with JOB_COMPLETION_INDEX k). Runs are numbered point-major, run
// r = point × seeds + seed_index, the order a local sweep starts them in; a shard is a
// contiguous range of them, so a shard's points share their scenario and a retried shard
// repeats exactly the same runs.

#include <cstddef>
#include <utility>
#include <vector>

#include "sim/sweep/sweep_spec.hpp"

namespace gantry {

struct ShardRange {
  size_t begin = 0;  // first run index
  size_t end = 0;    // one past the last
};

// `runs` split into min(shards, runs) ranges in order, covering all of them; sizes differ by at
// most one, the first ones the larger. shards 0 is taken as 1; no runs give no shard.
std::vector<ShardRange> split_runs(size_t runs, size_t shards);

// The (point, seed_index) of run index `run` of `sweep`.
std::pair<size_t, int> run_at(const SweepSpec& sweep, size_t run);

}  // namespace gantry
