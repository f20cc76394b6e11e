#include "sim/experiment_json.hpp"

namespace gantry {

nlohmann::ordered_json fragmentation_json(const FragmentationResult& r) {
  nlohmann::ordered_json policies = nlohmann::ordered_json::array();
  for (const PolicyCurves& p : r.policies) {
    policies.push_back({{"name", p.policy},
                        {"seeds", p.seeds},
                        {"arrival_pct", p.arrival_pct},
                        {"allocated_gpu_pct_mean", p.allocated_gpu_pct_mean},
                        {"allocated_gpu_pct_sd", p.allocated_gpu_pct_sd},
                        {"unallocated_gpu_pct_mean", p.unallocated_gpu_pct_mean},
                        {"unallocated_gpu_pct_sd", p.unallocated_gpu_pct_sd},
                        {"fragmentation_pct_mean", p.fragmentation_pct_mean},
                        {"fragmentation_pct_sd", p.fragmentation_pct_sd},
                        {"failed_pods_mean", p.failed_pods_mean}});
  }
  nlohmann::ordered_json j;
  j["scenario"] = r.scenario;
  j["node_list"] = r.node_list;
  j["pod_list"] = r.pod_list;
  j["capacity_gpus"] = r.capacity_gpus;
  j["policies"] = std::move(policies);
  return j;
}

nlohmann::ordered_json experiment_json(const std::vector<NamedResult>& results) {
  if (results.empty()) return nullptr;
  nlohmann::ordered_json j = fragmentation_json(results.front().result);
  if (results.size() > 1) {
    nlohmann::ordered_json variants = nlohmann::ordered_json::array();
    for (const NamedResult& r : results) {
      nlohmann::ordered_json v = fragmentation_json(r.result);
      v["name"] = r.variant;
      variants.push_back(std::move(v));
    }
    j["variants"] = std::move(variants);
  }
  return j;
}

}  // namespace gantry
