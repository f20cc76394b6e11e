#pragma once
// A small pool of threads that run jobs in the order they were submitted (first come, first
// taken; with several threads, jobs taken one after the other may run side by side). The Kubernetes
// executor runs its API calls here, off the event loop's thread (DESIGN.md rule 1).
//
// Threads: submit() may be called from any thread. The destructor (or stop()) refuses new jobs,
// lets the threads finish every job already submitted, and joins them; it must not be called
// from a job.
//
// Errors: a job that throws ends the process (std::terminate): jobs catch what they expect.

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gantry::kube {

class WorkQueue {
 public:
  explicit WorkQueue(int threads);
  ~WorkQueue();
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  // Queues `job`; false (and nothing queued) after stop().
  bool submit(std::function<void()> job);
  // Runs what is queued, then joins the threads. Idempotent.
  void stop();
  // Blocks until nothing is queued or running (jobs submitted meanwhile are waited for too).
  // Not from a job.
  void wait_idle();

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;  // guarded by mutex_
  bool stopping_ = false;                   // guarded by mutex_
  int active_ = 0;                          // guarded by mutex_: jobs running
  std::condition_variable idle_cv_;
  std::vector<std::thread> threads_;
};

}  // namespace gantry::kube
