#pragma once
// openb pods as the scheduler sees them: each pod becomes a one-pod job (a gang of one) whose
// request is openb_gpu_request(num_gpu, gpu_milli) (openb_gpu_request.hpp) and whose
// allowed GPU models come from gpu_spec.

#include <vector>

#include "adapters/traces/openb.hpp"
#include "engine/cluster/job.hpp"

namespace gantry {

// Jobs named like the pods, in the same order, all submitted at the epoch (the fragmentation
// experiment ignores trace times). The importer has already rejected requests that have no
// mapping, so every pod converts.
std::vector<JobSpec> openb_pods_as_jobs(const std::vector<TracePod>& pods);

}  // namespace gantry
