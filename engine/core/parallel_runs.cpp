#include "engine/core/parallel_runs.hpp"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

namespace gantry {

namespace {

constexpr size_t kNone = std::numeric_limits<size_t>::max();

// What the workers and the calling thread share; every member is guarded by `mutex`.
struct Shared {
  std::mutex mutex;
  std::condition_variable changed;  // a task finished or a worker left (the caller waits)
  size_t next = 0;                  // the index of the next task to start
  size_t finished = 0;              // tasks that returned or threw
  size_t workers = 0;               // workers still taking tasks
  bool stop_starting = false;       // a task failed, or progress threw
  size_t failed = kNone;            // the lowest index that threw
  std::exception_ptr failure;       // its exception

  // The task each worker runs now (kNone: none), and the source of the token it was given.
  struct Running {
    size_t index = kNone;
    std::stop_source stop;
  };
  std::vector<Running> running;

  // Asks every running task above `index` to stop (kNone's "above" is nothing; use
  // stop_all()).
  void stop_above(size_t index) {
    for (Running& r : running)
      if (r.index != kNone && r.index > index) r.stop.request_stop();
  }
  void stop_all() {
    stop_starting = true;
    for (Running& r : running)
      if (r.index != kNone) r.stop.request_stop();
  }
};

// One worker: takes the next index while there is one and nothing failed.
void work(Shared& s, size_t w, size_t count,
          const std::function<void(size_t, std::stop_token)>& task) {
  std::unique_lock lock(s.mutex);
  while (!s.stop_starting && s.next < count) {
    const size_t i = s.next++;
    s.running[w] = {i, std::stop_source()};
    const std::stop_token stop = s.running[w].stop.get_token();
    lock.unlock();
    std::exception_ptr error;
    try {
      task(i, stop);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    s.running[w].index = kNone;
    ++s.finished;
    // A task stopped because a lower one failed may throw too; only the lowest index counts.
    if (error && i < s.failed) {
      s.failed = i;
      s.failure = error;
      s.stop_starting = true;
      s.stop_above(i);
    }
    s.changed.notify_one();  // only the calling thread waits on it
  }
  --s.workers;
  s.changed.notify_one();
}

}  // namespace

void run_in_order(size_t count, unsigned threads,
                  const std::function<void(size_t, std::stop_token)>& task,
                  const std::function<void(size_t)>& progress) {
  if (threads <= 1 || count <= 1) {  // the plain loop itself
    for (size_t i = 0; i < count; ++i) {
      task(i, std::stop_token());
      if (progress) progress(i + 1);
    }
    return;
  }

  Shared s;
  const size_t workers = std::min<size_t>(threads, count);
  s.running.resize(workers);
  s.workers = workers;
  std::exception_ptr progress_error;
  {
    // Declared after `s` and `progress_error`: joined (by ~jthread) before they go, on every
    // path out of this block.
    std::vector<std::jthread> pool;
    pool.reserve(workers);
    try {
      for (size_t w = 0; w < workers; ++w)
        pool.emplace_back([&s, w, count, &task] { work(s, w, count, task); });
    } catch (...) {  // a thread could not start: stop those that did, then join them
      std::lock_guard lock(s.mutex);
      s.workers -= workers - pool.size();
      s.stop_all();
      throw;
    }

    // Report progress until every worker has left and every finish has been reported.
    std::unique_lock lock(s.mutex);
    size_t reported = 0;
    while (s.workers > 0 || reported != s.finished) {
      s.changed.wait(lock, [&] { return s.finished != reported || s.workers == 0; });
      if (s.finished == reported) continue;  // the last worker left: nothing new to report
      reported = s.finished;
      if (!progress || progress_error) continue;
      lock.unlock();
      try {
        progress(reported);
      } catch (...) {
        progress_error = std::current_exception();
      }
      lock.lock();
      if (progress_error) s.stop_all();
    }
  }
  // Every thread has joined: nothing touches `s` any more.
  if (s.failure) std::rethrow_exception(s.failure);
  if (progress_error) std::rethrow_exception(progress_error);
}

}  // namespace gantry
