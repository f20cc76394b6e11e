#include "adapters/kube/sleeper.hpp"

#include <chrono>

namespace gantry::kube {

bool InterruptibleSleeper::sleep_for(Duration d) {
  std::unique_lock lock(mutex_);
  if (interrupted_) return false;
  if (d <= Duration(0)) return true;
  cv_.wait_for(lock, std::chrono::microseconds(d.micros()), [this] { return interrupted_; });
  return !interrupted_;
}

void InterruptibleSleeper::interrupt() {
  {
    std::lock_guard lock(mutex_);
    interrupted_ = true;
  }
  cv_.notify_all();
}

void InterruptibleSleeper::reset() {
  std::lock_guard lock(mutex_);
  interrupted_ = false;
}

}  // namespace gantry::kube
