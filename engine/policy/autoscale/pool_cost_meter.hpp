#pragma once
// PoolCostMeter: node-hours and cost per node pool, integrated from the instant each node is up
// to the instant it is gone (removed by the autoscaler, reclaimed, failed for good), as a cloud
// bills by the second while an instance runs. Provisioning time is not billed (the node is not
// up yet); clouds differ here (AWS bills from the instance's running state, before the node
// joins the cluster), so the figure is a lower bound by the boot-to-join time.
//
// The world calls node_up() and node_down(); totals are up to any `now` at or after the last
// call. Cost = node-hours × the pool's price_per_hour. Totals split spot and on-demand.
//
// Every operation is O(1) on average but totals(), which is O(pools) for the spot and on-demand
// sums. Open nodes are integrated as count × now − Σ up instants, in microseconds relative to
// `start`: int64 holds them while nodes up × (now − start) < 2^63 µs, some 29,000 nodes for 10
// years.
// Not thread-safe (event loop thread).

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "engine/cluster/topology.hpp"
#include "engine/core/status.hpp"
#include "engine/core/time.hpp"
#include "engine/policy/autoscale/node_pool.hpp"

namespace gantry {

class PoolCostMeter {
 public:
  // No node may come up before `start`.
  PoolCostMeter(const std::vector<NodePoolSpec>& pools, Time start);

  // Node `node` of pool `pool` is up at `t`. An error (and no change) if the node is up already,
  // the pool is unknown or t is before start.
  Status node_up(int pool, NodeId node, Time t);
  // Node `node` is gone at `t`. An error (and no change) if it is not up or t is before its up.
  Status node_down(NodeId node, Time t);

  struct Totals {
    double node_hours = 0;
    double cost = 0;
  };
  // Pool p up to `now` (>= every instant given so far), nodes still up counted to `now`.
  Totals pool(int p, Time now) const;
  // Over every pool, and over the spot and the on-demand pools.
  struct Split {
    Totals all, spot, on_demand;
  };
  Split totals(Time now) const;

  int nodes_up(int p) const { return pools_[static_cast<size_t>(p)].open; }

 private:
  struct Pool {
    double price = 0;
    bool spot = false;
    int64_t closed_us = 0;   // node-microseconds of nodes gone
    int open = 0;            // nodes up
    int64_t open_start = 0;  // Σ (up − start) of nodes up, microseconds
  };
  struct Up {
    int pool;
    Time at;
  };
  Time start_;
  std::vector<Pool> pools_;
  std::unordered_map<NodeId, Up> up_;
};

}  // namespace gantry
