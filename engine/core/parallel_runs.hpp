#pragma once
// Runs numbered, independent tasks on a few threads so that the outcome is the one of a plain
// loop `for (i = 0; i < count; ++i) task(i)`: the same results, the same exception. For
// experiments that repeat a deterministic run over seeds, policies and inputs (the
// fragmentation experiment, sim/experiment_runner.hpp), where `gantry simulate --parallel N`
// must print byte for byte what `--parallel 1` prints.
//
// Why the outcome does not depend on the threads:
//   - Results. Task i writes only its own slot of the caller's output (slot i of a vector sized
//     beforehand), and reads only inputs nobody writes while tasks run. The caller reads the
//     slots after run_in_order() returns, in index order, never in the order tasks finished.
//   - Errors. Tasks start in index order: task i starts only after tasks 0..i-1 have started.
//     So when task i throws, every task before it has started and will finish, and no task
//     after it is needed: the loop would have stopped at the first exception in index order.
//     run_in_order() starts nothing more, lets the tasks before the failing one finish (one of
//     them may fail too, and then its exception is the loop's), asks the tasks after it to stop
//     (below), and throws the exception of the lowest failed index once every thread has
//     joined. A failure is never a crash (nothing escapes a thread) or a hang.
//
// Cancellation. Each task gets a std::stop_token. A stop is requested for a running task
// whose index is above a failed one (its result would be thrown away): a long task checks
// stop_requested() now and then and returns early; what it leaves in its slot is never read,
// since run_in_order() then throws. Tasks below the failed index are never asked to stop.
//
// Memory: at most `threads` tasks run at once, so a caller that loads a task's inputs when it
// starts and drops them when it ends holds at most `threads` tasks' worth of them.
//
// Threads: `threads` <= 1 (or one task) runs every task on the calling thread, in order, with no
// thread started. Otherwise min(threads, count) std::jthreads run the tasks while the calling
// thread only reports progress; all are joined before run_in_order() returns or throws.

#include <cstddef>
#include <functional>
#include <stop_token>

namespace gantry {

// Calls task(i, stop) for i = 0 .. count - 1 (see above). `progress`, if given, is called on the
// calling thread with the number of tasks finished so far, each time it grows (several
// finishes between two calls are reported once; the last call says `count` when all
// succeeded). `task` is called from several threads at once and must be safe for that; it may
// throw anything. If `progress` throws, no task starts any more, running ones are asked to
// stop, and its exception is thrown after the threads joined (unless a task failed: the task's
// exception is the one thrown). Throws std::system_error if a thread cannot be started (after
// stopping and joining those that were).
void run_in_order(size_t count, unsigned threads,
                  const std::function<void(size_t index, std::stop_token stop)>& task,
                  const std::function<void(size_t finished)>& progress = {});

}  // namespace gantry
