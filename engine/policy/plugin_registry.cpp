#include "engine/policy/plugin_registry.hpp"

#include <utility>

#include "engine/policy/best_fit_plugin.hpp"
#include "engine/policy/binpack_plugin.hpp"
#include "engine/policy/dot_product_plugin.hpp"
#include "engine/policy/fgd_plugin.hpp"
#include "engine/policy/gpu_clustering_plugin.hpp"
#include "engine/policy/gpu_packing_plugin.hpp"
#include "engine/policy/random_plugin.hpp"
#include "engine/policy/spread_plugin.hpp"
#include "engine/policy/topology_plugin.hpp"

namespace gantry {

namespace {

struct Entry {
  std::string name;
  PlacementPluginFactory factory;
};

// A function-local static avoids depending on static initialisation order across files.
std::vector<Entry>& registry() {
  static std::vector<Entry> entries = [] {
    std::vector<Entry> e;
    e.push_back({"binpack", [] { return std::make_unique<BinpackPlugin>(); }});
    e.push_back({"spread", [] { return std::make_unique<SpreadPlugin>(); }});
    e.push_back({"topology", [] { return std::make_unique<TopologyPlugin>(); }});
    e.push_back({"random", [] { return std::make_unique<RandomPlugin>(); }});
    e.push_back({"dotproduct", [] { return std::make_unique<DotProductPlugin>(); }});
    e.push_back({"gpuclustering", [] { return std::make_unique<GpuClusteringPlugin>(); }});
    e.push_back({"gpupacking", [] { return std::make_unique<GpuPackingPlugin>(); }});
    e.push_back({"bestfit", [] { return std::make_unique<BestFitPlugin>(); }});
    e.push_back({"fgd", [] { return std::make_unique<FgdPlugin>(); }});
    return e;
  }();
  return entries;
}

}  // namespace

std::vector<std::string> placement_plugin_names() {
  std::vector<std::string> names;
  for (const auto& e : registry()) names.push_back(e.name);
  return names;
}

std::unique_ptr<PlacementPlugin> make_placement_plugin(std::string_view name) {
  for (const auto& e : registry())
    if (e.name == name) return e.factory();
  return nullptr;
}

bool register_placement_plugin(std::string name, PlacementPluginFactory factory) {
  for (const auto& e : registry())
    if (e.name == name) return false;
  registry().push_back({std::move(name), std::move(factory)});
  return true;
}

}  // namespace gantry
