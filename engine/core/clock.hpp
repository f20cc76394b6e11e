#pragma once
// The pluggable clock behind the event loop (DESIGN.md rule 2).
//
// A VirtualClock reads whatever the loop last jumped it to: simulations run as fast as the CPU
// allows. A WallClock reads real time, optionally scaled (60 = one wall second shows a simulated
// minute), and tells the loop when, in steady-clock terms, a simulated instant will be reached,
// so the loop can sleep until then or until someone post()s work.

#include <chrono>
#include <optional>

#include "engine/core/time.hpp"

namespace gantry {

class Clock {
 public:
  virtual ~Clock() = default;

  virtual Time now() const = 0;

  // Virtual clocks move to `t` (never backwards); wall clocks ignore it.
  virtual void jump_to(Time t) = 0;

  // The steady-clock instant at which this clock reads `t`; nullopt for a virtual clock, which
  // the loop never waits on.
  virtual std::optional<std::chrono::steady_clock::time_point> wall_deadline(Time t) const = 0;
};

class VirtualClock final : public Clock {
 public:
  explicit VirtualClock(Time start) : now_(start) {}
  Time now() const override { return now_; }
  void jump_to(Time t) override {
    if (t > now_) now_ = t;
  }
  std::optional<std::chrono::steady_clock::time_point> wall_deadline(Time) const override {
    return std::nullopt;
  }

 private:
  Time now_;
};

// The system clock's current instant (UTC, microseconds): when something happened in the real
// world, for records such as "created" times.
Time system_now();

class WallClock final : public Clock {
 public:
  // Reads real UTC, unscaled.
  WallClock();
  // Reads `start` now, then advances `scale` simulated seconds per wall second (scale > 0).
  WallClock(Time start, double scale);

  Time now() const override;
  void jump_to(Time) override {}
  std::optional<std::chrono::steady_clock::time_point> wall_deadline(Time t) const override;

 private:
  Time origin_;
  std::chrono::steady_clock::time_point steady_origin_;
  double scale_;
};

}  // namespace gantry
