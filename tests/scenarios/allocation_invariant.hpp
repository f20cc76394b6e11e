#pragma once
// What every run of a shipped scenario must hold, checked by each test that runs one (issue 22:
// a pod on a share of a GPU counted the whole GPU, so scenarios/serving/canary-10.yaml reported
// 20 allocated A10s on a cluster of 16, and four 0.25-GPU pods 400 %):
//   - at every instant, once all its changes are in, the GPUs allocated of each type are at most
//     that type's GPUs in the cluster (1000 milli each; per type only when no node came or
//     went), busy at most allocated, and all types together at most the cluster's GPUs then
//     (SimulationLog::capacity, when node pools add and remove nodes);
//   - the summary's allocation and busy ratios lie in [0, 1].
// Failures name the scenario, the instant and the figures.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sim/simulation.hpp"
#include "sim/summary.hpp"

namespace gantry::testing {

inline void expect_allocation_within_capacity(const SimulationRun& run, const std::string& name) {
  const Cluster& cluster = *run.cluster;
  const size_t types = cluster.topology().gpus.size();
  const std::vector<SimulationLog::CapacityPoint>& capacity = run.log.capacity;
  // The cluster's GPUs at `t`: the last capacity point at or before it, else the first one's.
  const auto gpus_at = [&](Time t) -> int64_t {
    if (capacity.empty()) return cluster.total_gpus();
    int64_t gpus = capacity.front().gpus;
    for (const SimulationLog::CapacityPoint& p : capacity) {
      if (p.time > t) break;
      gpus = p.gpus;
    }
    return gpus;
  };
  std::vector<int64_t> allocated(types, 0), busy(types, 0);
  int failures = 0;
  const auto check = [&](Time t) {
    int64_t total = 0;
    for (size_t type = 0; type < types; ++type) {
      total += allocated[type];
      const auto label = [&] {
        return name + " at " + format_rfc3339(t) + ", " +
               cluster.topology().gpus.at(static_cast<GpuTypeId>(type)).name;
      };
      if (busy[type] > allocated[type] || allocated[type] < 0 || busy[type] < 0) {
        ADD_FAILURE() << label() << ": busy " << busy[type] << " milli, allocated "
                      << allocated[type];
        ++failures;
      }
      const int64_t type_milli = int64_t{cluster.total_gpus(static_cast<GpuTypeId>(type))} * 1000;
      if (capacity.empty() && allocated[type] > type_milli) {
        ADD_FAILURE() << label() << ": " << allocated[type] << " milli allocated of " << type_milli;
        ++failures;
      }
    }
    if (total > gpus_at(t) * 1000) {
      ADD_FAILURE() << name << " at " << format_rfc3339(t) << ": " << total
                    << " milli allocated of " << gpus_at(t) << " GPUs";
      ++failures;
    }
  };
  const std::vector<SeriesPoint>& series = run.log.series;
  for (size_t i = 0; i < series.size() && failures < 5; ++i) {
    const auto type = static_cast<size_t>(series[i].type);
    allocated[type] = series[i].allocated_milli;
    busy[type] = series[i].busy_milli;
    if (i + 1 == series.size() || series[i + 1].time != series[i].time) check(series[i].time);
  }
  const RunSummary s = summarize(run);
  EXPECT_GE(s.gpu_allocation_ratio, 0.0) << name;
  EXPECT_LE(s.gpu_allocation_ratio, 1.0) << name;
  EXPECT_GE(s.gpu_busy_ratio, 0.0) << name;
  EXPECT_LE(s.gpu_busy_ratio, 1.0) << name;
}

// run_simulation() of a shipped scenario, checked.
inline SimulationRun run_checked(const ScenarioSpec& scenario, const std::string& name) {
  SimulationRun run = run_simulation(scenario);
  expect_allocation_within_capacity(run, name);
  return run;
}

}  // namespace gantry::testing
