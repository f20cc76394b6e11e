// BM_RunStoreTransitions/<batch>: task-state transitions persisted per second through
// SqliteRunStore (issue #4: at least 5,000 per second, WAL, batched where correctness allows).
//
// A fresh database file in the temp directory holds 1,000 runs of a 5-task pipeline, created
// before timing. Each iteration is one task-state transition, SqliteRunStore::update_task(),
// walking the task instances in order and cycling each through running -> succeeded ->
// pending, so every call really changes a row. <batch> is the store's batch: 1 = one
// transaction per change (what the orchestrator does under `gantry serve`), 512 = changes
// share a transaction (a virtual-time replay). The open batch is committed inside the timed
// region, so every counted change is on disk (in the WAL; synchronous=NORMAL, see
// engine/store/database.cpp) when the benchmark ends. items_per_second is transitions per
// second.

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "workflow/runner/run.hpp"
#include "workflow/store/sqlite_run_store.hpp"

namespace gantry {
namespace {

constexpr int kRuns = 1000;
constexpr int kTasks = 5;

std::filesystem::path fresh_database(int batch) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("gantry-run-store-bench-" + std::to_string(::getpid()) + "-" +
                                      std::to_string(batch) + ".db");
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
  return path;
}

void BM_RunStoreTransitions(benchmark::State& state) {
  const int batch = static_cast<int>(state.range(0));
  const std::filesystem::path path = fresh_database(batch);
  {
    SqliteRunStore store(path.string(), batch);
    const char* names[kTasks] = {"extract", "clean", "transform", "aggregate", "load"};
    std::vector<RunKey> keys;
    keys.reserve(kRuns);
    const Time t0 = Time::from_micros(1'798'761'600'000'000);  // 2027-01-01T00:00:00Z
    for (int r = 0; r < kRuns; ++r) {
      Run run;
      run.pipeline = "five-minute-chain";
      run.logical_time = t0 + Duration(int64_t{r} * 300'000'000);
      run.trigger = RunTrigger::kCatchup;
      for (const char* n : names) run.tasks.push_back(TaskInstance{n, TaskState::kPending, {}, {}});
      store.create_run(run);
      keys.push_back(RunKey{run.pipeline, run.logical_time});
    }
    store.flush();

    const TaskState cycle[3] = {TaskState::kRunning, TaskState::kSucceeded, TaskState::kPending};
    const Resources requests{};
    uint64_t i = 0;
    for (auto _ : state) {
      const uint64_t instance = i % (kRuns * kTasks);
      const uint64_t round = i / (kRuns * kTasks);
      store.update_task(keys[instance / kTasks], names[instance % kTasks], cycle[round % 3],
                        requests);
      ++i;
    }
    store.flush();  // the last, partial batch is part of the cost
    state.SetItemsProcessed(static_cast<int64_t>(i));
  }
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
}

// Wall time: the cost is in I/O as much as in CPU.
BENCHMARK(BM_RunStoreTransitions)->Arg(1)->Arg(512)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace gantry
