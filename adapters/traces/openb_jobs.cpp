#include "adapters/traces/openb_jobs.hpp"

#include <cassert>

#include "adapters/traces/openb_gpu_request.hpp"

namespace gantry {

std::vector<JobSpec> openb_pods_as_jobs(const std::vector<TracePod>& pods) {
  std::vector<JobSpec> jobs;
  jobs.reserve(pods.size());
  for (const TracePod& pod : pods) {
    const std::optional<Resources> gpu = openb_gpu_request(pod.num_gpu, pod.gpu_milli);
    assert(gpu && "the importer validates num_gpu and gpu_milli");
    JobSpec job;
    job.name = pod.name;
    job.framework = Framework::kPyTorch;
    Resources request = gpu.value_or(Resources{});
    request.cpu_milli = pod.cpu_milli;
    request.memory_bytes = pod.memory_bytes;
    job.roles.push_back(RoleSpec{RoleKind::kWorker, 1, request});
    job.gpu_types = pod.gpu_models;
    jobs.push_back(std::move(job));
  }
  return jobs;
}

}  // namespace gantry
