// The core's put_pipeline() and remove_pipeline(): pipelines that change while the scheduler
// runs (run_scheduler.hpp, PIPELINES THAT CHANGE).

#include <fmt/format.h>

#include "workflow/runner/scheduler_core.hpp"

namespace gantry {

namespace {

void refuse_if_busy(const std::string& name, size_t in_flight, const char* what) {
  if (in_flight == 0) return;
  throw PipelineBusy(fmt::format(
      "pipeline {} has {} run{} in flight; {} it once they end (pause it to stop new runs) or "
      "after marking them succeeded",
      name, in_flight, in_flight == 1 ? "" : "s", what));
}

}  // namespace

void SchedulerCore::put_pipeline(const PipelineSpec& spec, bool paused_if_new) {
  compact_finished();
  PipelineState* old = find_pipeline(spec.name);
  if (old == nullptr) {
    add_pipeline(spec);
    PipelineState& added = *pipelines_.back();
    if (paused_if_new) {
      added.paused = true;  // resume() catches up
      return;
    }
    catch_up(added);
    try_start_runs(added);
    return;
  }
  refuse_if_busy(spec.name, old->in_flight.size(), "replace");
  std::unique_ptr<PipelineState> fresh = make_state(spec);  // throws before anything changes
  fresh->index = old->index;
  fresh->runs = std::move(old->runs);
  fresh->last_tick = old->last_tick;
  fresh->paused = old->removed ? paused_if_new : old->paused;
  if (old->tick_timer) loop_.cancel(*old->tick_timer);
  // Its runs, all finished, take the new task list as a restart with the new file would: by
  // task name (recovery.cpp); their per-task bookkeeping is rebuilt on demand (restore_tasks).
  for (const auto& [logical, r] : fresh->runs) {
    RunRt& run = *runs_[r];
    run.run.tasks = tasks_in_pipeline_order(fresh->spec, std::move(run.run.tasks));
    run.tasks.clear();
  }
  PipelineState& p = *fresh;
  pipelines_[p.index] = std::move(fresh);
  catch_up(p);
  try_start_runs(p);
}

bool SchedulerCore::remove_pipeline(const std::string& name, bool forget_runs) {
  compact_finished();
  PipelineState* p = find_pipeline(name);
  if (p == nullptr || p->removed) return false;
  refuse_if_busy(name, p->in_flight.size(), "remove");
  p->removed = true;
  if (p->tick_timer) loop_.cancel(*p->tick_timer);
  p->tick_timer.reset();
  if (forget_runs) {
    // Every run is finished (none in flight): their slots are freed for new runs, and no wait
    // or pending compaction may name them any more.
    for (const auto& [logical, r] : p->runs) {
      std::erase(finished_, r);
      runs_[r].reset();
      free_runs_.push_back(r);
    }
    p->runs.clear();
    p->waiters.clear();
    p->left_memory_upto.reset();
    p->last_tick.reset();
  }
  return true;
}

size_t SchedulerCore::runs_in_flight(const std::string& pipeline) const {
  const auto it = pipeline_index_.find(pipeline);
  return it == pipeline_index_.end() ? 0 : pipelines_[it->second]->in_flight.size();
}

std::optional<Time> SchedulerCore::last_tick(const std::string& pipeline) const {
  const auto it = pipeline_index_.find(pipeline);
  return it == pipeline_index_.end() ? std::nullopt : pipelines_[it->second]->last_tick;
}

std::optional<SchedulerCore::PoolUsage> SchedulerCore::pool_usage(const std::string& pool) const {
  const int index = slots_.find_pool(pool);
  if (index == kNoPool) return std::nullopt;
  return PoolUsage{slots_.used(index), slots_.waiting(index)};
}

}  // namespace gantry
