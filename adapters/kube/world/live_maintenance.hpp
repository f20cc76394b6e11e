#pragma once
// A scenario's scheduled maintenance (spec.failures.maintenance: sim/fault_spec.hpp,
// MaintenanceSpec) played against a live cluster: each drain the simulator would draw
// (sim/fault_process.hpp, FaultTimeline: one kDrain FaultEvent per node, with the entry's
// deadline and duration) is started at its instant through the world's LiveDrainer
// (KubeWorld::drain), so the drained gangs reach the scheduler with reason Drain as in the
// simulator. `gantry serve --world kube --cluster SCENARIO` runs one.
//
// Only maintenance is played: the spec's failure processes are dropped (a real cluster's
// hardware fails by itself). Instants count from `start` (gantry serve: its own start, as the
// simulated world of `gantry serve --world sim` shifts its scenario; a restarted server starts
// the schedule again). Drains are drawn a window at a time (`window`, a day by default), so a
// recurring schedule (`every`) never ends and never piles up timers. At a drain's instant only
// the leader acts (an inactive scheduler's world skips it, counted); a node already draining
// is skipped as well (one drain at a time, as in the simulator). A node of the scenario that
// the cluster does not have: the drainer's cordon fails (a DrainReport kError).
//
// Threads: construct, start() and stop() on the event loop's thread (or before it runs); the
// world must have `drains` on and outlive this. Destroy after stop().

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "adapters/kube/world/kube_world.hpp"
#include "engine/cluster/topology.hpp"
#include "engine/core/event_loop.hpp"
#include "sim/fault_process.hpp"
#include "sim/fault_spec.hpp"

namespace gantry::kube {

class LiveMaintenance {
 public:
  // `spec`'s maintenance entries must be valid for `topology` (sim/fault_loader.hpp checks
  // them); both are copied.
  LiveMaintenance(KubeWorld& world, EventLoop& loop, const FaultSpec& spec,
                  const Topology& topology, Time start, uint64_t seed, Duration window = hours(24));
  ~LiveMaintenance();
  LiveMaintenance(const LiveMaintenance&) = delete;
  LiveMaintenance& operator=(const LiveMaintenance&) = delete;

  // Draws the first window and sets a timer for each of its drains; then the next window at
  // its end, and so on.
  void start();
  void stop();

  size_t drains_started() const { return started_; }
  // Not the leader at the instant, or the node draining already.
  size_t drains_skipped() const { return skipped_; }

 private:
  void draw();
  void due(const FaultEvent& e);

  KubeWorld& world_;
  EventLoop& loop_;
  Topology topology_;
  std::unique_ptr<FaultTimeline> timeline_;
  Duration window_;
  std::vector<TimerId> timers_;  // the drains of the window, then the next window's draw
  size_t started_ = 0;
  size_t skipped_ = 0;
  bool stopped_ = false;
};

}  // namespace gantry::kube
