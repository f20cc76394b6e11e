#pragma once
// "fgd": Fragmentation Gradient Descent (Weng et al., "Beware of Fragmentation: Scheduling
// GPU-Sharing Workloads with Fragmentation Gradient Descent", USENIX ATC'23, §4.2). Each pod
// goes where it makes the cluster's GPU fragmentation grow least.
//
// Fragmentation is measured for a target workload of typical pods (set_target_workload(),
// typical_pod_classes() builds one from a pod list); fragmentation.hpp defines F_n exactly.
//
// Score (higher is better): the authors' integer score (fgd_score.hpp, following
// hkust-adsl/kubernetes-scheduler-simulator, pkg/simulator/plugin/fgd_score.go)
//   score = floor(100 · sigmoid(−ΔF / 1000 milli-GPU)),  ΔF = F_n(after) − F_n(before)
// with the pod placed on its best GPU(s) of that node; ties go to the lowest node id (the
// authors' fork of the Kubernetes framework breaks ties by the smallest node name).
// GPUs inside the node: for a share pod the GPU with the highest score, ties to the lowest GPU
// (FragmentationModel::best_move() with the score); whole-GPU pods the lowest-numbered fully
// free GPUs. GPU-less pods are scored too (their CPU can make classes stop fitting); on nodes
// without GPUs their ΔF is 0. Without a target workload every ΔF is 0 and FGD degenerates to
// "lowest feasible node id" (with the best-fit GPU for a share).
//
// Speed: placing one pod reads one cached (ΔF, GPUs) per candidate node. The cache holds, per
// pod request class (CPU, whole GPUs, share) and node, the answer and the Cluster::version()
// of the node it was computed at; since one placement changes one node, a pod recomputes only
// the nodes changed since its class was last seen, each in O(GPUs per node). The cache is
// cleared when the workload or the cluster changes, and when more than kMaxCachedClasses
// request classes have been seen (bounding memory at about 24 bytes × classes × nodes).

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "engine/policy/fgd_score.hpp"
#include "engine/policy/fragmentation.hpp"
#include "engine/policy/placement_plugin.hpp"

namespace gantry {

class FgdPlugin final : public PlacementPlugin {
 public:
  static constexpr size_t kMaxCachedClasses = 1024;

  std::string_view name() const override { return "fgd"; }
  void set_target_workload(std::span<const WeightedPodClass> workload) override;
  void pre_score(const PlacementContext& ctx) override;
  NodeScore score(const PlacementContext& ctx, NodeId n) const override;
  // The default select(), with score() inlined (select_with_own_score()).
  std::optional<NodeId> select(const PlacementContext& ctx) override;
  uint64_t pick_gpus(const PlacementContext& ctx, NodeId n) const override;

  // The fragmentation model FGD scores with (e.g. to read the cluster's fragmentation).
  FragmentationModel& model() { return model_; }

 private:
  struct Entry {
    uint64_t version = ~uint64_t{0};
    FragmentationModel::Move move;
    int score = 0;
  };
  struct Key {
    int64_t cpu_milli;
    int32_t gpus;
    int32_t gpu_milli;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      uint64_t h = static_cast<uint64_t>(k.cpu_milli) * 0x9E3779B97F4A7C15ull;
      h ^= (static_cast<uint64_t>(static_cast<uint32_t>(k.gpus)) << 32 |
            static_cast<uint32_t>(k.gpu_milli)) +
           0x7F4A7C159E3779B9ull + (h << 6) + (h >> 2);
      return static_cast<size_t>(h);
    }
  };
  std::vector<Entry>& entries_for(const PlacementContext& ctx) const;
  const Entry& entry(const PlacementContext& ctx, NodeId n) const;

  mutable FragmentationModel model_;
  FgdScore score_;                 // for model_'s workload
  mutable uint64_t cache_of_ = 0;  // Cluster::instance_id() the cache describes
  mutable std::unordered_map<Key, size_t, KeyHash> class_ids_;
  mutable std::vector<std::vector<Entry>> entries_;  // by class id, then node
  mutable Key current_key_{-1, -1, -1};              // the pod pre_score() last saw
  mutable std::vector<Entry>* current_ = nullptr;
};

}  // namespace gantry
