#include "sim/training_world.hpp"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <stdexcept>

namespace gantry {

namespace {

// GPU time of `steps` steps of `step` on `milli` GPU milli.
double gpu_seconds(int64_t steps, Duration step, int64_t milli) {
  return static_cast<double>(steps) * step.seconds() * static_cast<double>(milli) / 1000;
}

// GPU milli of the pod at `pos` of a job's pods (JobLog::pods): the fixed roles' pods come first,
// in role order; every position after them holds one of the last role's (the elastic Workers,
// however many resizes left). A share of a GPU counts its share, a whole GPU 1000.
int64_t pod_gpu_milli(const JobSpec& spec, size_t pos) {
  if (spec.roles.empty()) return 0;
  size_t end = 0;
  for (size_t r = 0; r + 1 < spec.roles.size(); ++r) {
    end += static_cast<size_t>(std::max(0, spec.roles[r].replicas));
    if (pos < end) return spec.roles[r].per_replica.gpu_milli_total();
  }
  return spec.roles.back().per_replica.gpu_milli_total();
}

}  // namespace

const char* to_string(EventKind kind) {
  switch (kind) {
    case EventKind::kSubmit:
      return "submit";
    case EventKind::kBind:
      return "bind";
    case EventKind::kStageRunning:
      return "stage-running";
    case EventKind::kRunning:
      return "running";
    case EventKind::kFinish:
      return "finish";
    case EventKind::kEvict:
      return "evict";
    case EventKind::kWithdraw:
      return "withdraw";
    case EventKind::kResize:
      return "resize";
  }
  return "?";
}

TrainingWorld::TrainingWorld(EventLoop& loop, Cluster& cluster, Scheduler& scheduler,
                             SimParameters params, const std::vector<JobSpec>& jobs)
    : loop_(loop), cluster_(cluster), scheduler_(scheduler), params_(params), jobs_(jobs) {
  scheduler_.set_waker(this);
  const size_t types = cluster_.topology().gpus.size();
  allocated_milli_.assign(types, 0);
  busy_milli_.assign(types, 0);
  log_.begin(loop_.now(), types);
  faults_.assign(static_cast<size_t>(cluster_.node_count()), NodeFaults{});
  spot_node_.assign(static_cast<size_t>(cluster_.node_count()), false);
  log_.jobs.reserve(jobs_.size());
  stages_.reserve(jobs_.size());
  for (const JobSpec& spec : jobs_) track(spec);
  // Each job logs about five events; reserving avoids regrowing a large vector.
  log_.events.reserve(jobs_.size() * 5);
}

void TrainingWorld::set_log_sink(LogSink* sink) {
  log_.sink = sink;
  if (sink != nullptr) std::vector<SimEvent>().swap(log_.events);  // the reservation too
}

void TrainingWorld::track(const JobSpec& spec) {
  JobLog log;
  log.id = static_cast<JobId>(log_.jobs.size());
  log.spec = &spec;
  log_.jobs.push_back(std::move(log));
  Stages stages{INT32_MAX, 0};
  for (const RoleSpec& role : spec.roles) {
    if (role.replicas <= 0) continue;
    stages.first = std::min(stages.first, start_stage(role.kind));
    stages.last = std::max(stages.last, start_stage(role.kind));
  }
  if (stages.first > stages.last) stages.first = stages.last;  // no pods at all
  stages_.push_back(stages);
  timers_.push_back(Timer{});
  segments_.push_back(Segment{});
  held_milli_.push_back(0);
  spot_milli_.push_back(0);
  charged_at_.push_back(Time());
}

void TrainingWorld::cancel_timer(JobId id) {
  Timer& t = timers_[static_cast<size_t>(id)];
  if (t.live) loop_.cancel(t.id);
  t.live = false;
}

JobId TrainingWorld::submit(JobSpec spec) {
  spec.submit = loop_.now();
  submitted_.push_back(std::move(spec));
  track(submitted_.back());
  const auto id = static_cast<JobId>(log_.jobs.size() - 1);
  [[maybe_unused]] const Status submitted = scheduler_.submit(id, submitted_.back(), loop_.now());
  assert(submitted && "job ids are the world's own and unique");
  record(EventKind::kSubmit, id);
  pending_.insert(id);
  if (on_pending_) on_pending_();
  request_cycle();
  return id;
}

void TrainingWorld::start() {
  if (!jobs_.empty()) schedule_in_range(jobs_.front().submit, [this] { arrive(0); });
}

void TrainingWorld::tell(Observation::Kind kind, JobId job) {
  Observation o;
  o.kind = kind;
  o.at = loop_.now();
  o.job = job;
  if (action_log_ != nullptr) action_log_->observation(o);
  [[maybe_unused]] const Status s = scheduler_.observe(cluster_, o);
  assert(s && "the simulated world and the scheduler disagree about a job");
}

void TrainingWorld::record(EventKind kind, JobId job, int32_t detail) {
  log_.record_event(SimEvent{loop_.now(), kind, job, detail});
}

// Enqueues every job submitted now, then schedules the next distinct submit time: one pending
// arrival event at a time keeps the loop's queue small for 10^5-job workloads.
void TrainingWorld::arrive(size_t first) {
  const Time now = loop_.now();
  size_t i = first;
  for (; i < jobs_.size() && jobs_[i].submit <= now; ++i) {
    [[maybe_unused]] const Status submitted =
        scheduler_.submit(static_cast<JobId>(i), jobs_[i], now);
    assert(submitted && "job ids are the world's own and unique");
    record(EventKind::kSubmit, static_cast<JobId>(i));
    pending_.insert(static_cast<JobId>(i));
  }
  next_arrival_ = i;
  if (i > first && on_pending_) on_pending_();
  if (i < jobs_.size()) schedule_in_range(jobs_[i].submit, [this, i] { arrive(i); });
  request_cycle();
}

void TrainingWorld::request_cycle() {
  if (cycle_requested_) return;
  cycle_requested_ = true;
  loop_.schedule_after(Duration(0), [this] {
    cycle_requested_ = false;
    cycle();
  });
}

void TrainingWorld::apply_resizes() {
  for (const ResizeAction& action : scheduler_.take_resizes()) {
    [[maybe_unused]] const Status resized = apply(action);
    assert(resized && "the scheduler resizes only running workloads");
  }
}

void TrainingWorld::wake_at(Time t) {
  schedule_in_range(t, [this] { request_cycle(); });
}

void TrainingWorld::cycle() {
  for (const BindAction& action : scheduler_.run_cycle(cluster_, loop_.now())) bind(action);
  for (const EvictAction& action : scheduler_.take_evictions()) {
    [[maybe_unused]] const Status evicted = apply(action);
    assert(evicted && "the scheduler evicts only placed workloads");
  }
  apply_resizes();
}

SimulationLog TrainingWorld::take_log() {
  log_.flush_series();
  // Jobs still placed: their progress and GPU time up to now.
  for (JobLog& job : log_.jobs) {
    if (job.state != JobState::kStarting && job.state != JobState::kRunning) continue;
    if (job.state == JobState::kRunning) {
      settle(job.id);
      job.running_seconds += (loop_.now() - segments_[static_cast<size_t>(job.id)].start).seconds();
    }
    charge(job.id);
  }
  const std::vector<QueueSpec>& queues = scheduler_.config().admission.queues;
  const std::vector<QueueUsageMeter::Totals> usage = scheduler_.queue_usage(loop_.now());
  log_.queues.clear();
  for (size_t q = 0; q < queues.size() && q < usage.size(); ++q)
    log_.queues.push_back(QueueLog{queues[q].name, usage[q].used_gpu_seconds,
                                   usage[q].borrowed_gpu_seconds, usage[q].lent_gpu_seconds});
  return std::move(log_);
}

void TrainingWorld::bind(const BindAction& action) {
  if (action_log_ != nullptr) action_log_->bind(loop_.now(), action);
  JobLog& job = log_.jobs[static_cast<size_t>(action.job)];
  assert(job.state == JobState::kPending);
  job.state = JobState::kStarting;
  job.bound = loop_.now();
  ++placed_jobs_;
  if (faults_paused_) resume_faults();
  if (!job.admitted) job.admitted = loop_.now();
  job.pods = action.pods;
  job.pod_ids.clear();
  int64_t milli = 0;
  for (size_t i = 0; i < action.requests.size(); ++i) {
    milli += action.requests[i].gpu_milli_total();
    assert(action.requests[i].gpu_milli_total() == pod_gpu_milli(*job.spec, i) &&
           "the series counts each pod's GPUs from its role (account())");
  }
  held_milli_[static_cast<size_t>(action.job)] = milli;
  spot_milli_[static_cast<size_t>(action.job)] = spot_milli(action.pods, action.requests);
  pending_.erase(action.job);
  charged_at_[static_cast<size_t>(action.job)] = loop_.now();
  const JobSpec& spec = *job.spec;
  job.replicas =
      spec.roles.empty()
          ? 0
          : spec.roles.back().replicas - (spec.total_pods() - static_cast<int>(action.pods.size()));
  record(EventKind::kBind, action.job, static_cast<int32_t>(action.pods.size()));
  // The simulated API server accepts every bind of a placement the model made.
  tell(Observation::Kind::kBound, action.job);
  account(*job.spec, job.pods, 0, +1, 0);
  start_pods(action.job);
}

void TrainingWorld::start_pods(JobId id) {
  // Stage 0 (master/chief/PS/launcher) pods start first; workers follow once they run. A job
  // without stage-0 roles starts its workers at once.
  const int first = stages_[static_cast<size_t>(id)].first;
  set_timer(id, saturating_add(loop_.now(), params_.pod_startup),
            [this, id, first] { stage_running(id, first); });
}

Status TrainingWorld::apply(const ResizeAction& action) {
  const JobId id = action.job;
  if (id < 0 || static_cast<size_t>(id) >= log_.jobs.size())
    return Status::error("no job " + std::to_string(id));
  JobLog& job = log_.jobs[static_cast<size_t>(id)];
  // A job restarting after a resize still runs for the policies: it may be resized again.
  const bool running = job.state == JobState::kRunning;
  if (!running && !(job.state == JobState::kStarting && job.restarting))
    return Status::error("job " + std::to_string(id) + " is not running (" + to_string(job.state) +
                         ")");
  const RoleSpec& role = job.spec->roles.back();
  const auto fixed = static_cast<size_t>(job.spec->total_pods() - role.replicas);
  const auto pod_id = [&](size_t pos) {
    return job.pod_ids.empty() ? static_cast<int32_t>(pos) : job.pod_ids[pos];
  };
  size_t removing = 0;
  for (size_t pos = fixed; pos < job.pods.size(); ++pos)
    removing += std::count(action.removed.begin(), action.removed.end(), pod_id(pos));
  if (removing != action.removed.size() ||
      job.pods.size() - fixed - removing + action.added.size() !=
          static_cast<size_t>(action.replicas))
    return Status::error("resize of job " + std::to_string(id) + " does not match its " +
                         std::to_string(job.pods.size()) + " pods");
  if (action_log_ != nullptr) action_log_->resize(loop_.now(), action);
  // The job checkpoints (settled progress is kept: a resize loses nothing) and restarts at the
  // new size; it makes no progress until every pod runs again.
  cancel_timer(id);
  charge(id);
  if (running) {
    settle(id);
    job.running_seconds += (loop_.now() - segments_[static_cast<size_t>(id)].start).seconds();
    account(*job.spec, job.pods, 0, 0, -1);
  }
  int64_t& held = held_milli_[static_cast<size_t>(id)];
  if (job.pod_ids.empty() && (!action.removed.empty() || !action.added.empty()))
    for (size_t pos = 0; pos < job.pods.size(); ++pos)
      job.pod_ids.push_back(static_cast<int32_t>(pos));
  std::vector<PodPlacement> removed;
  size_t out = 0;
  for (size_t pos = 0; pos < job.pods.size(); ++pos) {
    if (std::find(action.removed.begin(), action.removed.end(), job.pod_ids[pos]) !=
        action.removed.end()) {
      removed.push_back(job.pods[pos]);
      continue;
    }
    job.pods[out] = job.pods[pos];
    job.pod_ids[out] = job.pod_ids[pos];
    ++out;
  }
  job.pods.resize(out);
  job.pod_ids.resize(out);
  account(*job.spec, removed, fixed, -1, 0);  // Workers only: positions from `fixed` on
  held -= static_cast<int64_t>(removed.size()) * role.per_replica.gpu_milli_total();
  int64_t& spot = spot_milli_[static_cast<size_t>(id)];
  for (const PodPlacement& p : removed)
    if (spot_node_[static_cast<size_t>(p.node)]) spot -= role.per_replica.gpu_milli_total();
  spot += spot_milli(action.added, action.requests);
  job.pods.insert(job.pods.end(), action.added.begin(), action.added.end());
  for (size_t i = 0; i < action.added.size(); ++i)
    job.pod_ids.push_back(action.first_added + static_cast<int32_t>(i));
  account(*job.spec, action.added, fixed, +1, 0);
  for (const Resources& r : action.requests) held += r.gpu_milli_total();
  ++job.resizes;
  job.restarting = true;
  job.state = JobState::kStarting;
  record(EventKind::kResize, id, static_cast<int32_t>(job.pods.size()));
  tell(Observation::Kind::kResized, id);  // removed pods are released now
  drain_check_pods(removed);
  const Duration cost = job.spec->elastic.resize_cost;
  if (cost > Duration(0)) {
    // Checkpoint and restart take resize_cost; the new pods start meanwhile.
    set_timer(id, saturating_add(loop_.now(), cost), [this, id] {
      timers_[static_cast<size_t>(id)].live = false;
      job_running(id);
    });
  } else {
    start_pods(id);
  }
  request_cycle();
  return Status::ok();
}

void TrainingWorld::stage_running(JobId id, int stage) {
  timers_[static_cast<size_t>(id)].live = false;
  record(EventKind::kStageRunning, id, stage);
  if (stage >= stages_[static_cast<size_t>(id)].last) {
    job_running(id);
    return;
  }
  set_timer(id, saturating_add(loop_.now(), params_.pod_startup),
            [this, id, stage] { stage_running(id, stage + 1); });
}

void TrainingWorld::job_running(JobId id) {
  JobLog& job = log_.jobs[static_cast<size_t>(id)];
  job.state = JobState::kRunning;
  job.step = step_time(cluster_.topology(), *job.spec, job.pods);
  record(EventKind::kRunning, id);
  if (job.restarting) {
    job.restarting = false;  // after a resize: the workload never stopped running for policies
  } else {
    job.running = loop_.now();
    tell(Observation::Kind::kRunning, id);
  }
  account(*job.spec, job.pods, 0, 0, +1);
  segments_[static_cast<size_t>(id)] =
      Segment{loop_.now(), job.steps_done, checkpoint_plan(job.spec->work, job.step.total)};
  schedule_end(id);
  for (const auto& fn : on_running_) fn(id);
}

void TrainingWorld::schedule_end(JobId id) {
  const JobLog& job = log_.jobs[static_cast<size_t>(id)];
  const Segment& segment = segments_[static_cast<size_t>(id)];
  cancel_timer(id);
  const int64_t left = std::max<int64_t>(0, job.spec->work.steps - segment.steps0);
  set_timer(id, saturating_add(segment.start, time_to_run(segment.plan, left)),
            [this, id] { finish(id); });
}

void TrainingWorld::settle(JobId id) {
  JobLog& job = log_.jobs[static_cast<size_t>(id)];
  if (job.state != JobState::kRunning) return;
  const Segment& segment = segments_[static_cast<size_t>(id)];
  const SegmentProgress p = progress_after(segment.plan, loop_.now() - segment.start);
  const int64_t done = std::min(job.spec->work.steps, segment.steps0 + p.steps);
  job.useful_gpu_seconds +=
      gpu_seconds(done - job.steps_done, job.step.total, held_milli_[static_cast<size_t>(id)]);
  job.useful_spot_gpu_seconds +=
      gpu_seconds(done - job.steps_done, job.step.total, spot_milli_[static_cast<size_t>(id)]);
  job.steps_done = done;
}

void TrainingWorld::charge(JobId id) {
  const auto i = static_cast<size_t>(id);
  log_.jobs[i].allocated_gpu_seconds +=
      (loop_.now() - charged_at_[i]).seconds() * static_cast<double>(held_milli_[i]) / 1000;
  charged_at_[i] = loop_.now();
}

Status TrainingWorld::apply(const EvictAction& action) {
  const JobId id = action.job;
  if (id < 0 || static_cast<size_t>(id) >= log_.jobs.size())
    return Status::error("no job " + std::to_string(id));
  const JobState state = log_.jobs[static_cast<size_t>(id)].state;
  if (state != JobState::kStarting && state != JobState::kRunning)
    return Status::error("job " + std::to_string(id) + " is not placed (" + to_string(state) + ")");
  if (action_log_ != nullptr) action_log_->evict(loop_.now(), action);
  return evict(id, action.reason, action.by, loop_.now());
}

Status TrainingWorld::evict(JobId id, const std::string& reason, JobId by, Time not_before) {
  JobLog& job = log_.jobs[static_cast<size_t>(id)];
  cancel_timer(id);
  const bool was_running = job.state == JobState::kRunning;
  int64_t lost = 0;
  if (was_running) {
    lost = rollback_to_checkpoint(id);
  }
  charge(id);
  held_milli_[static_cast<size_t>(id)] = 0;
  spot_milli_[static_cast<size_t>(id)] = 0;
  --placed_jobs_;
  job.evicted.push_back(EvictionRecord{loop_.now(), reason, by});
  account(*job.spec, job.pods, 0, -1, was_running ? -1 : 0);
  ++job.evictions;
  job.restarting = false;
  job.state = JobState::kPending;
  const std::vector<PodPlacement> pods = std::move(job.pods);
  job.pods.clear();
  job.pod_ids.clear();
  record(EventKind::kEvict, id, static_cast<int32_t>(std::min<int64_t>(lost, INT32_MAX)));
  Observation o;
  o.kind = Observation::Kind::kEvicted;
  o.at = loop_.now();
  o.job = id;
  o.reason = reason;
  o.deadline = not_before;
  if (action_log_ != nullptr) action_log_->observation(o);
  const Status told = scheduler_.observe(cluster_, o);
  if (!told) return told;
  if (const Workload* w = scheduler_.workloads().find(id); w != nullptr) {
    if (w->state == WorkloadState::kWithdrawn) job.state = JobState::kWithdrawn;
    if (w->state == WorkloadState::kInactive) job.state = JobState::kInactive;
  }
  if (job.state == JobState::kPending) {
    pending_.insert(id);
    if (on_pending_) on_pending_();
  }
  // Its owner may withdraw it from here (a serving replica being drained anyway).
  for (const auto& fn : on_evicted_) fn(id);
  drain_check_pods(pods);
  request_cycle();  // its resources are free for others
  return Status::ok();
}

Status TrainingWorld::withdraw(JobId id) {
  Result<std::optional<EvictAction>> r = scheduler_.withdraw(id, loop_.now());
  if (!r) return Status::error(r.error());
  JobLog& job = log_.jobs[static_cast<size_t>(id)];
  if (r.value()) {
    if (Status s = apply(*r.value()); !s) return s;
  } else {
    Observation o;
    o.kind = Observation::Kind::kDeleted;
    o.at = loop_.now();
    o.job = id;
    if (action_log_ != nullptr) action_log_->observation(o);
  }
  job.state = JobState::kWithdrawn;
  pending_.erase(id);
  record(EventKind::kWithdraw, id);
  return Status::ok();
}

void TrainingWorld::finish(JobId id) {
  timers_[static_cast<size_t>(id)].live = false;
  JobLog& job = log_.jobs[static_cast<size_t>(id)];
  job.useful_gpu_seconds += gpu_seconds(job.spec->work.steps - job.steps_done, job.step.total,
                                        held_milli_[static_cast<size_t>(id)]);
  job.useful_spot_gpu_seconds += gpu_seconds(job.spec->work.steps - job.steps_done, job.step.total,
                                             spot_milli_[static_cast<size_t>(id)]);
  job.steps_done = job.spec->work.steps;
  job.running_seconds += (loop_.now() - segments_[static_cast<size_t>(id)].start).seconds();
  charge(id);
  held_milli_[static_cast<size_t>(id)] = 0;
  spot_milli_[static_cast<size_t>(id)] = 0;
  --placed_jobs_;
  job.state = JobState::kFinished;
  job.finished = loop_.now();
  record(EventKind::kFinish, id);
  account(*job.spec, job.pods, 0, -1, -1);
  tell(Observation::Kind::kFinished, id);  // the scheduler releases the job's allocations
  drain_check_pods(job.pods);
  ++finished_;
  if (progress_) progress_(finished_, jobs_.size());
  for (const auto& fn : on_finish_) fn(id);
  request_cycle();
}

int64_t TrainingWorld::rollback_to_checkpoint(JobId id) {
  JobLog& job = log_.jobs[static_cast<size_t>(id)];
  settle(id);
  Segment& segment = segments_[static_cast<size_t>(id)];
  const SegmentProgress p = progress_after(segment.plan, loop_.now() - segment.start);
  const int64_t saved = std::min(job.steps_done, segment.steps0 + p.saved);
  const int64_t lost = job.steps_done - saved;
  job.steps_done = saved;
  job.lost_steps += lost;
  const double lost_gpu_s = gpu_seconds(lost, job.step.total, held_milli_[static_cast<size_t>(id)]);
  job.lost_gpu_seconds += lost_gpu_s;
  job.useful_gpu_seconds -= lost_gpu_s;
  job.useful_spot_gpu_seconds -=
      gpu_seconds(lost, job.step.total, spot_milli_[static_cast<size_t>(id)]);
  // A new segment from the checkpoint, so nothing settles the lost steps again.
  job.running_seconds += (loop_.now() - segment.start).seconds();
  segment.start = loop_.now();
  segment.steps0 = saved;
  return lost;
}

int64_t TrainingWorld::spot_milli(std::span<const PodPlacement> pods,
                                  std::span<const Resources> requests) const {
  int64_t milli = 0;
  for (size_t i = 0; i < pods.size() && i < requests.size(); ++i)
    if (spot_node_[static_cast<size_t>(pods[i].node)]) milli += requests[i].gpu_milli_total();
  return milli;
}

void TrainingWorld::account(const JobSpec& spec, std::span<const PodPlacement> pods, size_t first,
                            int allocated_sign, int busy_sign) {
  for (size_t i = 0; i < pods.size(); ++i) {
    const int64_t milli = pods[i].gpu_mask == 0 ? 0 : pod_gpu_milli(spec, first + i);
    if (milli == 0) continue;
    const auto type = static_cast<size_t>(cluster_.gpu_type_of(pods[i].node));
    allocated_milli_[type] += allocated_sign * milli;
    busy_milli_[type] += busy_sign * milli;
    // One point per (instant, type): later changes at the same instant replace it.
    log_.record_series(SeriesPoint{loop_.now(), static_cast<GpuTypeId>(type),
                                   allocated_milli_[type], busy_milli_[type]});
  }
}

}  // namespace gantry
