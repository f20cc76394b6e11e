#include "adapters/traces/spot_shapes.hpp"

#include <algorithm>
#include <tuple>

#include "adapters/traces/spot_nodes.hpp"

namespace gantry {

std::vector<SpotShape> spot_shapes(const Topology& topology) {
  std::vector<int64_t> count(topology.classes.size(), 0);
  for (const NodeInfo& n : topology.nodes) ++count[static_cast<size_t>(n.node_class)];
  std::vector<SpotShape> shapes;
  for (size_t c = 0; c < topology.classes.size(); ++c) {
    if (count[c] == 0) continue;
    const NodeClass& cls = topology.classes[c];
    SpotShape s;
    s.gpu_model = cls.gpu_type >= 0 ? topology.gpus.at(cls.gpu_type).name : "";
    s.gpus = cls.capacity.gpus;
    s.vcpus = cls.capacity.cpu_milli / 1000;
    s.nodes = count[c];
    s.node_class = cls.name;
    shapes.push_back(std::move(s));
  }
  std::sort(shapes.begin(), shapes.end(), [](const SpotShape& a, const SpotShape& b) {
    return std::tie(b.nodes, a.gpu_model, a.gpus, a.vcpus) <
           std::tie(a.nodes, b.gpu_model, b.gpus, b.vcpus);
  });
  return shapes;
}

std::vector<SpotShape> load_spot_shapes(const std::string& path) {
  return spot_shapes(load_spot_nodes(path));
}

std::vector<SpotShape> load_spot_shapes_text(std::string_view text, const std::string& file_name) {
  return spot_shapes(load_spot_nodes_text(text, file_name));
}

}  // namespace gantry
