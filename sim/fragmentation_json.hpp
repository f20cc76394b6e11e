#pragma once
// The stable JSON of a fragmentation experiment's result: what `gantry simulate EXPERIMENT
// --format json` prints and what `gantry serve`'s what-if simulations return (web/API.md).
//
//   {"scenario", "node_list", "pod_list", "capacity_gpus",
//    "policies": [{"name", "seeds", "arrival_pct", "allocated_gpu_pct_mean",
//                  "allocated_gpu_pct_sd", "unallocated_gpu_pct_mean", "unallocated_gpu_pct_sd",
//                  "fragmentation_pct_mean", "fragmentation_pct_sd", "failed_pods_mean"}]}
//
// Each list has one value per arrival level (0, 1, ..., the experiment's limit, in % of the
// cluster's GPUs); see README "Fragmentation experiment".

#include <nlohmann/json.hpp>

#include "sim/fragmentation_result.hpp"

namespace gantry {

nlohmann::ordered_json fragmentation_json(const FragmentationResult& r);

}  // namespace gantry
