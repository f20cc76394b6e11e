#pragma once
// The scenario a plan simulates for one forecast step and one set of pool sizes: the base
// Scenario with the racks of each planned class replaced by as many racks as the pool's nodes
// need (nodesPerRack each, the last one partly filled; the base's rack names first, then
// "<class>-<k>"), read by the Scenario loader as if written by hand, then the load multiplied
// by the step's growth (grow_load, sim/sweep/load_growth.hpp):
//   - each generator's mean inter-arrival time divided by g and its count multiplied by g (the
//     same period, g times the arrivals);
//   - each service's traffic multiplied by g (Poisson qps, a curve's peak and trough, a
//     trace's speed-up);
//   - explicit jobs are kept as written (they are a list of known work, not a rate).
// Racks of classes the plan does not size are kept as they are.
//
// Checked when built, before anything runs (errors at the plan file's line): the base loads; it
// describes its cluster as node classes and racks (not a trace); every planned class is one
// of its classes; a pool whose class has no rack in the base gives nodesPerRack; the scenario
// of every pool at its maximum loads (at the largest growth), and so does every pool at its
// minimum unless that leaves no node at all; the grown workload stays within 1,000,000 jobs.
// The SLOs of the base's inference services are added to the plan's (service.NAME.p99 at
// most the service's slo.p99), unless the plan states them itself.

#include <cstdint>
#include <string>
#include <vector>

#include "sim/cluster_loader.hpp"
#include "sim/plan/plan_spec.hpp"
#include "sim/scenario_spec.hpp"

namespace gantry {

class PlanVariants {
 public:
  // Throws InputErrors (see above) or FileError for a base that cannot be read.
  PlanVariants(const PlanSpec& plan, const TraceLoaders& traces = {});

  // The plan's SLOs and the services' (see above), in that order.
  const std::vector<PlanSlo>& slos() const { return slos_; }

  // The scenario for `growth` with pools[i] at sizes[i] nodes. Throws InputErrors when it is
  // not a valid scenario (every pool at 0 leaves no cluster): such a configuration meets no SLO.
  ScenarioSpec scenario(double growth, const std::vector<int64_t>& sizes) const;

  // The value scenario() sets at spec.cluster.racks for `sizes`, as YAML (a flow sequence):
  // what a Sweep point gives to run the same scenario elsewhere
  // (tools/gantry/plan_on_kubernetes.hpp).
  std::string racks_yaml(const std::vector<int64_t>& sizes) const;

  // The hourly price of `sizes`: sum of nodes × pricePerNodeHour.
  double cost_per_hour(const std::vector<int64_t>& sizes) const;

 private:
  const PlanSpec* plan_;
  TraceLoaders traces_;
  std::string base_text_;
  std::vector<int64_t> nodes_per_rack_;          // per pool
  std::vector<std::vector<std::string>> names_;  // per pool: the base's rack names
  std::vector<std::string> kept_racks_;          // racks of other classes, as YAML flow maps
  std::vector<PlanSlo> slos_;
};

}  // namespace gantry
