#pragma once
// The what-if page's changes to a shipped scenario, applied to its YAML before loading: the
// number of nodes, the GPU model of every GPU node class, the fabric kind. Changing the
// document rather than the loaded ScenarioSpec keeps every check of the loader (a GPU type
// the catalog does not know, a gang that no longer fits) on the changed scenario.
//
// Node count: every rack's node count is scaled by nodes / current total, rounded by the
// largest remainder so the racks add up to exactly `nodes`, each rack keeping at least one
// node (so nodes must be at least the number of racks).
//
// Errors: std::invalid_argument naming the override ("overrides.nodes: ...") for a scenario
// the override cannot apply to (a cluster from a trace, fewer nodes than racks).

#include <optional>
#include <string>

namespace gantry::web {

struct WhatIfOverrides {
  std::optional<int> nodes{};
  std::optional<std::string> gpu_type{};
  std::optional<std::string> fabric{};
  bool empty() const { return !nodes && !gpu_type && !fabric; }
};

// Returns the scenario document with the overrides applied (unchanged text when none).
std::string apply_overrides(const std::string& scenario_yaml, const WhatIfOverrides& overrides);

}  // namespace gantry::web
