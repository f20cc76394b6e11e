// The front of the run scheduler: the core (scheduler_core.hpp) wired to a TaskExecutor.

#include "workflow/runner/run_scheduler.hpp"

namespace gantry {

RunScheduler::RunScheduler(EventLoop& loop, RunStore& store, TaskExecutor& executor,
                           AutosizeConfig autosize)
    : loop_(loop), store_(store), executor_(executor), core_(loop, store, autosize) {
  core_.on_work([this] { flush(); });
}

RunScheduler::~RunScheduler() = default;

void RunScheduler::flush() {
  // Kills first: what they free is there for the starts (the core decided both in one event).
  for (const KillOrder& k : core_.take_kills())
    if (executor_.kill(k.id) == KillAck::kUnknown) core_.kill_unknown(k);
  for (const AttemptRequest& request : core_.ready()) executor_.start(request, *this);
}

void RunScheduler::recover() {
  core_.recover(
      store_.load_runs(core_.recovery_selection()),
      [this](AttemptId id) { return executor_.adopt(id, *this); },
      [this](AttemptId id) { executor_.kill(id); });
}

void RunScheduler::halt() {
  for (const AttemptId id : core_.halt()) executor_.kill(id);
}

void RunScheduler::switch_on() {
  core_.switch_on();
  flush();
}

void RunScheduler::schedule(const OperatorAction& action) {
  const size_t index = actions_.size();
  actions_.push_back(action);
  loop_.schedule_at(action.at, [this, index] { apply(actions_[index]); });
}

std::optional<std::string> RunScheduler::apply(const OperatorAction& action) {
  std::optional<std::string> refused = core_.apply(action);
  flush();
  return refused;
}

void RunScheduler::put_pipeline(const PipelineSpec& spec, bool paused_if_new) {
  core_.put_pipeline(spec, paused_if_new);
  flush();
}

BackfillReport RunScheduler::backfill(const std::string& pipeline, Time from, Time to,
                                      BackfillRerun rerun) {
  const BackfillReport report = core_.backfill(pipeline, from, to, rerun);
  flush();
  return report;
}

void RunScheduler::attempt_running(AttemptId id, Time at) {
  core_.attempt_running(id, at);
  flush();
}

void RunScheduler::attempt_finished(AttemptId id, const AttemptResult& result) {
  core_.attempt_finished(id, result);
  flush();
}

}  // namespace gantry
