#pragma once
// Workload generators: turn a WorkloadSpec (sim/scenario_spec.hpp) into the list of jobs a
// simulation submits.
//
// Determinism (DESIGN.md rule 4): every generator draws from its own named stream
// "workload/<generator name>", so adding, removing or reordering generators never changes the
// jobs of another. Generator names should therefore be unique in a workload (two generators
// with one name would draw the same sequence); the scenario loader is expected to check this.
//
// Draw order, per job i = 0 .. count−1 (changing it changes every result):
//   1. the inter-arrival gap, exponential with mean spec.mean_interarrival;
//   2. the job class, mix index drawn with probability weight / Σ weights;
//   3. the number of steps, uniform integer in [class.steps.min, class.steps.max] (drawn even
//      when min == max, so the stream's consumption never depends on the ranges); for a class
//      with steps.mean, one exponential draw with that mean instead, rounded and kept within
//      [steps.min, steps.max].

#include <cstdint>
#include <vector>

#include "engine/cluster/job.hpp"
#include "engine/core/random.hpp"
#include "engine/core/time.hpp"
#include "sim/scenario_spec.hpp"

namespace gantry {

// Appends the `spec.count` jobs of one Poisson generator to `out`, in submit order.
//
// Arrivals: job i is submitted at scenario_start + spec.start + (g_0 + ... + g_i), where the
// g_k are the exponential gaps; the sum is kept in double seconds and rounded to microseconds
// once per job, so rounding never accumulates; a sum past the representable range saturates
// at Time::max() instead of wrapping (the world never runs events past kLatestTime, so such a
// job stays queued and is reported so). (A Poisson process started at `start`: the
// first job arrives one gap after it, not at it.) mean_interarrival <= 0 submits every job at
// scenario_start + spec.start and draws no gaps.
//
// Shape of the job drawn from class c, with pods = c.gpus / c.gpus_per_pod and every GPU pod
// requesting {c.cpu_milli_per_gpu · gpus_per_pod, c.memory_bytes_per_gpu · gpus_per_pod,
// gpus_per_pod}:
//   - PyTorch:    Master ×1 + Worker ×(pods − 1), same shape (PyTorchJob: the master is rank 0
//                 and trains; workers start once it runs). The Worker role is left out when
//                 pods == 1.
//   - MPI:        Launcher ×1 {1000 milli-CPU, 2 GiB, 0 GPUs} + Worker ×pods (MPIJob: the
//                 launcher only runs mpirun).
//   - TensorFlow: Worker ×pods only (MultiWorkerMirroredStrategy, all-reduce; no PS, and no
//                 Chief: the TFJob operator then treats worker 0 as chief).
// Name "<spec.name>-<i>", i zero-padded to the digits of count − 1 ("gen-007" for count 1000).
// The class's priority, tenant, gpu_type and framework are copied, and the work is
// {steps, step_compute_ref, gradient_bytes, input_bytes_per_step}.
//
// Preconditions (the scenario loader validates them; asserted here): mix is non-empty when
// count > 0, weights are non-negative with a positive sum, 1 <= gpus_per_pod, gpus is a
// positive multiple of gpus_per_pod, steps.min <= steps.max. count <= 0 appends nothing.
void generate_poisson(const PoissonGeneratorSpec& spec, Time scenario_start, RandomStream& rng,
                      std::vector<JobSpec>& out);

// Every job of a workload: the explicit jobs (submit times are absolute, kept as they are)
// followed by each generator's jobs, generator g drawing from streams.stream("workload/" +
// g.name). Sorted by submit time; ties keep this order: explicit jobs first in list order, then
// generators in list order, each generator's jobs by index (a stable sort).
std::vector<JobSpec> build_workload(const WorkloadSpec& w, Time scenario_start,
                                    const RandomStreams& streams);

}  // namespace gantry
