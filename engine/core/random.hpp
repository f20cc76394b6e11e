#pragma once
// Named, seeded random streams (DESIGN.md rule 4, STYLE.md habit 7).
//
// Each stream's seed is derived from (master seed, stream name) by a fixed hash, so creating a
// new stream never shifts the draws of another, and the draws do not depend on the order in
// which streams are created. The engine is std::mt19937_64, whose output the C++ standard
// specifies exactly; the distributions below are written out (rather than std::*_distribution,
// whose algorithms are implementation-defined) so results are identical across standard
// libraries.

#include <cstdint>
#include <random>
#include <string_view>

namespace gantry {

class RandomStream {
 public:
  explicit RandomStream(uint64_t seed) : engine_(seed) {}

  uint64_t next_u64() { return engine_(); }
  // Uniform in [0, 1), 53 bits.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  // Uniform integer in [lo, hi] (inclusive), unbiased.
  int64_t uniform_int(int64_t lo, int64_t hi);
  // Exponential with the given mean (> 0).
  double exponential(double mean);
  // Standard normal (Box-Muller; one draw consumes two uniforms).
  double normal();
  // Log-normal with median m and 90th percentile p90 (p90 >= m > 0).
  double lognormal_median_p90(double median, double p90);
  // Index drawn with probability proportional to weights[i] (weights non-negative, sum > 0).
  template <typename Weights>
  size_t weighted_index(const Weights& weights) {
    double total = 0;
    for (double w : weights) total += w;
    double x = uniform() * total;
    size_t i = 0;
    for (double w : weights) {
      if (x < w) return i;
      x -= w;
      ++i;
    }
    return i - 1;  // rounding left x a hair above the last bucket
  }

 private:
  std::mt19937_64 engine_;
};

class RandomStreams {
 public:
  explicit RandomStreams(uint64_t seed) : seed_(seed) {}
  uint64_t seed() const { return seed_; }
  // A fresh stream for `name`; the same (seed, name) always gives the same sequence.
  RandomStream stream(std::string_view name) const;
  // The seed derived for `name` (exposed for tests and for logging).
  uint64_t derive(std::string_view name) const;

 private:
  uint64_t seed_;
};

}  // namespace gantry
