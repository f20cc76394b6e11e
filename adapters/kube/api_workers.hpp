#pragma once
// A fixed pool of threads for blocking Kubernetes API calls, so the event loop never waits on
// the network (DESIGN.md rule 1): the loop submits a call, a worker makes it, and the result
// goes back with EventLoop::post(). Calls run in no particular order across workers.
//
// Thread-safe. stop() (and the destructor) refuses new calls, finishes the calls already
// queued, then joins; neither may be called from a call. in_flight() counts queued and running
// calls, and wait_idle() blocks until it is zero (for tests, benchmarks and shutdown, which
// must know every call was made; the event loop never waits).

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gantry::kube {

class ApiWorkers {
 public:
  explicit ApiWorkers(size_t threads = 8);
  ~ApiWorkers();
  ApiWorkers(const ApiWorkers&) = delete;
  ApiWorkers& operator=(const ApiWorkers&) = delete;

  // Queues `call`; false (and nothing queued) after stop(). An exception escaping a call is
  // swallowed (a call reports its own failures).
  bool submit(std::function<void()> call);
  // Runs what is queued, then joins the threads. Idempotent.
  void stop();
  size_t in_flight() const;
  void wait_idle() const;

 private:
  void run();

  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::deque<std::function<void()>> queue_;  // guarded by mutex_
  size_t running_ = 0;                       // guarded by mutex_
  bool stopping_ = false;                    // guarded by mutex_
  std::vector<std::thread> threads_;
};

}  // namespace gantry::kube
