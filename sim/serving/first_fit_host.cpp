#include "sim/serving/first_fit_host.hpp"

#include "sim/serving/service_run.hpp"

namespace gantry {

bool FirstFitHost::fits(const Node& n, const Resources& r, Holding* take) const {
  take->gpus.clear();
  if (r.shares_gpu()) {
    for (size_t g = 0; g < n.free_milli.size(); ++g) {
      if (n.free_milli[g] >= r.gpu_milli) {
        take->gpus.emplace_back(static_cast<int>(g), r.gpu_milli);
        return true;
      }
    }
    return false;
  }
  for (size_t g = 0; g < n.free_milli.size() && static_cast<int>(take->gpus.size()) < r.gpus; ++g)
    if (n.free_milli[g] == kMilliPerGpu) take->gpus.emplace_back(static_cast<int>(g), kMilliPerGpu);
  return static_cast<int>(take->gpus.size()) >= r.gpus;
}

void FirstFitHost::create(ServiceRun& run, int32_t replica, const PredictorSpec& predictor,
                          Time now) {
  Holding h;
  size_t i = 0;
  for (; i < nodes_.size(); ++i)
    if (nodes_[i].gpu_type == predictor.gpu_type && fits(nodes_[i], predictor.resources, &h)) break;
  if (i == nodes_.size()) {
    nodes_.push_back(Node{predictor.gpu_type,
                          std::vector<int>(static_cast<size_t>(gpus_per_node_), kMilliPerGpu)});
    fits(nodes_.back(), predictor.resources, &h);
  }
  h.node = static_cast<int32_t>(i);
  for (auto [g, milli] : h.gpus) nodes_[i].free_milli[static_cast<size_t>(g)] -= milli;
  held_[{&run, replica}] = h;
  run.on_placed(replica, h.node, now);
}

void FirstFitHost::release(ServiceRun& run, int32_t replica, Time /*now*/) {
  const auto it = held_.find({&run, replica});
  if (it == held_.end()) return;
  for (auto [g, milli] : it->second.gpus)
    nodes_[static_cast<size_t>(it->second.node)].free_milli[static_cast<size_t>(g)] += milli;
  held_.erase(it);
}

std::vector<int32_t> FirstFitHost::likely_nodes(const PredictorSpec& predictor, int count) {
  // First fit fills the lowest-numbered nodes of the model first: those that exist with room,
  // then new ones (added now, empty, so they are the next to be used).
  std::vector<int32_t> out;
  Holding h;
  for (size_t i = 0; i < nodes_.size() && static_cast<int>(out.size()) < count; ++i)
    if (nodes_[i].gpu_type == predictor.gpu_type && fits(nodes_[i], predictor.resources, &h))
      out.push_back(static_cast<int32_t>(i));
  while (static_cast<int>(out.size()) < count) {
    out.push_back(static_cast<int32_t>(nodes_.size()));
    nodes_.push_back(Node{predictor.gpu_type,
                          std::vector<int>(static_cast<size_t>(gpus_per_node_), kMilliPerGpu)});
  }
  return out;
}

}  // namespace gantry
