#pragma once
// A ReplicaHost with as many nodes as needed: every node has `gpus_per_node` GPUs of the
// replica's GPU model, and a replica goes to the lowest-numbered node with room (first fit),
// at once. Used where the cluster is not the question: spec tuning, benchmarks, a service
// simulated alone. Released capacity is reused, so a replica created after a scale-down lands
// where an earlier one ran — and finds its model in that node's cache.

#include <map>
#include <string>
#include <vector>

#include "sim/serving/replica_host.hpp"

namespace gantry {

class FirstFitHost final : public ReplicaHost {
 public:
  explicit FirstFitHost(int gpus_per_node = 8) : gpus_per_node_(gpus_per_node) {}

  void create(ServiceRun& run, int32_t replica, const PredictorSpec& predictor, Time now) override;
  void release(ServiceRun& run, int32_t replica, Time now) override;
  std::vector<int32_t> likely_nodes(const PredictorSpec& predictor, int count) override;

  int nodes() const { return static_cast<int>(nodes_.size()); }

 private:
  struct Node {
    std::string gpu_type;
    std::vector<int> free_milli;  // per GPU
  };
  struct Holding {
    int32_t node = -1;
    std::vector<std::pair<int, int>> gpus;  // (GPU index, milli)
  };
  bool fits(const Node& n, const Resources& r, Holding* take) const;

  int gpus_per_node_;
  std::vector<Node> nodes_;
  std::map<std::pair<const ServiceRun*, int32_t>, Holding> held_;
};

}  // namespace gantry
