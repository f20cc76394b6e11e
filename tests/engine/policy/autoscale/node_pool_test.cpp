// Drawing one pool node's provisioning delay and spot reclaim (engine/policy/autoscale/
// node_pool.hpp): exact values where no randomness is involved, the distributions' defining
// figures (mean, median, 90th percentile) over many draws otherwise.

#include "engine/policy/autoscale/node_pool.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace gantry {
namespace {

const Time kRequested = Time::from_micros(0) + hours(5);

NodePoolSpec on_demand(DelayDistribution delay) {
  NodePoolSpec p;
  p.name = "p";
  p.max_nodes = 10;
  p.provisioning = delay;
  return p;
}

TEST(NodePool, FixedDelayOnDemandHasNoReclaim) {
  RandomStream rng(1);
  const NodeDraw d = draw_node(on_demand(DelayDistribution::constant(minutes(3))), kRequested, rng);
  EXPECT_EQ(d.up, kRequested + minutes(3));
  EXPECT_FALSE(d.reclaim.has_value());
  EXPECT_FALSE(d.notice.has_value());
}

TEST(NodePool, DefaultNoticeIsAwsTwoMinutes) {
  EXPECT_EQ(SpotReclaim{}.notice, minutes(2));
  EXPECT_EQ(kGcpSpotNotice, seconds(30));
  EXPECT_STREQ(to_string(CapacityType::kSpot), "spot");
  EXPECT_STREQ(to_string(CapacityType::kOnDemand), "on-demand");
}

TEST(NodePool, UniformDelayStaysInItsBoundsAndAveragesTheMiddle) {
  // Uniform on [60 s, 180 s]: mean 120 s; 20,000 draws have a standard error of
  // (120 / sqrt(12)) / sqrt(20000) = 0.24 s, so 118..122 s is over 8 standard errors wide.
  const NodePoolSpec p = on_demand(DelayDistribution::uniform(seconds(60), seconds(180)));
  RandomStream rng(7);
  double sum = 0;
  constexpr int kDraws = 20'000;
  for (int i = 0; i < kDraws; ++i) {
    const Duration d = draw_node(p, kRequested, rng).up - kRequested;
    ASSERT_GE(d, seconds(60));
    ASSERT_LE(d, seconds(180));
    sum += d.seconds();
  }
  EXPECT_NEAR(sum / kDraws, 120.0, 2.0);
}

TEST(NodePool, LogNormalDelayHasItsMedianAndP90) {
  // median 3 min, p90 6 min: of 20,000 sorted draws, the 10,000th is near 180 s and the 18,000th
  // near 360 s (sampling error of a quantile here is about 1%; 5% bounds).
  const NodePoolSpec p = on_demand(DelayDistribution::lognormal(minutes(3), minutes(6)));
  RandomStream rng(11);
  std::vector<double> s;
  for (int i = 0; i < 20'000; ++i)
    s.push_back((draw_node(p, kRequested, rng).up - kRequested).seconds());
  std::sort(s.begin(), s.end());
  EXPECT_NEAR(s[10'000], 180.0, 9.0);
  EXPECT_NEAR(s[18'000], 360.0, 18.0);
}

TEST(NodePool, SpotReclaimIsExponentialFromNodeUpWithNotice) {
  // Mean 20 h: 20,000 draws of the time from up to reclaim average 20 h ± 0.14 h (one standard
  // error = 20 h / sqrt(20000)); bounds ±0.6 h. The notice is exactly 2 min before the reclaim
  // whenever the node lives longer than 2 min.
  NodePoolSpec p = on_demand(DelayDistribution::constant(minutes(4)));
  p.capacity = CapacityType::kSpot;
  p.reclaim.mean_time_to_reclaim = hours(20);
  RandomStream rng(3);
  double sum_h = 0;
  constexpr int kDraws = 20'000;
  for (int i = 0; i < kDraws; ++i) {
    const NodeDraw d = draw_node(p, kRequested, rng);
    ASSERT_EQ(d.up, kRequested + minutes(4));
    ASSERT_TRUE(d.reclaim && d.notice);
    ASSERT_GE(*d.reclaim, d.up);
    if (*d.reclaim - d.up >= minutes(2)) {
      ASSERT_EQ(*d.notice, *d.reclaim - minutes(2));
    }
    sum_h += (*d.reclaim - d.up).seconds() / 3600;
  }
  EXPECT_NEAR(sum_h / kDraws, 20.0, 0.6);
}

TEST(NodePool, NoticeNeverBeforeTheNodeIsUp) {
  // Mean 1 s: a life of 2 min or more has probability e^-120; the notice is then at `up`.
  NodePoolSpec p = on_demand(DelayDistribution::constant(minutes(1)));
  p.capacity = CapacityType::kSpot;
  p.reclaim.mean_time_to_reclaim = seconds(1);
  RandomStream rng(5);
  for (int i = 0; i < 100; ++i) {
    const NodeDraw d = draw_node(p, kRequested, rng);
    EXPECT_EQ(*d.notice, d.up);
    EXPECT_LT(*d.reclaim - d.up, minutes(2));
  }
}

TEST(NodePool, SameSeedSameDraws) {
  NodePoolSpec p = on_demand(DelayDistribution::lognormal(minutes(3), minutes(6)));
  p.capacity = CapacityType::kSpot;
  p.reclaim.mean_time_to_reclaim = hours(1);
  RandomStream a(42), b(42);
  for (int i = 0; i < 10; ++i) {
    const NodeDraw x = draw_node(p, kRequested, a);
    const NodeDraw y = draw_node(p, kRequested, b);
    EXPECT_EQ(x.up, y.up);
    EXPECT_EQ(x.reclaim, y.reclaim);
  }
}

}  // namespace
}  // namespace gantry
