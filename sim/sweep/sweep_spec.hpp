#pragma once
// A `kind: Sweep` file (sim/sweep/sweep_loader.hpp reads it): a base Scenario, the axes that
// vary it, the seeds each combination runs with, and the metrics reported. Plain data.

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "engine/core/errors.hpp"
#include "sim/sweep/document_path.hpp"

namespace gantry {

// One value an axis takes, as the sweep file wrote it.
struct SweepValue {
  YAML::Node node;       // the value (a scalar, a list or a map), cloned from the sweep file
  std::string text;      // its YAML text on one line ("binpack", "90s", "{nodes: 6}")
  SourceLocation where;  // in the sweep file
  std::string field;     // its path in the sweep file: "spec.axes[1].values[0]"
};

struct SweepAxis {
  std::string name;                // unique; a column of the results database
  std::string path_text;           // as written
  std::vector<PathStep> path;      // parsed (sim/sweep/document_path.hpp)
  SourceLocation where;            // of `path` in the sweep file
  SourceLocation item_where;       // of the axis itself (spec.axes[i])
  std::vector<SweepValue> values;  // empty when the sweep lists `points` instead
};

// One combination: a value for every axis, in the order of `SweepSpec::axes`.
struct SweepPoint {
  std::vector<SweepValue> values;
  SourceLocation where;  // the points[i] entry, or the last axis's value for a product
  std::string field;
};

struct SweepSpec {
  std::string file;  // the sweep file, for messages
  std::string name;  // metadata.name
  std::string base;  // the base Scenario's path, resolved against the sweep file's folder
  std::string base_as_written;
  SourceLocation base_where;
  int seeds = 1;  // runs per point: seeds spec.seed, spec.seed + 1, ... of the base
  // Arrival-rate multiplier applied to every point's scenario once loaded (grow_load,
  // sim/sweep/load_growth.hpp): a Plan's forecast step, run as a sweep.
  double growth = 1.0;
  SourceLocation growth_where;
  std::vector<SweepAxis> axes;
  std::vector<SweepPoint> points;    // the cartesian product of the axes, or spec.points
  std::vector<std::string> metrics;  // sim/sweep/sweep_metrics.hpp names, in the order given
  SourceLocation metrics_where;
};

}  // namespace gantry
