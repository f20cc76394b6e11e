#pragma once
// Reading a Scenario's `workload:` block into a WorkloadSpec (sim/scenario_spec.hpp):
//
//   workload:
//     jobs:                        # explicit jobs, names unique
//     - name: bert
//       submit: 10m                # offset from spec.start
//       framework: PyTorch|TensorFlow|MPI
//       priority: 3                # default 0
//       tenant: team-a             # default "default"
//       gpuType: A100-80G          # the catalog's name; present on some node class
//       roles: [{kind: Worker, replicas: 4, resources: {cpu: "8", memory: 64Gi, gpu: 8}}]
//       work: {steps, stepCompute, gradientSize, inputPerStep, checkpointEvery,
//              checkpointCost}
//       nodeSelector: {pool: spot} # and tolerations: sim/placement_constraints_loader.hpp
//       queue: team-a              # an admission queue (spec.policy.admission.queues)
//       minReplicas: 2             # partial admission of the last role, a Worker role
//       topology: {required: rack} # or {preferred: ...}; island | node | rack
//       elastic: {minReplicas: 2, maxReplicas: 8, scaleStep: 1, resizeCost: 90s}  # Worker role
//       restartPolicy: OnFailure   # | Never | ExitCode (128 < code < 255 recreates)
//     generators:                  # Poisson arrivals, names unique
//     - {kind: Poisson, name, count, meanInterarrival, start, mix: [JobClass...]}
//                                  # a class's steps: N, {min, max} (uniform) or {mean: N}
//                                  # (exponential: M/M/c service times)
//     services:                    # inference services, names unique:
//     - {name: chat, predictors, capacity, coldStart, autoscaler, slo, load, ...}
//                                  # sim/serving/service_loader.hpp
//
// A workload needs at least one job, generator or service.
//
// A role's resources take the spellings every file kind shares (engine/config/
// resource_fields.hpp): cpu and memory required, gpu whole GPUs or a share of one ("0.5").
//
// Semantic checks, each reported at the offending field: roles valid for the framework
// (PyTorch: Master, Worker; TensorFlow: PS, Chief, Worker, Evaluator; MPI: Launcher, Worker)
// with one Master/Chief/Launcher, every pod fitting some node class, a job's gpuType present on
// some node class, gpus % gpusPerPod == 0, weights > 0, explicit job names not of the form
// "<generator>-<digits>", a gang even the empty cluster cannot hold (sim/gang_fit.hpp; with
// minReplicas, its smallest form), a job whose compute alone would end after kLatestTime, at
// most 1,000,000 jobs in all. Queues: once spec.policy.admission declares queues, every job
// (and every generator's job class) names one of them; without admission queues none may name
// one. minReplicas: 1 to the replicas of the job's last role, which must be a Worker role.
// topology: exactly one of required and preferred.
//
// Errors are recorded in `errors` and reading goes on. A check that needs values which could
// not be read (a job's gang when one of its roles is wrong, anything about the cluster when
// the cluster had errors: ctx.topology_ok) is skipped, so one mistake is reported once.

#include "engine/cluster/topology.hpp"
#include "engine/config/config_errors.hpp"
#include "engine/config/reader.hpp"
#include "sim/admission_loader.hpp"
#include "sim/gang_fit.hpp"
#include "sim/scenario_spec.hpp"

namespace gantry {

struct WorkloadContext {
  const Topology& topology;
  Time start;               // the scenario's start: submit and start offsets count from it
  bool topology_ok = true;  // false: the cluster had errors, so checks against it are skipped
  DeclaredQueues queues{};  // what the jobs' queues are checked against (default: no queues)
  std::vector<int64_t> nodes_of = nodes_per_class(topology);  // for gang_misfit
};

WorkloadSpec read_workload(const ConfigNode& node, const WorkloadContext& ctx,
                           ConfigErrors& errors);

}  // namespace gantry
