#pragma once
// A stand-in for EventLoop::post() in informer tests: closures posted from the informer thread
// run on the test thread, in order, when the test asks — the shape the live world uses.

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>

namespace gantry::kube::testing {

class PostQueue {
 public:
  void post(std::function<void()> f) {
    {
      std::lock_guard lock(mutex_);
      queue_.push_back(std::move(f));
    }
    cv_.notify_all();
  }

  // Runs posted closures on this thread until `done()` holds; false if nothing arrives for
  // 30 s (a failure, never a synchronisation: the informer thread posts what is waited for).
  template <typename Done>
  bool run_until(Done done) {
    while (!done()) {
      std::function<void()> f;
      {
        std::unique_lock lock(mutex_);
        if (!cv_.wait_for(lock, std::chrono::seconds(30), [&] { return !queue_.empty(); }))
          return false;
        f = std::move(queue_.front());
        queue_.pop_front();
      }
      f();
    }
    return true;
  }

  size_t pending() const {
    std::lock_guard lock(mutex_);
    return queue_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
};

}  // namespace gantry::kube::testing
