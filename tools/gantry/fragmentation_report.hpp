#pragma once
// Reports of the fragmentation experiment: a table per policy at the arrival levels a reader
// looks at, the stable JSON of `gantry simulate --format json`, the full curves as CSV, and
// the plot of unallocated GPU share against arrived workload.

#include <nlohmann/json.hpp>
#include <string>

#include "report/svg_line_chart.hpp"
#include "sim/fragmentation_result.hpp"

namespace gantry::cli {

// Tables at 80/90/95/100/110/120/130 % arrival (levels beyond the experiment's limit are left
// out).
std::string fragmentation_text(const FragmentationResult& r);

// One row per (policy, arrival level).
std::string fragmentation_csv(const FragmentationResult& r);

LineChart unallocated_chart(const FragmentationResult& r);

}  // namespace gantry::cli
