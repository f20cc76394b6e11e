#include "adapters/simcluster/cluster_task_executor.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/gang_fit.hpp"
#include "workflow/pipeline/pipeline_loader.hpp"
#include "workflow/pipeline/pipeline_spec.hpp"

namespace gantry {

namespace {

// Per-step granularity of a distributed task's work; only the product matters without
// all-reduce, and 1000 steps keep step times well above the microsecond resolution.
constexpr int64_t kSteps = 1000;

Framework framework_of(TaskTemplate t) {
  switch (t) {
    case TaskTemplate::kTFJob:
      return Framework::kTensorFlow;
    case TaskTemplate::kMPIJob:
      return Framework::kMPI;
    default:
      return Framework::kPyTorch;
  }
}

// Replica names of the operators (Kubeflow training-operator, KubeRay, Spark operator) mapped
// to the roles whose start order the world knows: the coordinating role starts first.
RoleKind role_of(const std::string& name) {
  if (name == "ps") return RoleKind::kPS;
  if (name == "chief") return RoleKind::kChief;
  if (name == "master" || name == "head" || name == "driver") return RoleKind::kMaster;
  if (name == "launcher") return RoleKind::kLauncher;
  if (name == "evaluator") return RoleKind::kEvaluator;
  return RoleKind::kWorker;  // worker, executor and anything else
}

}  // namespace

JobSpec job_for_task(const AttemptRequest& r) {
  JobSpec job;
  job.name = fmt::format("{}/{}@{}#{}", r.pipeline->name, r.task->name,
                         format_rfc3339(r.logical_time), r.attempt_index);
  job.tenant = r.pipeline->namespace_name;
  job.framework = framework_of(r.task->template_kind);
  job.gpu_type = r.task->gpu_type;
  // Coordinating roles first, so pods are numbered in start order.
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& [name, replicas] : r.task->replicas) {
      const RoleKind kind = role_of(name);
      if ((start_stage(kind) == 0) != (pass == 0)) continue;
      job.roles.push_back(RoleSpec{kind, replicas, r.requests});
    }
  }
  job.work.steps = kSteps;
  job.work.step_compute_ref = Duration(r.task->simulate.duration.micros() / kSteps);
  return job;
}

ClusterTaskExecutor::ClusterTaskExecutor(TrainingWorld& world, TaskExecutor& fallback)
    : world_(world), fallback_(fallback) {
  world_.on_finish([this](JobId job) {
    const auto it = running_.find(job);
    if (it == running_.end()) return;  // not ours, or killed
    const Pending p = it->second;
    running_.erase(it);
    p.listener->attempt_finished(p.attempt, AttemptResult{AttemptOutcome::kSucceeded, p.requests});
  });
  world_.on_running([this](JobId job) {
    const auto it = running_.find(job);
    if (it == running_.end() || it->second.reported_running) return;  // not ours, or again
    it->second.reported_running = true;
    it->second.listener->attempt_running(it->second.attempt, world_.loop().now());
  });
}

std::string never_fits(const Topology& topology, const JobSpec& job) {
  GpuTypeId type = -1;
  if (!job.gpu_type.empty()) {
    type = topology.gpus.find(job.gpu_type);
    const bool present =
        type >= 0 && std::any_of(topology.classes.begin(), topology.classes.end(),
                                 [&](const NodeClass& c) { return c.gpu_type == type; });
    if (!present)
      return "it asks for GPU type " + job.gpu_type + ", which no node of the cluster has";
  }
  const std::string misfit = gang_misfit(topology, nodes_per_class(topology), job.roles, type);
  return misfit.empty() ? "" : "it needs " + misfit;
}

void check_tasks_fit(const std::vector<PipelineSpec>& pipelines, const Topology& topology) {
  std::vector<InputError> errors =
      tasks_that_never_fit(pipelines, topology, "the --cluster scenario's cluster");
  if (!errors.empty()) throw PipelineErrors(std::move(errors));
}

std::vector<InputError> tasks_that_never_fit(const std::vector<PipelineSpec>& pipelines,
                                             const Topology& topology, const std::string& cluster) {
  std::vector<InputError> errors;
  for (const PipelineSpec& p : pipelines) {
    for (size_t i = 0; i < p.tasks.size(); ++i) {
      const TaskSpec& task = p.tasks[i];
      if (task.template_kind == TaskTemplate::kContainer) continue;
      AttemptRequest request;
      request.pipeline = &p;
      request.task = &task;
      request.requests = task.resources;
      const std::string why = never_fits(topology, job_for_task(request));
      if (!why.empty())
        errors.emplace_back(task.where, "spec.tasks[" + std::to_string(i) + "]",
                            "task " + task.name + " of pipeline " + p.name +
                                " can never be placed on " + cluster + ": " + why);
    }
  }
  return errors;
}

void ClusterTaskExecutor::start(const AttemptRequest& request, AttemptListener& listener) {
  if (request.task->template_kind == TaskTemplate::kContainer) {
    fallback_.start(request, listener);
    return;
  }
  JobSpec spec = job_for_task(request);
  const std::string why = never_fits(world_.cluster().topology(), spec);
  if (!why.empty()) {
    // Never submitted: it would wait forever. The error is reported on the next turn of the
    // loop (executors never call back synchronously), unless the attempt is killed first.
    const AttemptId id = request.id;
    refused_.insert(id);
    AttemptResult result{AttemptOutcome::kError, request.requests,
                         "can never be placed on the cluster: " + why};
    world_.loop().schedule_after(Duration(0), [this, id, &listener, result] {
      if (refused_.erase(id) == 0) return;  // killed meanwhile
      listener.attempt_finished(id, result);
    });
    return;
  }
  const JobId job = world_.submit(std::move(spec));
  running_[job] = Pending{request.id, &listener, request.requests};
  jobs_[request.id] = job;
}

KillAck ClusterTaskExecutor::kill(AttemptId id) {
  if (refused_.erase(id) > 0) return KillAck::kKilled;  // its error will not be reported
  const auto it = jobs_.find(id);
  if (it == jobs_.end()) return fallback_.kill(id);
  // Withdraw the job from the world: a queued one leaves the queue, a placed one is evicted and
  // gives its GPUs back at once. Already ended (finished): nothing to do.
  if (running_.erase(it->second) == 0) return KillAck::kUnknown;
  (void)world_.withdraw(it->second);
  return KillAck::kKilled;
}

bool ClusterTaskExecutor::adopt(AttemptId id, AttemptListener& listener) {
  // Jobs of this world were all started by this process's scheduler; only the fallback may
  // know an attempt from before.
  return fallback_.adopt(id, listener);
}

JobId ClusterTaskExecutor::job_of(AttemptId id) const {
  const auto it = jobs_.find(id);
  return it == jobs_.end() ? -1 : it->second;
}

}  // namespace gantry
