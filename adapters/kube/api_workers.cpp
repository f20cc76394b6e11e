#include "adapters/kube/api_workers.hpp"

namespace gantry::kube {

ApiWorkers::ApiWorkers(size_t threads) {
  if (threads == 0) threads = 1;
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { run(); });
}

ApiWorkers::~ApiWorkers() { stop(); }

void ApiWorkers::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  for (std::thread& t : threads_)
    if (t.joinable()) t.join();
}

bool ApiWorkers::submit(std::function<void()> call) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return false;
    queue_.push_back(std::move(call));
  }
  changed_.notify_all();
  return true;
}

size_t ApiWorkers::in_flight() const {
  std::lock_guard lock(mutex_);
  return queue_.size() + running_;
}

void ApiWorkers::wait_idle() const {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return queue_.empty() && running_ == 0; });
}

void ApiWorkers::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and nothing left to do
    std::function<void()> call = std::move(queue_.front());
    queue_.pop_front();
    ++running_;
    lock.unlock();
    try {
      call();
    } catch (...) {
      // A call reports its own failures (through its result); nothing may kill a worker.
    }
    lock.lock();
    --running_;
    changed_.notify_all();
  }
}

}  // namespace gantry::kube
