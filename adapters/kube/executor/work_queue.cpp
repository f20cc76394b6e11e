#include "adapters/kube/executor/work_queue.hpp"

#include <algorithm>

namespace gantry::kube {

WorkQueue::WorkQueue(int threads) {
  for (int i = 0; i < std::max(threads, 1); ++i) threads_.emplace_back([this] { run(); });
}

WorkQueue::~WorkQueue() { stop(); }

bool WorkQueue::submit(std::function<void()> job) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return false;
    jobs_.push_back(std::move(job));
  }
  cv_.notify_one();
  return true;
}

void WorkQueue::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_)
    if (t.joinable()) t.join();
}

void WorkQueue::run() {
  while (true) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      cv_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // stopping, and nothing left
      job = std::move(jobs_.front());
      jobs_.pop_front();
      ++active_;
    }
    job();
    {
      std::lock_guard lock(mutex_);
      --active_;
    }
    idle_cv_.notify_all();
  }
}

void WorkQueue::wait_idle() {
  std::unique_lock lock(mutex_);
  idle_cv_.wait(lock, [&] { return jobs_.empty() && active_ == 0; });
}

}  // namespace gantry::kube
