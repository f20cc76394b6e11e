#include "engine/core/random.hpp"

#include <cassert>
#include <cmath>

namespace gantry {

namespace {
// SplitMix64 finaliser: a bijective mixer, so distinct inputs give distinct seeds.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
// FNV-1a, 64 bit: a fixed, platform-independent string hash (std::hash is not).
uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}
}  // namespace

int64_t RandomStream::uniform_int(int64_t lo, int64_t hi) {
  assert(lo <= hi);
  const uint64_t range = static_cast<uint64_t>(hi - lo) + 1;
  if (range == 0) return static_cast<int64_t>(engine_());  // the full 64-bit range
  // Rejection sampling on the largest multiple of `range`: unbiased.
  const uint64_t limit = UINT64_MAX - UINT64_MAX % range;
  uint64_t x;
  do {
    x = engine_();
  } while (x >= limit);
  return lo + static_cast<int64_t>(x % range);
}

double RandomStream::exponential(double mean) {
  assert(mean > 0);
  return -mean * std::log1p(-uniform());
}

double RandomStream::normal() {
  const double u1 = 1.0 - uniform();  // (0, 1]
  const double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

double RandomStream::lognormal_median_p90(double median, double p90) {
  assert(median > 0 && p90 >= median);
  constexpr double kZ90 = 1.2815515655446004;  // standard normal 90th percentile
  const double sigma = std::log(p90 / median) / kZ90;
  return median * std::exp(sigma * normal());
}

uint64_t RandomStreams::derive(std::string_view name) const {
  return mix(mix(seed_) ^ fnv1a(name));
}

RandomStream RandomStreams::stream(std::string_view name) const {
  return RandomStream(derive(name));
}

}  // namespace gantry
