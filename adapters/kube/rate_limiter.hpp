#pragma once
// The client-side QPS/burst limit (client-go's `QPS` and `Burst`), as a token bucket.
//
// The bucket holds up to `burst` tokens and refills at `qps` tokens per second; each request
// takes one. When none is left the request still takes one — the bucket goes into debt — and
// is told how long to wait before it is its turn, so concurrent callers are served in the order
// they reserved and the long-run rate never exceeds qps. Arithmetic is in integer microseconds:
// one token is worth interval = round(1e6 / qps) µs of credit, the bucket holds at most
// burst × interval, and credit grows by one µs per µs of clock time.
//
//   qps 5, burst 10 (interval 200 ms, capacity 2 s), full at t0:
//   reservations 1..10 at t0 wait 0; the 11th waits 200 ms, the 12th 400 ms.
//
// The clock is injected (a VirtualClock in tests). Thread-safety: reserve() locks; the clock
// must be safe to read from the calling threads (WallClock is; a VirtualClock only when the
// test is single-threaded).

#include <mutex>

#include "engine/core/clock.hpp"
#include "engine/core/time.hpp"

namespace gantry::kube {

class TokenBucket {
 public:
  // qps <= 0 means unlimited (reserve() always returns 0). burst < 1 counts as 1.
  // `clock` must outlive the bucket.
  TokenBucket(double qps, int burst, const Clock& clock);

  // Takes one token; returns how long the caller must wait before using it (0 if available).
  Duration reserve();

  Duration interval() const { return interval_; }

 private:
  const Clock& clock_;
  Duration interval_{0};  // constant after construction; 0 = unlimited
  Duration capacity_{0};  // constant after construction
  std::mutex mutex_;
  Duration credit_{0};  // guarded by mutex_; negative = debt
  Time last_;           // guarded by mutex_
};

}  // namespace gantry::kube
