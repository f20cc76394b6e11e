#pragma once
// The readers of public trace files a scenario may name. sim/ cannot read trace formats itself
// (adapters/traces depends on sim/, not the other way round), so whoever loads a scenario
// passes them: adapters/traces/trace_ref_loader.hpp's trace_loaders(), or a confined or fake
// one (the server's what-ifs, tests). A scenario that names a trace its caller gave no reader
// for is an error at its field.

#include <functional>
#include <memory>
#include <vector>

#include "engine/cluster/service_spec.hpp"
#include "engine/cluster/topology.hpp"
#include "sim/fragmentation_spec.hpp"
#include "sim/serving/request_source.hpp"

namespace gantry {

// The cluster of `cluster.trace` (a node list of a public trace).
using ClusterTraceLoader = std::function<Topology(const TraceRef&)>;

// The rows of a service's request trace (a load of kind trace: LoadSpec::trace_file, speedup);
// shared, so the variants of a sweep may hold one copy.
using RequestTrace = std::shared_ptr<const std::vector<TraceRequest>>;
using RequestTraceLoader = std::function<RequestTrace(const LoadSpec&)>;

// Each throws InputError (a bad row, at its line and column) or FileError.
struct TraceLoaders {
  ClusterTraceLoader topology;  // spec.cluster.trace
  RequestTraceLoader requests;  // spec.workload.services[].load.trace
};

}  // namespace gantry
