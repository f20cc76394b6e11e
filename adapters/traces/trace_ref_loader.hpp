#pragma once
// Loads what a scenario's trace reference (sim/fragmentation_spec.hpp, TraceRef) names, by
// format: a cluster from a node list, or pods from a pod list.

#include <vector>

#include "engine/cluster/job.hpp"
#include "engine/cluster/topology.hpp"
#include "sim/fragmentation_spec.hpp"

namespace gantry {

// openb-nodes, pai-machines or spot-nodes. Throws InputError (bad rows, or a format that does
// not describe nodes, at the reference's position) or FileError.
Topology load_trace_topology(const TraceRef& ref);

// openb-pods, as one single-pod job per pod (openb_jobs.hpp). Throws like load_trace_topology.
std::vector<JobSpec> load_trace_pods(const TraceRef& ref);

}  // namespace gantry
