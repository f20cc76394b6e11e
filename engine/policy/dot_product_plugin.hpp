#pragma once
// "dotproduct": Tetris's alignment heuristic (Grandl et al., "Multi-Resource Packing for
// Cluster Schedulers", SIGCOMM'14), in the form the FGD paper uses as its "DotProd" baseline
// (Weng et al., USENIX ATC'23, §6.1; their simulator ranks the *smallest* product best).
//
// Dimensions: CPU and GPU. Each is normalised by the node's own capacity:
//   node vector  (free CPU / CPU capacity,  free GPU milli / GPU milli capacity)
//   pod vector   (pod CPU / CPU capacity,   pod GPU milli / GPU milli capacity)
// with "free GPU milli" the sum over the node's GPUs (Cluster::node_free_milli()) and the
// pod's GPU milli 1000 per whole GPU or its share. Memory is left out, as in the paper's
// simulator, whose resource vectors are CPU and GPU; a node without GPUs has only the CPU term.
//
// Scoring rule, most important first:
//   1. the smallest dot product (before placing the pod): the node whose free resources are
//      scarcest in the dimensions the pod asks for — a packing rule. Tetris, which scores a
//      machine's *availability*, maximises instead; the FGD paper's baseline minimises.
//   2. ties: the lowest node id
// The product is compared as a fixed-point integer (2^40 units per 1.0), deterministic on
// every platform.
// GPUs inside the node: the default (best-fit GPU for a share, lowest fully free otherwise).

#include "engine/policy/placement_plugin.hpp"

namespace gantry {

class DotProductPlugin final : public PlacementPlugin {
 public:
  std::string_view name() const override { return "dotproduct"; }
  NodeScore score(const PlacementContext& ctx, NodeId n) const override;
};

}  // namespace gantry
