#pragma once
// A hand-built run with admission, for the tests of what the reports make of it (queue summary,
// JSON report, results database). Nothing here is simulated: every instant and figure is
// written out, so each test can work its expectations out by hand from this page.
//
// Three queues: research and prod in cohort "lab", scratch in no cohort and with no jobs (and
// no QueueLog). Four jobs, instants from kT0 = 2026-01-01T00:00:00Z:
//
//   id name     queue     prio submit  admitted running finished state     replicas
//   0  train-a  research     0     0s       60s     90s       3h finished          2
//   1  train-b  research     5    30s      270s       —        — inactive          1
//   2  urgent   prod        10    50m       55m     56m       2h finished          4
//   3  eval     prod         0     1h         —       —        — pending           0
//
// Evictions:
//   train-a  at 270s  Preempted            by train-b (within research)
//   train-a  at 55m   InCohortReclamation  by urgent  (prod reclaims what research borrowed)
//   train-b  at 570s  PodsReadyTimeout     (its pods never ran within 5 min)
//   train-b  at 30m   PodsReadyTimeout     (again: deactivated)
// train-a lost 2,700 GPU-seconds of work to its evictions; nobody else lost any.
//
// QueueLogs (GPU-seconds): research used 43,200, borrowed 14,400, lent 0; prod used 21,600,
// borrowed 0, lent 14,400.

#include <memory>

#include "engine/cluster/cluster.hpp"
#include "engine/policy/queues/admission_config.hpp"
#include "sim/scenario_spec.hpp"
#include "sim/simulation.hpp"
#include "tests/sim/sim_fixtures.hpp"

namespace gantry::testing {

inline AdmissionConfig lab_admission() {
  AdmissionConfig a;
  QueueSpec research;
  research.name = "research";
  research.cohort = "lab";
  QueueSpec prod;
  prod.name = "prod";
  prod.cohort = "lab";
  QueueSpec scratch;
  scratch.name = "scratch";
  a.queues = {research, prod, scratch};
  return a;
}

inline ScenarioSpec lab_scenario() {
  ScenarioSpec s = scenario_with(dgx_rack(2), {});
  s.name = "lab";
  s.policy.admission = lab_admission();
  return s;
}

// The run of the table above; its log's spec pointers point into its own jobs.
inline SimulationRun lab_run() {
  SimulationRun run;
  const auto job = [&run](const char* name, const char* queue, int priority, Duration submit) {
    JobSpec j = training_job(name, Framework::kPyTorch, {role(RoleKind::kWorker, 1, 8)}, submit,
                             100, seconds(1), 0);
    j.queue = queue;
    j.priority = priority;
    run.jobs.push_back(j);
  };
  job("train-a", "research", 0, seconds(0));
  job("train-b", "research", 5, seconds(30));
  job("urgent", "prod", 10, minutes(50));
  job("eval", "prod", 0, hours(1));
  for (size_t i = 0; i < run.jobs.size(); ++i) {
    JobLog log;
    log.id = static_cast<JobId>(i);
    log.spec = &run.jobs[i];
    run.log.jobs.push_back(log);
  }
  JobLog& a = run.log.jobs[0];
  a.admitted = kT0 + seconds(60);
  a.running = kT0 + seconds(90);
  a.finished = kT0 + hours(3);
  a.state = JobState::kFinished;
  a.replicas = 2;
  a.evicted = {{kT0 + seconds(270), "Preempted", 1}, {kT0 + minutes(55), "InCohortReclamation", 2}};
  a.lost_gpu_seconds = 2700;
  JobLog& b = run.log.jobs[1];
  b.admitted = kT0 + seconds(270);
  b.state = JobState::kInactive;
  b.replicas = 1;
  b.evicted = {{kT0 + seconds(570), "PodsReadyTimeout", -1},
               {kT0 + minutes(30), "PodsReadyTimeout", -1}};
  JobLog& u = run.log.jobs[2];
  u.admitted = kT0 + minutes(55);
  u.running = kT0 + minutes(56);
  u.finished = kT0 + hours(2);
  u.state = JobState::kFinished;
  u.replicas = 4;
  run.log.queues = {{"research", 43'200, 14'400, 0}, {"prod", 21'600, 0, 14'400}};
  run.cluster = std::make_unique<Cluster>(dgx_rack(2));
  run.start = kT0;
  run.end = kT0 + hours(3);
  return run;
}

}  // namespace gantry::testing
