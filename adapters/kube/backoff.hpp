#pragma once
// Jittered exponential backoff for reconnecting watches (client-go's wait.Backoff shape).
//
// The n-th delay (n from 0) is base_n + u·jitter·base_n, with base_n = min(max, initial·factorⁿ)
// and u uniform in [0, 1) from a named, seeded RandomStream, so a test that fixes the seed
// knows every delay. reset() after a success starts again from `initial`.
//
//   initial 1 s, factor 2, max 8 s, jitter 0: 1 s, 2 s, 4 s, 8 s, 8 s, ...
//
// Thread-safety: none; one Backoff per reconnect loop.

#include <cstdint>

#include "engine/core/random.hpp"
#include "engine/core/time.hpp"

namespace gantry::kube {

struct BackoffPolicy {
  Duration initial = milliseconds(800);  // client-go's reflector uses 800 ms ...
  Duration max = seconds(30);            // ... up to 30 s
  double factor = 2.0;                   // >= 1
  double jitter = 1.0;                   // >= 0; 1.0 = up to twice the base
};

class Backoff {
 public:
  Backoff(BackoffPolicy policy, RandomStream random);
  Duration next();
  void reset() { base_ = policy_.initial; }

 private:
  BackoffPolicy policy_;
  RandomStream random_;
  Duration base_;
};

}  // namespace gantry::kube
