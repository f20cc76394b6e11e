#pragma once
// Reading a Scenario's `spec.failures` block into a FaultSpec (sim/fault_spec.hpp): random
// failures of GPUs, nodes and racks, and scheduled maintenance.
//
//   failures:
//     preset: llama3            # optional: the Llama 3 H100 processes (llama3_h100_processes),
//                               # which apply to H100 nodes only (an error on a cluster
//                               # without one); none (the default): no preset
//     processes:                # optional list
//     - component: gpu          # required: gpu | node | rack
//       gpuModel: H100          # optional: only nodes of this GPU model (gpu_model_matches:
//                               # any case; "H100" covers "H100-80G"); absent: every node
//       mtbf: 3597d             # exponential time to failure with this mean; or:
//       timeToFailure: {distribution: exponential, mtbf: 3597d}
//       timeToFailure: {distribution: weibull, shape: 0.7, scale: 400d}
//       timeToFailure: {distribution: weibull, shape: 0.7, mtbf: 600d}  # scale = mtbf/Γ(1+1/shape)
//       repair: 6h              # required: a fixed time, or
//       repair: {distribution: exponential, mean: 2h}   # or {distribution: fixed, duration: 6h}
//       cause: GPU              # optional; default: GPU, node or rack after the component
//     maintenance:              # optional list
//     - nodes: all              # which nodes: all, or a list of node names [n1, n2]; or
//       rack: rack-3            #   every node of one rack (exactly one of nodes and rack)
//       start: 24h              # optional, default 0s: the first round, from the scenario start
//       every: 7d               # optional: a round every 7 days; absent: one round
//       deadline: 2h            # optional, default 0s: how long jobs may go on before eviction
//       duration: 4h            # required: the node's time out of service once empty
//       concurrent: 8           # optional: nodes drained at a time; absent: all at once
//
// The rolling schedule is MaintenanceSpec's: within a round node i is drained
// at round start + (i / concurrent)·(deadline + duration), the nodes taken by id (all, a rack)
// or as listed.
//
// A process of the file with the same component and gpuModel (any case) as a preset process
// replaces it, so `preset: llama3` plus `{component: gpu, gpuModel: H100, ...}` keeps the
// preset's node process and takes the file's GPU figures. Preset processes kept come first,
// then the file's in file order (the order names the processes' random streams).
//
// Errors (recorded in `errors`, reading goes on): unknown keys, bad durations, an MTBF, scale
// or repair time of zero, a Weibull shape outside [0.1, 100], both or neither of mtbf and
// timeToFailure, both or neither of scale and mtbf in a Weibull, a gpuModel no node of the
// cluster has (the catalog's other models would break nothing), `preset: llama3` on a cluster
// without an H100 node (its rates are the paper's H100 rates; to use them for other GPUs,
// write the two processes out without gpuModel), unknown or repeated node names, an unknown rack,
// both or neither of nodes and rack, and a round that takes longer than `every` (ceil(nodes /
// concurrent)·(deadline + duration) > every: the next round would start before the last batch is
// back). GPU models, node and rack names, and the round's length are checked only when the cluster
// was read without errors (`topology_ok`); otherwise the spec's maintenance targets are left empty.

#include "engine/cluster/topology.hpp"
#include "engine/config/config_errors.hpp"
#include "engine/config/reader.hpp"
#include "sim/fault_spec.hpp"

namespace gantry {

// Typo guards: far above real settings, low enough that a shape's Γ(1 + 1/shape) (3.6 million
// at 0.1) leaves a scale of whole microseconds and that a list of drains stays small.
inline constexpr double kMinWeibullShape = 0.1;
inline constexpr double kMaxWeibullShape = 100;
inline constexpr int64_t kMaxFailureProcesses = 1000;
inline constexpr int64_t kMaxMaintenanceEntries = 1000;

// Reads `node` (spec.failures).
FaultSpec read_failures(const ConfigNode& node, const Topology& topology, bool topology_ok,
                        ConfigErrors& errors);

}  // namespace gantry
