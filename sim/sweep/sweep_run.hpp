#pragma once
// One finished run of a sweep: a point, one of its seeds, the metrics' values.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gantry {

struct SweepRunResult {
  size_t point = 0;             // index into SweepSpec::points
  int seed_index = 0;           // 0 .. seeds - 1
  uint64_t seed = 0;            // the base's seed + seed_index
  uint64_t fingerprint = 0;     // the run's trajectory fingerprint (sim/summary.hpp)
  std::vector<double> metrics;  // SweepSpec::metrics' values, in order; NaN: none
};

}  // namespace gantry
