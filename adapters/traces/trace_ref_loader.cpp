#include "adapters/traces/trace_ref_loader.hpp"

#include "adapters/traces/openb.hpp"
#include "adapters/traces/openb_jobs.hpp"
#include "adapters/traces/pai_machines.hpp"
#include "adapters/traces/spot_nodes.hpp"

namespace gantry {

Topology load_trace_topology(const TraceRef& ref) {
  if (ref.format == "openb-nodes") return load_openb_nodes(ref.path);
  if (ref.format == "pai-machines") return load_pai_machines(ref.path);
  if (ref.format == "spot-nodes") return load_spot_nodes(ref.path);
  throw InputError(ref.where, "format", "'" + ref.format + "' does not describe nodes");
}

std::vector<JobSpec> load_trace_pods(const TraceRef& ref) {
  if (ref.format == "openb-pods") return openb_pods_as_jobs(load_openb_pods(ref.path));
  throw InputError(ref.where, "format", "'" + ref.format + "' does not describe pods");
}

}  // namespace gantry
