#pragma once
// What goes wrong with the hardware, as the simulated world consumes it: one fault or
// maintenance event at an instant. Failure processes (sim/fault_process.hpp) draw them from a
// seed, and `gantry simulate --events EVENTS.yaml` injects them by hand (sim/fault_events.hpp);
// TrainingWorld::apply(FaultEvent) carries them out.
//
// Plain data. Node and rack ids are the cluster's (engine/cluster/topology.hpp).

#include <cstdint>
#include <string>

#include "engine/cluster/topology.hpp"
#include "engine/core/time.hpp"

namespace gantry {

enum class FaultAction : uint8_t {
  kNodeDown,   // node: not ready; every job with a pod there is killed
  kNodeUp,     // node: ready again
  kRackDown,   // rack: every node of it down
  kRackUp,     // rack: every node of it up again
  kGpuFail,    // node, gpu: the GPU is out of service; the jobs using it are killed
  kGpuRepair,  // node, gpu: the GPU is back
  kDrain,      // node: cordoned; its jobs may end until `deadline`, then the rest is evicted;
               // once empty the node is under maintenance for `duration`, then uncordoned
};
const char* to_string(FaultAction action);

struct FaultEvent {
  Time at;
  FaultAction action = FaultAction::kNodeDown;
  NodeId node = -1;  // node and GPU actions, drains
  RackId rack = -1;  // rack actions
  int gpu = -1;      // GPU actions: the GPU's index on its node
  // Down and fail actions: the part comes back by itself after this (0: only an explicit up or
  // repair event brings it back). Drains: the maintenance time once the node is empty.
  Duration duration{};
  // Drains: how long running jobs may go on before they are evicted (0: evicted at once).
  Duration deadline{};
  // Why: "injected" for events from a file, else the failure process's cause ("GPU", "node",
  // "HBM3", "maintenance", ...). Reports group lost work by it.
  std::string cause;
};

}  // namespace gantry
