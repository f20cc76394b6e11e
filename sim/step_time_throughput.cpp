#include "sim/step_time_throughput.hpp"

#include <algorithm>

#include "sim/step_time.hpp"

namespace gantry {

double StepTimeThroughput::steps_per_second(const Cluster& cluster, const JobSpec& job,
                                            int workers) const {
  if (job.roles.empty() || workers < 0) return 0;
  const Topology& topo = cluster.topology();
  const std::vector<std::string> allowed = job.allowed_gpu_models();
  const auto allows = [&](GpuTypeId t) {
    return allowed.empty() ||
           std::any_of(allowed.begin(), allowed.end(),
                       [&](const std::string& n) { return topo.gpus.find(n) == t; });
  };
  // The first allowed model some present node has.
  GpuTypeId type = -1;
  for (GpuTypeId t = 0; t < static_cast<GpuTypeId>(topo.gpus.size()) && type < 0; ++t) {
    if (!allows(t)) continue;
    for (NodeId n = 0; n < cluster.node_count() && type < 0; ++n)
      if (!cluster.removed(n) && cluster.gpu_type_of(n) == t && cluster.gpu_count(n) > 0) type = t;
  }
  if (type < 0) return 0;
  std::vector<NodeId> nodes;
  for (NodeId n = 0; n < cluster.node_count(); ++n)
    if (!cluster.removed(n) && cluster.gpu_type_of(n) == type) nodes.push_back(n);

  // Pods in pod order: the fixed roles as specified, then `workers` Workers.
  std::vector<Resources> pods;
  for (size_t r = 0; r + 1 < job.roles.size(); ++r)
    pods.insert(pods.end(), static_cast<size_t>(job.roles[r].replicas), job.roles[r].per_replica);
  pods.insert(pods.end(), static_cast<size_t>(workers), job.roles.back().per_replica);

  std::vector<PodPlacement> placed;
  size_t at = 0;
  int used = 0;  // GPUs of nodes[at] already given
  for (const Resources& pod : pods) {
    const int gpus = pod.gpus > 0 ? pod.gpus : (pod.shares_gpu() ? 1 : 0);
    while (at < nodes.size() && used + gpus > cluster.gpu_count(nodes[at])) {
      ++at;
      used = 0;
    }
    if (at == nodes.size()) return 0;
    const uint64_t mask =
        gpus == 0 ? 0 : (gpus >= 64 ? ~uint64_t{0} : ((uint64_t{1} << gpus) - 1) << used);
    placed.push_back(PodPlacement{nodes[at], mask});
    used += gpus;
  }
  const double s = step_time(topo, job, placed).total.seconds();
  return s > 0 ? 1 / s : 0;
}

}  // namespace gantry
