#pragma once
// The training step-time model (DESIGN.md, "Models the simulator must get right").
//
//   step = compute + all-reduce + input stall
//
// Everything below is a pure function of the static topology, the job and where its pods
// landed; nothing depends on what else runs in the cluster (see "Not modelled").
//
// ## Terms
//
// GPU pods are the pods with a non-zero gpu_mask; CPU-only pods (a PyTorch launcher, an MPI
// launcher, a TF parameter server with no GPU) take no part in compute or the all-reduce.
// The job's GPU nodes are the distinct nodes holding its GPU pods; a node's job GPUs are the
// union of the masks of the job's pods on that node.
//
// ## Compute
//
//   compute = work.step_compute_ref / r_min · n_spec / n
//
// n_spec = the GPUs the job's spec asks for (a share pod counts one) and n = the GPUs its pods
// hold (below): strong scaling, the global batch of a step is sized for the job as specified,
// so a gang placed smaller (partial admission, a scale-in) takes longer per step and a larger
// one (a scale-out) less.
//
// r_min = the smallest GpuType::relative_compute over the job's GPU nodes: data-parallel
// workers wait for each other at every all-reduce, so the slowest GPU type sets the pace.
// A job with no GPU pod computes at the reference speed (r_min = 1).
//
// ## All-reduce (ring)
//
//   n = Σ popcount(gpu_mask) over the job's pods
//   all-reduce = 0                                         if n <= 1 or S = 0
//              = 2(n−1)/n · S/B + 2(n−1)·α                 otherwise
//
// with S = work.gradient_bytes. Every step of a ring is synchronous (each rank sends one chunk
// to its neighbour, then all wait), so each of the 2(n−1) steps runs at the pace of the slowest
// hop: B is the smallest per-direction bandwidth any hop of the ring sees, and α the latency of
// the slowest kind of hop. B and α are picked as follows.
//
// The intra-node link of one node, given the job's GPUs on it:
//   - all of them in one island (island = gpu_index / island_size):
//       NVSwitch/NVLink island: bw = island_bytes_per_s, α = intra_latency.nvlink_s
//       PCIe island:            bw = pcie_bytes_per_s,   α = intra_latency.pcie_s
//   - spread over several islands: bw = pcie_bytes_per_s, α = intra_latency.pcie_s
//   (island_size <= 0 counts the whole node as one island.)
//
// One node:     B = that node's intra-node link bw; α = its α.
// Several nodes:
//   N = min over the job's GPU nodes of nic_bytes_per_s, divided by
//       fabric.rack_oversubscription if those nodes sit in more than one rack;
//   I = min over the job's GPU nodes holding >= 2 of its GPUs of their intra-node link bw
//       (a node with one job GPU has no intra-node hop in the ring);
//   B = min(N, I); α = fabric.latency_s.
//   N is the whole NIC bandwidth of a node, not a per-GPU share: a ring crosses each node
//   boundary once per direction, so one ring sees one NIC's bandwidth; NCCL runs one ring per
//   NIC, each carrying 1/k of the data, which adds up to the same as one ring over the
//   aggregate NIC bandwidth. All 2(n−1) steps are charged the fabric latency, the slowest hop
//   (an upper bound: a ring over m nodes has only 2m inter-node hops, but the steps are
//   synchronous, so every step waits for the slowest one).
//
// Worked example: two nodes of 8 A100s (NVSwitch 300 GB/s, NIC 100 GB/s) on InfiniBand with
// α = 5 µs, in two racks with 3:1 oversubscription, S = 1 GB:
//   n = 16, N = 100e9 / 3 = 33.33e9, I = 300e9, B = 33.33e9 B/s
//   all-reduce = 2·15/16 · 1e9 / 33.33e9 s + 30 · 5 µs = 56.25 ms + 0.15 ms = 56.40 ms
//   bottleneck = "InfiniBand, rack-crossing 3:1"
//
// ## Input stall
//
//   B_in  = min(storage.bytes_per_s, Σ nic_bytes_per_s over the job's GPU nodes)
//   stall = max(0, input_bytes_per_step / B_in − (compute + all-reduce))
//
// The next step's input is prefetched while the current step computes and communicates (as
// tf.data prefetch and the PyTorch DataLoader do), so only what does not fit in that window
// stalls the step. A term of B_in that is <= 0 counts as unlimited (not configured); if both
// are, there is no stall. A job with no GPU pod reads through the NICs of all its pods' nodes.
// When the stall is positive, total = input_bytes_per_step / B_in (rounded): the step is
// input-bound.
//
// ## Rounding
//
// compute, all-reduce and stall are each rounded to the nearest microsecond
// (Duration::from_seconds); the stall is computed from the already rounded compute and
// all-reduce; total is their exact sum. Sums saturate at Duration::max() (e.g. a zero
// bandwidth on a link the ring needs gives Duration::max(), not undefined behaviour).
//
// ## Not modelled (yet)
//
// Contention with other jobs (shared NICs, rack uplinks, the remote store), compute/
// communication overlap (bucketed all-reduce during the backward pass), tree or hierarchical
// all-reduce algorithms, dataset caches, and pipeline/tensor parallelism.

#include <cstdint>
#include <string>
#include <vector>

#include "engine/cluster/job.hpp"
#include "engine/cluster/topology.hpp"
#include "engine/core/time.hpp"

namespace gantry {

struct StepTime {
  Duration compute;
  Duration allreduce;
  Duration input_stall;
  Duration total;                     // compute + allreduce + input_stall (saturating)
  int ring_size = 0;                  // n: GPUs taking part in the all-reduce
  double bottleneck_bytes_per_s = 0;  // B; 0 when there is no all-reduce (n <= 1)
  double latency_s = 0;               // α used; 0 when there is no all-reduce
  // The link that sets B: "NVSwitch", "NVLink", "PCIe" inside a node; "InfiniBand", "RoCE",
  // "TCP" between nodes, with ", rack-crossing 3:1" appended when the ring crosses racks;
  // "none" when there is no all-reduce.
  std::string bottleneck;
};

// The step time of `job` placed as `pods`.
// `pods` has one PodPlacement per pod the job runs, in the job's pod order (role by role,
// replica by replica; see JobSpec): its spec's pods, or after a resize (ResizeAction) more or
// fewer pods of its last role. Every node id must be valid in `topo` and every GPU pod's
// node must have a GPU type (asserted). Pure function; never fails.
StepTime step_time(const Topology& topo, const JobSpec& job, const std::vector<PodPlacement>& pods);

// Time to run `steps` steps: steps × step.total, in integer microseconds, saturating at
// Duration::max() instead of overflowing. steps <= 0 gives zero.
Duration job_run_time(const StepTime& step, int64_t steps);

}  // namespace gantry
