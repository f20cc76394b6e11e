#pragma once
// "gpuclustering": keeps pods of one GPU "affinity" together, the FGD paper's "GPU Clustering"
// baseline (Weng et al., USENIX ATC'23, §6.1) as the authors' simulator scores it
// (hkust-adsl/kubernetes-scheduler-simulator, pkg/simulator/plugin/gpu_clustering_score.go;
// affinities from pkg/type/open-gpu-share/utils/pod.go; GPU selection "best").
//
// A pod's affinity: "share" for any share of one GPU (whatever its size: a 200-milli and a
// 700-milli pod have the same affinity), "k-gpu" for k whole GPUs, none for a GPU-less pod. A
// node's affinities are those of the GPU pods running on it (Cluster::gpu_requests()).
//
// Score (higher is better), an integer as in the Kubernetes scheduling framework, for a pod
// that needs a GPU:
//   tier · 25 + floor(25 · (Gmax − free GPU milli of the node) / Gmax)
// with Gmax the spec maximum (spec_maxima.hpp: 8 GPUs on openb) and tier
//   3  the node runs pods of the pod's affinity and of no other
//   2  it runs pods of the pod's affinity and of others
//   1  it runs no GPU pods
//   0  it runs only GPU pods of other affinities
// so inside a tier the fuller node wins, in steps of Gmax/25 milli. A GPU-less pod scores 0
// everywhere. Ties (frequent: the fullness term has 26 steps) go to the lowest node id (the
// authors' fork of the framework breaks ties by the smallest node name).
// GPUs inside the node: the default (best-fit GPU for a share, lowest fully free otherwise).

#include "engine/policy/placement_plugin.hpp"
#include "engine/policy/spec_maxima.hpp"

namespace gantry {

class GpuClusteringPlugin final : public PlacementPlugin {
 public:
  std::string_view name() const override { return "gpuclustering"; }
  void pre_score(const PlacementContext& ctx) override { maxima_.update(ctx.cluster); }
  NodeScore score(const PlacementContext& ctx, NodeId n) const override;
  // The default select(), with score() inlined (select_with_own_score()).
  std::optional<NodeId> select(const PlacementContext& ctx) override;

 private:
  SpecMaxima maxima_;
};

}  // namespace gantry
