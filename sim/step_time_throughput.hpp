#pragma once
// The simulated world's ThroughputModel (engine/policy/elastic/throughput_model.hpp): steps per
// second from the step-time model (step_time.hpp), for the goodput elasticity policy.
//
// The policy asks about sizes, not placements, so the job is placed in thought, compactly:
//   - GPU model: the first model of the catalog (in id order) that the job allows
//     (JobSpec::allowed_gpu_models(); empty: any) and that some present node has;
//   - nodes: the present nodes of that model in id order, by capacity (what runs there now is
//     ignored); pods in pod order (the fixed roles as specified, then `workers` Workers), each
//     on the current node while it has enough GPUs left (its lowest ones), else on the next;
//     a share pod takes one GPU, a pod without GPUs stays on the current node with none.
//   - steps per second = 1 / step_time(...).total in seconds.
// 0 ("unknown") when the pods do not fit the cluster's capacity this way, no node has an
// allowed model, or the step time is 0.

#include "engine/policy/elastic/throughput_model.hpp"

namespace gantry {

class StepTimeThroughput final : public ThroughputModel {
 public:
  double steps_per_second(const Cluster& cluster, const JobSpec& job, int workers) const override;
};

}  // namespace gantry
