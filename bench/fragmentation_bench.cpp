// BM_FragmentationRun/<policy>: one run of the openb fragmentation experiment (issue #3) — the
// 1,213 GPU nodes, the default pod list shuffled and extended to 130 % of capacity (about
// 10,800 placements), pods placed one at a time with the cluster's fragmentation measured after
// every pod — on one core. Target for FGD: under 1 s (the paper's simulator places about
// 15 pods/s). items_per_second is placements per second.

#include <benchmark/benchmark.h>

#include <string>

#include "adapters/traces/openb.hpp"
#include "adapters/traces/openb_jobs.hpp"
#include "sim/fragmentation_experiment.hpp"

namespace gantry {
namespace {

const FragmentationInput& openb_input() {
  static const FragmentationInput input = [] {
    const std::string dir = std::string(GANTRY_SOURCE_DIR) + "/scenarios/data/openb/";
    FragmentationInput in;
    in.topology = load_openb_nodes(dir + "openb_node_list_gpu_node.csv");
    in.pods = openb_pods_as_jobs(load_openb_pods(dir + "openb_pod_list_default.csv"));
    return in;
  }();
  return input;
}

void BM_FragmentationRun(benchmark::State& state, const std::string& plugin) {
  const FragmentationInput& input = openb_input();
  const auto typical = typical_pods(input.pods, 0.95);
  const auto order = arrival_order(input.pods, 6212, 130, 1);
  size_t pods = 0;
  for (auto _ : state) {
    const FragmentationRun run = run_fragmentation_once(input, typical, order, plugin, 1, 130);
    pods += run.pods_arrived;
    benchmark::DoNotOptimize(run.allocated_pct.back());
  }
  state.SetItemsProcessed(static_cast<int64_t>(pods));
  state.counters["pods_per_run"] = static_cast<double>(order.size());
}

BENCHMARK_CAPTURE(BM_FragmentationRun, fgd, std::string("fgd"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FragmentationRun, bestfit, std::string("bestfit"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FragmentationRun, random, std::string("random"))
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gantry
