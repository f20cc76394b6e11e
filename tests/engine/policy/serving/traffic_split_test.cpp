// Traffic split (engine/policy/serving/traffic_split.hpp): largest-remainder percents worked by
// hand, and KServe's canary split.

#include "engine/policy/serving/traffic_split.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace gantry {
namespace {

using V = std::vector<int>;

int sum(const V& v) { return std::accumulate(v.begin(), v.end(), 0); }

TEST(TrafficSplit, EqualThirdsSumTo100NotKubeDls99) {
  // 100/3 = 33.33 each: floors 33+33+33 = 99, one percent left; the remainders tie (1/3 each),
  // so it goes to the earliest: 34/33/33. KubeDL's 100/3 integer division gives 33/33/33 = 99.
  const V got = split_traffic({1, 1, 1});
  EXPECT_EQ(got, (V{34, 33, 33}));
  EXPECT_EQ(sum(got), 100);
}

TEST(TrafficSplit, TwoToOne) {
  // 200/3 = 66.67 → 66 (remainder .67), 100/3 = 33.33 → 33 (.33); one left → the first: 67/33.
  EXPECT_EQ(split_traffic({2, 1}), (V{67, 33}));
}

TEST(TrafficSplit, LeftoverGoesToTheLargestRemainderNotTheFirst) {
  // 1:2 → 33.33 (.33) and 66.67 (.67): the leftover percent goes to the second: 33/67.
  EXPECT_EQ(split_traffic({1, 2}), (V{33, 67}));
}

TEST(TrafficSplit, WeightsNeedNotSumTo100) {
  // 9:1 → 900/10 = 90, 100/10 = 10, exact: 90/10.
  EXPECT_EQ(split_traffic({9, 1}), (V{90, 10}));
  // As written in percent already: unchanged.
  EXPECT_EQ(split_traffic({90, 10}), (V{90, 10}));
  // 0.3:0.7 → 30/70.
  EXPECT_EQ(split_traffic({0.3, 0.7}), (V{30, 70}));
}

TEST(TrafficSplit, SixEqualSharesHandOutFourLeftoverPercents) {
  // 100/6 = 16.67 each: floors 6 × 16 = 96, four left, all remainders equal → the first four.
  EXPECT_EQ(split_traffic({1, 1, 1, 1, 1, 1}), (V{17, 17, 17, 17, 16, 16}));
}

TEST(TrafficSplit, ZeroWeightsGetZero) {
  // {0,1,1}: 0, 50, 50.
  EXPECT_EQ(split_traffic({0, 1, 1}), (V{0, 50, 50}));
  // {0,1,1,1}: the thirds as above, shifted one place; the zero gets none of the leftover
  // although it comes first.
  EXPECT_EQ(split_traffic({0, 1, 1, 1}), (V{0, 34, 33, 33}));
  // One positive weight takes everything.
  EXPECT_EQ(split_traffic({0, 5, 0}), (V{0, 100, 0}));
}

TEST(CanarySplit, TenPercentOfTwo) {
  // The last predictor (latest revision) gets 10, the one before it 100 − 10 = 90.
  EXPECT_EQ(canary_split(2, 10), (V{90, 10}));
}

TEST(CanarySplit, TenPercentOfThreeLeavesTheOldestAtZero) {
  // Only the last two share: {0, 90, 10}.
  EXPECT_EQ(canary_split(3, 10), (V{0, 90, 10}));
}

TEST(CanarySplit, EdgesAndRounding) {
  EXPECT_EQ(canary_split(1, 10), (V{100}));    // one predictor takes all
  EXPECT_EQ(canary_split(2, 0), (V{100, 0}));  // no canary traffic
  EXPECT_EQ(canary_split(2, 100), (V{0, 100}));
  // 12.5 rounds half away from zero to 13; 12.4 to 12.
  EXPECT_EQ(canary_split(2, 12.5), (V{87, 13}));
  EXPECT_EQ(canary_split(2, 12.4), (V{88, 12}));
}

}  // namespace
}  // namespace gantry
