#pragma once
// GPU fragmentation of nodes and of the cluster for a target workload, as defined by FGD (Weng
// et al., "Beware of Fragmentation", USENIX ATC'23, §4.1), with incremental bookkeeping.
//
// The authors' simulator computes the same quantity (hkust-adsl/kubernetes-scheduler-simulator,
// pkg/utils/frag.go: NodeGpuShareFragAmount() summed except Q3, with GetNodePodFrag() deciding
// per class whether it fits; CPU-only classes count the whole idle GPU, "x-axis" XL/XR).
//
// Definition. Let node n have GPUs with free milli a_1..a_G, T = Σ a_g its idle GPU milli and
// c its free CPU. For a pod class m of the target workload (target_workload.hpp), frag_n(m),
// the part of n's idle GPU milli that a pod of class m cannot use, is:
//   - T, if m asks for no GPU (it can use none of the idle GPU, whether or not its CPU fits:
//     the paper's "x-axis" tasks);
//   - T, if m cannot run on n at all: a GPU model m does not allow, more CPU than c, or no
//     room for its GPUs (a share of s milli needs some a_g >= s; k whole GPUs need k fully
//     free GPUs);
//   - otherwise, the free milli of the GPUs that cannot hold m's GPU request:
//       a share of s milli:  Σ_g a_g over GPUs with a_g < s;
//       k whole GPUs:        Σ_g a_g over GPUs with a_g < 1000 (partly used GPUs).
// The node's fragmentation for the workload is F_n = Σ_m p_m · frag_n(m) (p_m the class
// weights, normalised to sum 1), in milli-GPU; the cluster's is Σ_n F_n. Memory is ignored,
// as in the paper (pod classes carry no memory). Nodes without GPUs have F_n = 0.
//
// Computation. Rewriting with the classes that fit by model and CPU,
//   F_n = T − Σ_g a_g · W(a_g) − 1000 · f · V(f)
// where f is the number of fully free GPUs, W(x) the weight of fitting share classes with
// s <= x and V(j) the weight of fitting whole-GPU classes with k <= j. For each GPU type and
// each "CPU level" (how many of the type's GPU classes fit in c) W and V are step tables built
// once, on first use, so F_n costs O(G + log classes), and the growth of F_n for a pod on each
// of a node's GPUs costs O(G) for all of them together.
//
// Weights are quantised to integers (2^30 for the whole workload) and fragmentation is summed
// in 64-bit integers, so equal growths compare exactly equal (ties are decided by ids, never
// by rounding) and results are identical on every platform.
//
// Caches. Per node, F_n is cached against Cluster::version(n); cluster_fragmentation() keeps
// the sum and re-evaluates only nodes whose version moved (O(N) version compares, skipped when
// Cluster::change_count() has not moved). The model binds to one Cluster at a time (GPU model
// names are resolved against its catalog); passing another cluster (by Cluster::instance_id())
// rebinds and clears the caches.
//
// Not thread-safe (event loop thread).

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "engine/cluster/cluster.hpp"
#include "engine/policy/fgd_score.hpp"
#include "engine/policy/target_workload.hpp"

namespace gantry {

class FragmentationModel {
 public:
  // One unit of fragmentation_scaled() values per milli-GPU times kWeightScale.
  static constexpr int64_t kWeightScale = int64_t{1} << 30;

  FragmentationModel() = default;
  explicit FragmentationModel(std::span<const WeightedPodClass> workload);
  explicit FragmentationModel(const std::vector<WeightedPodClass>& workload)
      : FragmentationModel(std::span<const WeightedPodClass>(workload)) {}

  // Replaces the target workload; clears every cache. Classes with weight <= 0 are dropped.
  // An empty workload makes every fragmentation 0.
  void set_workload(std::span<const WeightedPodClass> workload);
  const std::vector<WeightedPodClass>& workload() const { return workload_; }

  // F_n in milli-GPU.
  double node_fragmentation(const Cluster& cluster, NodeId n);
  // Σ_n F_n in milli-GPU, maintained incrementally (see "Caches").
  double cluster_fragmentation(const Cluster& cluster);
  // The same, as exact integers in units of 1/weight_total() milli-GPU.
  int64_t node_fragmentation_scaled(const Cluster& cluster, NodeId n);
  int64_t cluster_fragmentation_scaled(const Cluster& cluster);
  // Sum of the quantised weights (about kWeightScale; 0 for an empty workload).
  int64_t weight_total() const { return weight_total_; }

  // The best placement of `pod` on node n by fragmentation growth: the GPUs it would take and
  // ΔF = F_n(after) − F_n(before) in scaled units. Whole-GPU pods take the lowest-numbered fully
  // free GPUs (which fully free GPUs does not change F_n); a share pod takes the GPU with the
  // smallest ΔF among those with room, ties to the lowest GPU — or, given `score`, the GPU with
  // the highest score(ΔF), ties to the lowest GPU (FGD's rule, fgd_score.hpp); GPU-less pods
  // take none (their CPU may still change F_n). The pod's CPU must fit and its GPUs must fit on
  // n (the caller filtered); a GPU-less pod may be asked about any node.
  struct Move {
    int64_t delta = 0;
    uint64_t gpu_mask = 0;
  };
  Move best_move(const Cluster& cluster, NodeId n, const Resources& pod,
                 const FgdScore* score = nullptr);

 private:
  struct Class {
    int64_t cpu_milli = 0;
    int32_t gpus = 0;
    int32_t gpu_milli = 0;
    int64_t weight = 0;  // quantised
  };
  // Step tables of one (GPU type, CPU level).
  struct Table {
    std::vector<int64_t> share;  // share[x] = W(x), x in 0..1000
    std::vector<int64_t> whole;  // whole[j] = V(j), j in 0..64
  };
  struct PerType {
    std::vector<Class> classes;  // GPU classes allowed on the type, by CPU ascending
    std::vector<int64_t> cpus;   // their CPU requests, same order
    std::vector<std::unique_ptr<Table>> tables;  // by level, built on first use
  };
  struct NodeCache {
    uint64_t version = ~uint64_t{0};
    int64_t frag = 0;
  };

  void bind(const Cluster& cluster);
  const Table& table(GpuTypeId t, int64_t cpu_free);
  int64_t compute(const Cluster& cluster, NodeId n);

  std::vector<WeightedPodClass> workload_;
  int64_t weight_total_ = 0;

  uint64_t bound_ = 0;  // Cluster::instance_id() of the cluster the caches describe
  std::vector<PerType> per_type_;
  std::vector<NodeCache> nodes_;
  int64_t total_ = 0;  // Σ nodes_[n].frag over nodes with a valid cache
  uint64_t total_change_count_ = ~uint64_t{0};
};

}  // namespace gantry
