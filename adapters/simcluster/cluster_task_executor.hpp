#pragma once
// Runs a pipeline's distributed tasks as gang training jobs in the simulated cluster, so that
// in virtual time they compete for GPUs with everything else in a scenario (issue #4's seam
// between the orchestrator and the cluster model).
//
// A task with a distributed template (tfjob, pytorchjob, mpijob, xgboostjob, rayjob, sparkjob)
// becomes one job of the TrainingWorld: one role per `replicas` entry, each replica asking for
// the task's resources, the framework's start order (masters, chiefs, PS, launchers, heads and
// drivers first), all-or-nothing placement by the scenario's scheduler. Its `simulate.duration`
// is the compute time on the reference GPU (A100 = 1), so the job runs longer on slower GPUs;
// with `simulate.gradientSize` unset there is no all-reduce. The attempt ends when the job
// does: queueing for GPUs and pod start-up count in the attempt's time. Distributed attempts
// always succeed here (the simulated cluster has no failures yet); container tasks go to the
// fallback executor unchanged.
//
// A task that can never be placed, even on the empty cluster (more GPUs, CPU or memory than
// the cluster has, a GPU type no node has; sim/gang_fit.hpp), is not submitted: its attempt
// ends at once as error with the reason ("can never be placed on the cluster: ..."), which the
// run scheduler shows in the timeline and records as an `unschedulable` event. Otherwise it
// would wait for GPUs forever and the run would show "running" to the end. check_tasks_fit()
// finds the same tasks before a replay starts.
//
// The executor contract (workflow/runner/task_executor.hpp): a distributed attempt is queued
// while its job waits for GPUs and starts its pods, and is reported running (attempt_running)
// when the world says every pod runs, so the task's timeout counts from there; a job evicted
// and run again is not reported twice. kill(): the attempt is forgotten at once and its job
// withdrawn from the world (a queued job leaves the queue, a placed one is evicted and its GPUs
// are free for the next cycle), acknowledged kKilled; an attempt that already ended, or an id
// never seen, is kUnknown (container attempts: whatever the fallback says). adopt(): the world
// lives in this process only, so nothing of an earlier process is known; container attempts
// are the fallback's to adopt.
//
// Thread safety: loop thread only.

#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/training_world.hpp"
#include "workflow/runner/task_executor.hpp"

namespace gantry {

class ClusterTaskExecutor final : public TaskExecutor {
 public:
  // All must outlive the executor. Installs the world's on_finish and on_running callbacks.
  ClusterTaskExecutor(TrainingWorld& world, TaskExecutor& fallback);

  void start(const AttemptRequest& request, AttemptListener& listener) override;
  KillAck kill(AttemptId id) override;
  bool adopt(AttemptId id, AttemptListener& listener) override;

  // The job a distributed task's attempt became (for tests and reports), or -1.
  JobId job_of(AttemptId id) const;

 private:
  struct Pending {
    AttemptId attempt;
    AttemptListener* listener;
    Resources requests;
    bool reported_running = false;
  };

  TrainingWorld& world_;
  TaskExecutor& fallback_;
  std::map<JobId, Pending> running_;  // by the world's job id
  std::map<AttemptId, JobId> jobs_;   // every distributed attempt started
  std::set<AttemptId> refused_;       // never placeable; their error is due this instant
};

// The training job a distributed task's attempt becomes (exposed for tests).
JobSpec job_for_task(const AttemptRequest& request);

// Why `job` can never be placed on `topology` (unknown or absent GPU type, gang larger than the
// cluster), or "" if it may be.
std::string never_fits(const Topology& topology, const JobSpec& job);

// Throws PipelineErrors (workflow/pipeline/pipeline_loader.hpp) naming, at each task's position,
// every distributed task of `pipelines` whose declared request can never be placed on
// `topology` (autosize only lowers requests, so the declared one is the largest).
void check_tasks_fit(const std::vector<PipelineSpec>& pipelines, const Topology& topology);
// The same problems as a list ("... can never be placed on <cluster>: ..."), for callers that
// warn rather than refuse (gantry serve: the live cluster's nodes may change).
std::vector<InputError> tasks_that_never_fit(const std::vector<PipelineSpec>& pipelines,
                                             const Topology& topology, const std::string& cluster);

}  // namespace gantry
