// PoolCostMeter (engine/policy/autoscale/pool_cost_meter.hpp): node-hours and cost worked by hand.

#include "engine/policy/autoscale/pool_cost_meter.hpp"

#include <gtest/gtest.h>

namespace gantry {
namespace {

const Time kStart = Time::from_micros(0) + hours(100);

std::vector<NodePoolSpec> pools() {
  NodePoolSpec od;
  od.name = "od";
  od.price_per_hour = 10.0;
  NodePoolSpec spot;
  spot.name = "spot";
  spot.price_per_hour = 4.0;
  spot.capacity = CapacityType::kSpot;
  return {od, spot};
}

TEST(PoolCostMeter, IntegratesFromUpToDownOrNow) {
  PoolCostMeter m(pools(), kStart);
  // od:   node 1 up 0 → down 1.5 h (1.5 h); node 3 up 1 h, still up at 2 h (1 h): 2.5 h, 25.
  // spot: node 2 up 0.5 h, still up at 2 h: 1.5 h, 6.
  ASSERT_TRUE(m.node_up(0, 1, kStart));
  ASSERT_TRUE(m.node_up(1, 2, kStart + minutes(30)));
  ASSERT_TRUE(m.node_up(0, 3, kStart + hours(1)));
  ASSERT_TRUE(m.node_down(1, kStart + minutes(90)));
  const Time now = kStart + hours(2);
  EXPECT_DOUBLE_EQ(m.pool(0, now).node_hours, 2.5);
  EXPECT_DOUBLE_EQ(m.pool(0, now).cost, 25.0);
  EXPECT_DOUBLE_EQ(m.pool(1, now).node_hours, 1.5);
  EXPECT_DOUBLE_EQ(m.pool(1, now).cost, 6.0);
  const PoolCostMeter::Split s = m.totals(now);
  EXPECT_DOUBLE_EQ(s.all.node_hours, 4.0);
  EXPECT_DOUBLE_EQ(s.all.cost, 31.0);
  EXPECT_DOUBLE_EQ(s.spot.cost, 6.0);
  EXPECT_DOUBLE_EQ(s.on_demand.node_hours, 2.5);
  EXPECT_EQ(m.nodes_up(0), 1);
  EXPECT_EQ(m.nodes_up(1), 1);
  // Half an hour later the two open nodes add 0.5 h each: od 3 h (30), spot 2 h (8).
  EXPECT_DOUBLE_EQ(m.totals(now + minutes(30)).all.cost, 38.0);
}

TEST(PoolCostMeter, ANodeCanComeBackAfterItWentDown) {
  // Node 7 of od: up 0-1 h, then again 2-3 h: 2 h, 20.
  PoolCostMeter m(pools(), kStart);
  ASSERT_TRUE(m.node_up(0, 7, kStart));
  ASSERT_TRUE(m.node_down(7, kStart + hours(1)));
  ASSERT_TRUE(m.node_up(0, 7, kStart + hours(2)));
  ASSERT_TRUE(m.node_down(7, kStart + hours(3)));
  EXPECT_DOUBLE_EQ(m.pool(0, kStart + hours(10)).cost, 20.0);
}

TEST(PoolCostMeter, RefusesWhatCannotHappen) {
  PoolCostMeter m(pools(), kStart);
  EXPECT_EQ(m.node_down(1, kStart).message(), "node 1 is not up");
  ASSERT_TRUE(m.node_up(0, 1, kStart + hours(1)));
  EXPECT_EQ(m.node_up(1, 1, kStart + hours(1)).message(), "node 1 is up already");
  EXPECT_EQ(m.node_down(1, kStart).message(), "node 1 down before it was up");
  EXPECT_EQ(m.node_up(2, 5, kStart).message(), "unknown node pool 2");
  EXPECT_EQ(m.node_up(0, 5, kStart - microseconds(1)).message(), "node 5 up before the start");
  // Nothing changed: node 1 still up from 1 h.
  EXPECT_DOUBLE_EQ(m.pool(0, kStart + hours(3)).node_hours, 2.0);
}

}  // namespace
}  // namespace gantry
