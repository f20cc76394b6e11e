#pragma once
// The flags of `gantry simulate`, shared by the training simulation and the fragmentation
// experiment paths.

#include <cstdint>
#include <optional>
#include <string>

#include "tools/gantry/cli_inputs.hpp"

namespace gantry::cli {

struct SimulateOptions {
  std::string scenario;
  std::optional<uint64_t> seed;  // overrides the scenario's seed (experiment: one seed only)
  std::string out_dir;           // default gantry-out/<scenario name>
  std::string format = "text";   // text | json
  std::string policy;            // placement plugin, or one experiment policy
  bool no_progress = false;
  std::string actions;    // write the action log here (engine/policy/action_log.hpp)
  bool jobs = false;      // --jobs: every job in the JSON report (--format json only)
  std::string events;     // --events: faults and drains to inject (sim/fault_events.hpp)
  unsigned parallel = 0;  // --parallel: an Experiment's runs at once; 0 = not given (the cores)
};

}  // namespace gantry::cli
