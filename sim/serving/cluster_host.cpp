#include "sim/serving/cluster_host.hpp"

#include <cassert>

#include "sim/serving/service_run.hpp"

namespace gantry {

JobSpec replica_job(const std::string& service, const PredictorSpec& predictor, int32_t replica) {
  JobSpec job;
  job.name = service + "-" + predictor.name + "-" + std::to_string(replica);
  job.tenant = service;
  job.gpu_type = predictor.gpu_type;
  job.roles = {RoleSpec{RoleKind::kWorker, 1, predictor.resources}};
  // Work without an end: a replica runs until it is removed (its end saturates past
  // kLatestTime, where the world schedules nothing).
  job.work.steps = INT64_MAX / 4;
  job.work.step_compute_ref = seconds(1);
  job.serving_replica = true;
  return job;
}

ClusterHost::ClusterHost(TrainingWorld& world, std::function<void()> changed)
    : world_(world), changed_(std::move(changed)) {
  world_.on_running([this](JobId id) { running(id); });
  world_.on_evicted([this](JobId id) { evicted(id); });
}

void ClusterHost::create(ServiceRun& run, int32_t replica, const PredictorSpec& predictor,
                         Time /*now*/) {
  const JobId id = world_.submit(replica_job(run.spec().name, predictor, replica));
  owners_[id] = Owner{&run, replica};
  jobs_[{&run, replica}] = id;
}

void ClusterHost::release(ServiceRun& run, int32_t replica, Time /*now*/) {
  const auto it = jobs_.find({&run, replica});
  if (it == jobs_.end()) return;
  const JobId id = it->second;
  jobs_.erase(it);
  owners_.erase(id);
  [[maybe_unused]] const Status withdrawn = world_.withdraw(id);
  assert(withdrawn && "a replica's job is withdrawn once, while it is queued or placed");
}

std::vector<int32_t> ClusterHost::likely_nodes(const PredictorSpec& predictor, int count) {
  const Cluster& cluster = world_.cluster();
  const GpuTypeId type =
      predictor.gpu_type.empty() ? GpuTypeId{-1} : cluster.topology().gpus.find(predictor.gpu_type);
  std::vector<int32_t> out;
  for (NodeId n = 0; n < cluster.node_count() && static_cast<int>(out.size()) < count; ++n) {
    if (type >= 0 && cluster.gpu_type_of(n) != type) continue;
    if (predictor.resources.fits_in(cluster.free(n))) out.push_back(n);
  }
  return out;
}

void ClusterHost::running(JobId id) {
  const auto it = owners_.find(id);
  if (it == owners_.end()) return;  // a training job
  const JobLog& job = world_.log().jobs[static_cast<size_t>(id)];
  assert(!job.pods.empty());
  it->second.run->on_placed(it->second.replica, job.pods.front().node, world_.loop().now());
  if (changed_) changed_();
}

void ClusterHost::evicted(JobId id) {
  const auto it = owners_.find(id);
  if (it == owners_.end()) return;  // a training job, or a replica being released
  it->second.run->on_lost(it->second.replica, world_.loop().now());
  if (changed_) changed_();
}

}  // namespace gantry
