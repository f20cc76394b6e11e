#include "tools/gantry/fragmentation_report.hpp"

#include <fmt/format.h>

namespace gantry::cli {

namespace {
constexpr int kTableLevels[] = {80, 90, 95, 100, 110, 120, 130};
}

std::string fragmentation_text(const FragmentationResult& r) {
  std::string out = fmt::format(
      "Fragmentation experiment {} — {} nodes, {:g} GPUs; pods from {} ({} in the list)\n"
      "Pods arrive one at a time in a seeded shuffle, extended by sampling, and never leave;\n"
      "a pod that fits nowhere fails. Figures: mean ± sd over seeds, % of cluster GPUs.\n",
      r.scenario, r.nodes, r.capacity_gpus, r.pod_list, r.pods_in_list);
  for (const PolicyCurves& p : r.policies) {
    out += fmt::format("\n  {} ({} seeds)\n", p.policy, p.seeds);
    out += fmt::format("  {:>9}  {:>15}  {:>15}  {:>14}  {:>11}\n", "arrived", "allocated",
                       "unallocated", "fragmented", "failed pods");
    for (int level : kTableLevels) {
      if (level >= static_cast<int>(p.arrival_pct.size())) continue;
      const auto i = static_cast<size_t>(level);
      out += fmt::format(
          "  {:>8}%  {:>7.1f} ± {:<5.1f}  {:>7.1f} ± {:<5.1f}  {:>6.1f} ± {:<5.1f}  {:>11.0f}\n",
          level, p.allocated_gpu_pct_mean[i], p.allocated_gpu_pct_sd[i],
          p.unallocated_gpu_pct_mean[i], p.unallocated_gpu_pct_sd[i], p.fragmentation_pct_mean[i],
          p.fragmentation_pct_sd[i], p.failed_pods_mean[i]);
    }
  }
  return out;
}

std::string fragmentation_csv(const FragmentationResult& r) {
  std::string out =
      "policy,arrival_pct,allocated_gpu_pct_mean,allocated_gpu_pct_sd,unallocated_gpu_pct_mean,"
      "unallocated_gpu_pct_sd,fragmentation_pct_mean,fragmentation_pct_sd,failed_pods_mean\n";
  for (const PolicyCurves& p : r.policies)
    for (size_t i = 0; i < p.arrival_pct.size(); ++i)
      out += fmt::format("{},{},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.2f}\n", p.policy,
                         p.arrival_pct[i], p.allocated_gpu_pct_mean[i], p.allocated_gpu_pct_sd[i],
                         p.unallocated_gpu_pct_mean[i], p.unallocated_gpu_pct_sd[i],
                         p.fragmentation_pct_mean[i], p.fragmentation_pct_sd[i],
                         p.failed_pods_mean[i]);
  return out;
}

LineChart unallocated_chart(const FragmentationResult& r) {
  LineChart chart;
  chart.title = fmt::format("Unallocated GPU vs arrived workload — {}", r.pod_list);
  chart.x_label = "arrived workload (% of cluster GPU capacity)";
  chart.y_label = "unallocated GPU (% of capacity)";
  for (const PolicyCurves& p : r.policies) {
    ChartSeries s;
    s.name = p.policy;
    for (size_t i = 0; i < p.arrival_pct.size(); ++i) {
      s.x.push_back(p.arrival_pct[i]);
      s.y.push_back(p.unallocated_gpu_pct_mean[i]);
    }
    chart.series.push_back(std::move(s));
  }
  return chart;
}

}  // namespace gantry::cli
