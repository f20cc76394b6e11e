#include "web/server/whatif_overrides.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace gantry::web {

namespace {

void scale_racks(YAML::Node racks, int nodes) {
  if (!racks || !racks.IsSequence() || racks.size() == 0)
    throw std::invalid_argument("overrides.nodes: the scenario's cluster has no racks to scale");
  const size_t n = racks.size();
  if (nodes < static_cast<int>(n))
    throw std::invalid_argument(
        "overrides.nodes: at least one node per rack: " + std::to_string(n) + " or more");
  std::vector<int64_t> current(n);
  for (size_t i = 0; i < n; ++i) current[i] = racks[i]["nodes"].as<int64_t>(1);
  const int64_t total = std::accumulate(current.begin(), current.end(), int64_t{0});
  if (total <= 0)
    throw std::invalid_argument("overrides.nodes: the scenario's racks have no nodes");
  // Largest remainder over the racks beyond their guaranteed node.
  const int64_t spare = nodes - static_cast<int64_t>(n);
  std::vector<int64_t> share(n);
  std::vector<std::pair<int64_t, size_t>> remainder(
      n);  // (remainder numerator, rack), larger first
  int64_t given = 0;
  for (size_t i = 0; i < n; ++i) {
    share[i] = spare * current[i] / total;
    remainder[i] = {spare * current[i] % total, i};
    given += share[i];
  }
  std::stable_sort(remainder.begin(), remainder.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t k = 0; given < spare; ++k, ++given) ++share[remainder[k % n].second];
  for (size_t i = 0; i < n; ++i) racks[i]["nodes"] = 1 + share[i];
}

}  // namespace

std::string apply_overrides(const std::string& scenario_yaml, const WhatIfOverrides& o) {
  if (o.empty()) return scenario_yaml;
  YAML::Node doc = YAML::Load(scenario_yaml);
  YAML::Node cluster = doc["spec"]["cluster"];
  if (!cluster || !cluster.IsMap())
    throw std::invalid_argument("overrides: the scenario has no spec.cluster");
  if (cluster["trace"] && (o.nodes || o.gpu_type))
    throw std::invalid_argument(std::string(o.nodes ? "overrides.nodes" : "overrides.gpuType") +
                                ": this scenario's cluster comes from a trace");
  if (o.fabric) cluster["fabric"]["kind"] = *o.fabric;
  if (o.gpu_type) {
    bool any = false;
    for (YAML::Node c : cluster["nodeClasses"])
      if (c["gpu"]) {
        c["gpu"]["type"] = *o.gpu_type;
        any = true;
      }
    if (!any) throw std::invalid_argument("overrides.gpuType: the scenario has no GPU node class");
  }
  if (o.nodes) scale_racks(cluster["racks"], *o.nodes);
  YAML::Emitter out;
  out << doc;
  return std::string(out.c_str()) + "\n";
}

}  // namespace gantry::web
