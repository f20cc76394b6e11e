#include "adapters/traces/trace_ref_loader.hpp"

#include <map>
#include <mutex>
#include <utility>

#include "adapters/traces/azure_llm_trace.hpp"
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

TraceLoaders trace_loaders() {
  struct ReadTraces {
    std::mutex mutex;
    std::map<std::pair<std::string, double>, RequestTrace> by_file_and_speedup;
  };
  auto read = std::make_shared<ReadTraces>();
  return {.topology = load_trace_topology, .requests = [read](const LoadSpec& load) {
            const auto key = std::make_pair(load.trace_file, load.speedup);
            {
              const std::lock_guard lock(read->mutex);
              if (auto it = read->by_file_and_speedup.find(key);
                  it != read->by_file_and_speedup.end())
                return it->second;
            }
            // Read outside the lock: two threads may read one file at once, and keep one copy.
            RequestTrace rows = load_request_trace(load);
            const std::lock_guard lock(read->mutex);
            return read->by_file_and_speedup.emplace(key, std::move(rows)).first->second;
          }};
}

}  // namespace gantry
