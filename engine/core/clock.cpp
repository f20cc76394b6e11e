#include "engine/core/clock.hpp"

#include <cassert>
#include <cmath>

namespace gantry {

Time system_now() {
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::system_clock::now().time_since_epoch());
  return Time::from_micros(us.count());
}

WallClock::WallClock() : WallClock(system_now(), 1.0) {}

WallClock::WallClock(Time start, double scale)
    : origin_(start), steady_origin_(std::chrono::steady_clock::now()), scale_(scale) {
  assert(scale > 0);
}

Time WallClock::now() const {
  const auto elapsed = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::steady_clock::now() - steady_origin_);
  return origin_ + Duration(static_cast<int64_t>(std::llround(elapsed.count() * scale_)));
}

std::optional<std::chrono::steady_clock::time_point> WallClock::wall_deadline(Time t) const {
  if (t == Time::max()) return std::chrono::steady_clock::time_point::max();
  const double wall_us = static_cast<double>((t - origin_).micros()) / scale_;
  // Far-future deadlines (years) must not overflow the steady clock's representation.
  if (wall_us > 1e15) return std::chrono::steady_clock::time_point::max();
  return steady_origin_ + std::chrono::microseconds(static_cast<int64_t>(std::ceil(wall_us)));
}

}  // namespace gantry
