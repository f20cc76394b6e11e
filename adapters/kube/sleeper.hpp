#pragma once
// Waiting, behind an interface so tests never sleep (STYLE.md habit 8).
//
// The client waits before a request when its QPS budget is spent and after a 429/503 with
// Retry-After; informers wait between reconnects; the leader elector between renewals. All of
// them wait through a Sleeper. The real one (InterruptibleSleeper) blocks on a condition
// variable so that interrupt() (from stop(), on another thread) ends every wait at once. Tests
// pass a fake that records the requested durations and returns immediately (and may advance a
// VirtualClock).
//
// Thread-safety: InterruptibleSleeper may be used from several threads at once; interrupt()
// and reset() may be called from any thread.

#include <condition_variable>
#include <mutex>

#include "engine/core/time.hpp"

namespace gantry::kube {

class Sleeper {
 public:
  virtual ~Sleeper() = default;
  // Waits `d` (returns at once for d <= 0). True when the wait ran its course, false when it
  // was interrupted — then the caller should give up what it was doing.
  virtual bool sleep_for(Duration d) = 0;
  // Ends every current and future wait with false, until reset().
  virtual void interrupt() = 0;
  virtual void reset() = 0;
};

class InterruptibleSleeper final : public Sleeper {
 public:
  bool sleep_for(Duration d) override;
  void interrupt() override;
  void reset() override;

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool interrupted_ = false;  // guarded by mutex_
};

}  // namespace gantry::kube
