#pragma once
// A ReplicaHost on the simulated cluster: each replica is a one-pod job submitted to the
// scenario's TrainingWorld, so the scheduler places it with the scenario's placement policy
// (GPU shares go through the GPU-sharing plugins: FGD and the others) among the training jobs,
// in the same queue. The replica is placed when its pod runs (bind + sim.podStartup), and its
// cold start begins then; removing it withdraws the job, which frees its GPUs.
//
// A replica's job never finishes on its own (its work has no end) and is marked
// JobSpec::serving_replica so training reports leave it out. If the world evicts it (a node or
// GPU failure, a drain, a preemption) the run is told at once (ServiceRun::on_lost: it takes
// no more requests there) and the scheduler places it again: on_placed() once more.

#include <functional>
#include <map>
#include <unordered_map>

#include "sim/serving/replica_host.hpp"
#include "sim/training_world.hpp"

namespace gantry {

class ClusterHost final : public ReplicaHost {
 public:
  // Listens to the world's on_running and on_evicted (for its replicas' jobs only).
  // `changed` is called after every placement, so the driver can reschedule its wake-up.
  ClusterHost(TrainingWorld& world, std::function<void()> changed);

  void create(ServiceRun& run, int32_t replica, const PredictorSpec& predictor, Time now) override;
  void release(ServiceRun& run, int32_t replica, Time now) override;
  // Nodes of the predictor's GPU model where its pod fits now, in the cluster's node order.
  std::vector<int32_t> likely_nodes(const PredictorSpec& predictor, int count) override;
  bool may_lose_replicas() const override { return true; }

 private:
  struct Owner {
    ServiceRun* run;
    int32_t replica;
  };
  void running(JobId id);
  void evicted(JobId id);

  TrainingWorld& world_;
  std::function<void()> changed_;
  std::unordered_map<JobId, Owner> owners_;
  std::map<std::pair<const ServiceRun*, int32_t>, JobId> jobs_;
};

// The job a replica becomes: one Worker pod with the predictor's resources and GPU model.
JobSpec replica_job(const std::string& service, const PredictorSpec& predictor, int32_t replica);

}  // namespace gantry
