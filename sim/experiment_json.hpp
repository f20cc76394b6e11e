#pragma once
// The stable JSON of a fragmentation experiment, as `gantry simulate EXPERIMENT --format json`
// prints it and `gantry serve` returns it for a what-if experiment (README, "Fragmentation
// experiment"):
//   {"scenario", "node_list", "pod_list", "capacity_gpus",
//    "policies": [{"name", "seeds", "arrival_pct", "allocated_gpu_pct_mean", ...}],
//    "variants": [{... the same, "name"}]}        (variants only for a sweep)

#include <nlohmann/json.hpp>
#include <vector>

#include "sim/fragmentation_export.hpp"
#include "sim/fragmentation_result.hpp"

namespace gantry {

// One pod list's result.
nlohmann::ordered_json fragmentation_json(const FragmentationResult& r);
// The whole experiment: the first result, with "variants" when there are several.
nlohmann::ordered_json experiment_json(const std::vector<NamedResult>& results);

}  // namespace gantry
