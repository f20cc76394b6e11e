#pragma once
// An Experiment as loaded from YAML (kind: Experiment): a study run many times over, with its
// own inputs, as opposed to a Scenario (sim/scenario_spec.hpp), which is one simulated cluster
// and workload. Plain data; sim/experiment_loader fills it, sim/experiment_runner runs it.
//
// One type exists today, `Fragmentation` (sim/fragmentation_spec.hpp): the GPU-sharing
// experiment of the FGD paper on a trace's nodes and pods.

#include <cstdint>
#include <string>

#include "sim/fragmentation_spec.hpp"

namespace gantry {

struct ExperimentSpec {
  std::string name;
  std::string file;   // where it was loaded from, for messages
  uint64_t seed = 1;  // the first seed; seed, seed + 1, ... for fragmentation.seeds runs
  FragmentationExperimentSpec fragmentation;
};

}  // namespace gantry
