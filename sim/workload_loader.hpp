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
//       work: {steps, stepCompute, gradientSize, inputPerStep, checkpointEvery}
//       nodeSelector: {pool: spot} # and tolerations: sim/placement_constraints_loader.hpp
//     generators:                  # Poisson arrivals, names unique
//     - {kind: Poisson, name, count, meanInterarrival, start, mix: [JobClass...]}
//
// A role's resources take the spellings every file kind shares (engine/config/
// resource_fields.hpp): cpu and memory required, gpu whole GPUs or a share of one ("0.5").
//
// Semantic checks, each reported at the offending field: roles valid for the framework
// (PyTorch: Master, Worker; TensorFlow: PS, Chief, Worker, Evaluator; MPI: Launcher, Worker)
// with one Master/Chief/Launcher, every pod fitting some node class, a job's gpuType present on
// some node class, gpus % gpusPerPod == 0, weights > 0, explicit job names not of the form
// "<generator>-<digits>", a gang even the empty cluster cannot hold (sim/gang_fit.hpp), a job
// whose compute alone would end after kLatestTime, at most 1,000,000 jobs in all.
//
// Errors are recorded in `errors` and reading goes on. A check that needs values which could
// not be read (a job's gang when one of its roles is wrong, anything about the cluster when
// the cluster had errors: ctx.topology_ok) is skipped, so one mistake is reported once.

#include "engine/cluster/topology.hpp"
#include "engine/config/config_errors.hpp"
#include "engine/config/reader.hpp"
#include "sim/gang_fit.hpp"
#include "sim/scenario_spec.hpp"

namespace gantry {

struct WorkloadContext {
  const Topology& topology;
  Time start;               // the scenario's start: submit and start offsets count from it
  bool topology_ok = true;  // false: the cluster had errors, so checks against it are skipped
  std::vector<int64_t> nodes_of = nodes_per_class(topology);  // for gang_misfit
};

WorkloadSpec read_workload(const ConfigNode& node, const WorkloadContext& ctx,
                           ConfigErrors& errors);

}  // namespace gantry
