#pragma once
// The node shapes of Alibaba's spot-GPU trace (node_info_df.csv; importer and column rules in
// spot_nodes.hpp): each distinct (GPU model, GPUs per node, vCPUs) with how many nodes have it,
// most common first. What a scenario's spot node pools (sim/node_pool_loader.hpp) are built
// from: one pool per shape, sized by its count. The trace gives no prices and no memory.
//
// Lives here, not in sim/, because sim/ may not depend on adapters/ (the trace reader).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/cluster/topology.hpp"

namespace gantry {

struct SpotShape {
  std::string gpu_model;   // the catalog's name (A100-SXM4-80GB is "A100-80G"); "" without GPUs
  int gpus = 0;            // per node
  int64_t vcpus = 0;       // per node
  int64_t nodes = 0;       // nodes of this shape in the trace
  std::string node_class;  // the class load_spot_nodes() gives them
};

// The shapes of an imported node list (one per node class of `topology`, which every node of the
// spot-GPU importer's output maps to one to one), sorted by nodes, descending, then GPU model,
// GPUs and vCPUs ascending. O(nodes + classes log classes).
std::vector<SpotShape> spot_shapes(const Topology& topology);

// load_spot_nodes(path) (its errors), then spot_shapes().
std::vector<SpotShape> load_spot_shapes(const std::string& path);
std::vector<SpotShape> load_spot_shapes_text(std::string_view text, const std::string& file_name);

}  // namespace gantry
