#pragma once
// Node pools in the simulated world (spec.autoscaling; engine/policy/autoscale/): the pools'
// initial nodes come up at the start; the cluster autoscaler runs every scan interval (10 s,
// Cluster Autoscaler's --scan-interval) while work is under way, a node is being provisioned
// or a pool is above its minimum; its scale-ups become nodes after the pool's provisioning
// delay, its scale-downs leave at once. A spot node is reclaimed at an instant drawn when it is
// requested (NodeDraw), with the pool's notice first (TrainingWorld::spot_notice(): cordon,
// elastic jobs shrink off it), then TrainingWorld::remove_node() kills what is left. The cost
// meter integrates node-hours from node up to node gone (provisioning time is not billed).
//
// Pool nodes are named "<pool>-<k>" (k counts from 0 per pool, never reused) and carry
// pool_node_labels() (the pool's labels plus gantry.dev/node-pool and
// gantry.dev/capacity-type), so jobs can select them. The failure model (spec.failures) covers the
// scenario's own nodes, not pool nodes.
//
// Randomness: one stream per pool, "pools/<name>". Not thread-safe: the event loop's.

#include <vector>

#include "engine/core/event_loop.hpp"
#include "engine/core/random.hpp"
#include "engine/policy/autoscale/cluster_autoscaler.hpp"
#include "engine/policy/autoscale/pool_cost_meter.hpp"
#include "sim/node_pool_loader.hpp"
#include "sim/simulation_log.hpp"
#include "sim/training_world.hpp"

namespace gantry {

inline constexpr Duration kAutoscalerScanInterval = seconds(10);
inline constexpr const char* kReasonScaleDown = "ScaleDown";

class NodePoolDriver {
 public:
  // `world` must outlive the driver; its clock reads the scenario's start.
  NodePoolDriver(EventLoop& loop, TrainingWorld& world, const AutoscalingSpec& spec, uint64_t seed);

  // Brings the initial nodes up now and starts the autoscaler. Call once, before the loop runs.
  void start();
  // Per pool, up to `now`.
  std::vector<PoolLog> log(Time now) const;

 private:
  void arm();
  void tick();
  void request(int pool, int count);
  void node_up(int pool, const NodeDraw& draw);
  void gone(NodeId n, const std::string& reason);
  bool pool_unsettled(int pool) const;

  EventLoop& loop_;
  TrainingWorld& world_;
  std::vector<NodePoolSpec> specs_;
  ClusterAutoscaler autoscaler_;
  PoolCostMeter meter_;
  std::vector<PoolState> states_;
  std::vector<RandomStream> rng_;
  std::vector<PoolLog> logs_;
  std::vector<int> next_index_;  // per pool: k of the next node's name
  std::vector<int> pool_of_;     // per node id: its pool, or -1
  bool tick_armed_ = false;
};

}  // namespace gantry
