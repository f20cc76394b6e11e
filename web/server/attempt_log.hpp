#pragma once
// GET /api/v1/pipelines/{name}/runs/{logicalTime}/tasks/{task}/attempts/{n}/log (issue #26
// §2): the story of one attempt as the server knows it, one line per moment ("TIME what"):
// what it asked for, when it queued and why it waits, where its pods were placed (nodes and
// GPUs), when it ran, who preempted or stopped it, how it ended. In the live world the pods'
// own logs follow (kube_serve_world.cpp). Plain text.
//
// WorkloadTrail keeps what the world's action log said about each workload (binds, evictions,
// the world's observations), so that a placement is still known after the workload released
// its pods. Bounded: the newest kMaxWorkloads workloads, kMaxLines lines each.
//
// Thread safety: the loop thread (both).

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "engine/cluster/job.hpp"
#include "engine/policy/scheduler.hpp"
#include "workflow/pipeline/pipeline_spec.hpp"
#include "workflow/runner/run.hpp"

namespace gantry::web {

class WorkloadTrail {
 public:
  static constexpr size_t kMaxWorkloads = 4096;
  static constexpr size_t kMaxLines = 64;
  // One line of the action log (engine/policy/action_log.hpp), without its newline. Lines
  // that name no workload, or that are not JSON, are ignored.
  void note(const std::string& line);
  // The story lines of `job` ("TIME placed: ..."), oldest first; names of other workloads (a
  // preemptor) through `scheduler`.
  std::vector<std::string> lines(JobId job, const Scheduler& scheduler) const;

 private:
  std::map<JobId, std::vector<std::string>> raw_;  // the JSON lines, by workload
  std::deque<JobId> order_;                        // first seen, oldest first
};

// What the server knows of one attempt, gathered on the loop thread.
struct AttemptFacts {
  std::string pipeline, task;
  Time logical_time;
  size_t number = 1;  // 1 for the first attempt
  Attempt attempt;
  const TaskSpec* spec = nullptr;             // valid during attempt_story()
  std::map<std::string, std::string> params;  // the run's (Run::params)
};

// The story of the attempt: its facts, then what `scheduler` and `trail` say of workload `job`
// (-1: the attempt had no workload of the cluster: a container task of the simulated world),
// then `waiting` (why it still waits, "" when it does not or nobody knows).
std::string attempt_story(const AttemptFacts& facts, JobId job, const Scheduler& scheduler,
                          const WorkloadTrail& trail, const std::string& waiting);

}  // namespace gantry::web
