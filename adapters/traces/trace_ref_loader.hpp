#pragma once
// Loads what a scenario's trace reference (sim/fragmentation_spec.hpp, TraceRef) names, by
// format: a cluster from a node list, or pods from a pod list; and the readers a scenario is
// loaded with (sim/trace_loaders.hpp).

#include <vector>

#include "engine/cluster/job.hpp"
#include "engine/cluster/topology.hpp"
#include "sim/fragmentation_spec.hpp"
#include "sim/trace_loaders.hpp"

namespace gantry {

// openb-nodes, pai-machines or spot-nodes. Throws InputError (bad rows, or a format that does
// not describe nodes, at the reference's position) or FileError.
Topology load_trace_topology(const TraceRef& ref);

// openb-pods, as one single-pod job per pod (openb_jobs.hpp). Throws like load_trace_topology.
std::vector<JobSpec> load_trace_pods(const TraceRef& ref);

// load_trace_topology, and the Azure LLM request trace of a service's load
// (azure_llm_trace.hpp). The requests reader keeps what it read, by file and speedup, for as
// long as any copy of the returned loaders lives: the variants of a sweep or a plan, each
// loaded from the same base, hold one copy of its traces. Safe to call from several threads.
TraceLoaders trace_loaders();

}  // namespace gantry
