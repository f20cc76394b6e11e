#pragma once
// The placement plugin registry: plugins by name, as SchedulerConfig::placement and the
// command line's --policy name them.
//
// Built in, in this order: "binpack" (binpack_plugin.hpp), "spread" (spread_plugin.hpp),
// "topology" (topology_plugin.hpp), and the GPU-sharing policies of the FGD paper: "random"
// (random_plugin.hpp), "dotproduct" (dot_product_plugin.hpp), "gpuclustering"
// (gpu_clustering_plugin.hpp), "gpupacking" (gpu_packing_plugin.hpp), "bestfit"
// (best_fit_plugin.hpp) and "fgd" (fgd_plugin.hpp). More can be registered at start-up, before
// schedulers are built. Not thread-safe: register from the main thread before the event loop runs.

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/policy/placement_plugin.hpp"

namespace gantry {

using PlacementPluginFactory = std::function<std::unique_ptr<PlacementPlugin>()>;

// Names of the registered placement plugins in registration order (built-ins first).
std::vector<std::string> placement_plugin_names();

// A new instance of the plugin called `name` (exact, case-sensitive), owned by the caller;
// nullptr if no plugin has that name.
std::unique_ptr<PlacementPlugin> make_placement_plugin(std::string_view name);

// Adds a plugin under `name`. Returns false, changing nothing, if the name is taken.
bool register_placement_plugin(std::string name, PlacementPluginFactory factory);

}  // namespace gantry
