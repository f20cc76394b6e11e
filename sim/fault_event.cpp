#include "sim/fault_event.hpp"

namespace gantry {

// The spellings of the --events file (sim/fault_events.hpp).
const char* to_string(FaultAction action) {
  switch (action) {
    case FaultAction::kNodeDown:
      return "node-down";
    case FaultAction::kNodeUp:
      return "node-up";
    case FaultAction::kRackDown:
      return "rack-down";
    case FaultAction::kRackUp:
      return "rack-up";
    case FaultAction::kGpuFail:
      return "gpu-fail";
    case FaultAction::kGpuRepair:
      return "gpu-repair";
    case FaultAction::kDrain:
      return "drain";
  }
  return "?";
}

}  // namespace gantry
