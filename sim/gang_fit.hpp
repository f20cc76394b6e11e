#pragma once
// Whether a gang job could ever start on a cluster (issue 8: a 1,024-GPU job on a 256-GPU
// cluster waited forever, and under StrictFIFO held every job behind it).
//
// A gang starts only when all its pods are placed at once, so a job that even the empty
// cluster cannot hold never starts. gang_misfit() checks two necessary conditions on the
// empty cluster: every role's pods fit the nodes that can hold that shape (counting how many
// such pods each node holds), and the job's total CPU, memory and GPUs (of its type) fit the
// cluster's totals. Passing them does not promise a placement (that is bin packing, decided
// by the scheduler), but failing one proves there is none.
//
// Cost: O(roles × node classes) per job, after nodes_per_class() once per cluster (a file of
// thousands of jobs on 100,000 nodes must not cost 10^9 steps to load).

#include <string>
#include <vector>

#include "engine/cluster/job.hpp"
#include "engine/cluster/topology.hpp"

namespace gantry {

// Nodes per node class (index = class), the one O(nodes) part: compute it once per cluster.
std::vector<int64_t> nodes_per_class(const Topology& topology);

// "" when the job may fit; otherwise what does not, e.g. "5 Worker pods of cpu 8000m, memory
// 64Gi, gpu 8, but the whole cluster holds at most 4 of them at once" or "1024 GPUs of type
// A100-80G at once, but the cluster has 256". `type` < 0: GPU pods may use any GPU type.
// `nodes_of` is nodes_per_class(topology). O(roles × node classes).
std::string gang_misfit(const Topology& topology, const std::vector<int64_t>& nodes_of,
                        const std::vector<RoleSpec>& roles, GpuTypeId type);

// "cpu 8000m, memory 64Gi, gpu 8" (or "gpu 0.5" for a share of one GPU): a pod's request as
// the messages above show it.
std::string describe_request(const Resources& r);

}  // namespace gantry
