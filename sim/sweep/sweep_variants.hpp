#pragma once
// The scenarios a Sweep runs: its base Scenario with each point's values set at the axes'
// paths (sim/sweep/document_path.hpp), read by the Scenario loader as if the user had written
// the variant by hand, then its load multiplied by spec.growth (sim/sweep/load_growth.hpp; a
// growth that takes a point past a scenario's 1,000,000 jobs is an error at spec.growth). So a
// variant is checked exactly as a scenario file is, and one seed of a point runs what `gantry
// simulate` of the edited file runs.
//
// Everything is checked before anything runs: the base file itself; each axis's path against
// the base (and against the base as the earlier axes left it: an axis may replace a list that a
// later one indexes); each point's scenario; and the metrics against it (service.NAME.* needs
// that service, cost.* node pools with prices). Errors point into the sweep file where the
// sweep is at fault:
//
//   sweep.yaml:9:58: spec.axes[0].values[1]: 'binpak' at spec.policy.placement of
//     ../quickstart.yaml: unknown placement 'binpak'; expected one of: binpack, spread, ...
//   sweep.yaml:8:34: spec.axes[0].path: spec.polcy.placement: there is no field 'polcy' in
//     spec (its fields: seed, start, cluster, workload, policy) in ../quickstart.yaml
//
// and name both files when a combination is (a point whose cluster is too small for a job is
// reported at the point, with the base's field). Each distinct message is reported once
// however many points repeat it. Thrown together as InputErrors; a base that cannot be read
// throws FileError.

#include <string>
#include <vector>

#include "sim/cluster_loader.hpp"
#include "sim/scenario_spec.hpp"
#include "sim/sweep/sweep_spec.hpp"

namespace gantry {

// One scenario per point of `sweep`, in the order of sweep.points; their seeds are the base's.
std::vector<ScenarioSpec> build_sweep_variants(const SweepSpec& sweep,
                                               const TraceLoaders& traces = {});

// "placement=binpack, nodes=6": a point as the reports name it.
std::string point_label(const SweepSpec& sweep, const SweepPoint& point);

}  // namespace gantry
