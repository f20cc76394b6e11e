#include "engine/core/monotone_queue.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <utility>
#include <vector>

namespace gantry {
namespace {

// The event loop uses one digit width; the others exercise the same code with many more levels
// (1 bit: 64 levels of 2 buckets) or the widest digits allowed.
template <typename Q>
class MonotoneQueueTest : public ::testing::Test {};
using Widths = ::testing::Types<MonotoneQueue<uint32_t, NoPrefetchHint, 1>,
                                MonotoneQueue<uint32_t, NoPrefetchHint, 4>,
                                MonotoneQueue<uint32_t, NoPrefetchHint, 8>>;
TYPED_TEST_SUITE(MonotoneQueueTest, Widths);

// Pops everything; returns (key, value) in the order they came out.
template <typename Q>
std::vector<std::pair<int64_t, uint32_t>> drain(Q& q) {
  std::vector<std::pair<int64_t, uint32_t>> out;
  while (!q.empty()) {
    const int64_t k = q.top_key();
    out.emplace_back(k, q.top_value());
    q.pop();
  }
  return out;
}

TYPED_TEST(MonotoneQueueTest, EqualKeysComeOutInPushOrder) {
  TypeParam q;
  // Values are push indices; keys 30, 10, 20, 10, 30, 10, 20.
  const int64_t keys[] = {30, 10, 20, 10, 30, 10, 20};
  for (uint32_t i = 0; i < 7; ++i) q.push(keys[i], i);
  const std::vector<std::pair<int64_t, uint32_t>> expected = {{10, 1}, {10, 3}, {10, 5}, {20, 2},
                                                              {20, 6}, {30, 0}, {30, 4}};
  EXPECT_EQ(drain(q), expected);
}

// Keys pushed equal to one already waiting, after pops have moved that one down the levels,
// still come out after it.
TYPED_TEST(MonotoneQueueTest, EqualKeyPushedAfterARedistributionComesOutLater) {
  TypeParam q;
  q.push(1000, 0);
  q.push(1, 1);
  q.push(1000, 2);
  EXPECT_EQ(q.top_key(), 1);  // empties 1000's bucket around 1: both 1000s move down
  q.pop();
  q.push(1000, 3);  // equal to two moved items: must follow them
  q.push(999, 4);
  const std::vector<std::pair<int64_t, uint32_t>> expected = {
      {999, 4}, {1000, 0}, {1000, 2}, {1000, 3}};
  EXPECT_EQ(drain(q), expected);
}

TYPED_TEST(MonotoneQueueTest, PeekDoesNotRaiseTheFloor) {
  TypeParam q;
  q.push(100, 0);
  EXPECT_EQ(q.peek_key(), 100);
  q.push(50, 1);  // allowed: nothing was taken yet
  EXPECT_EQ(q.peek_key(), 50);
  EXPECT_EQ(q.top_key(), 50);
  EXPECT_EQ(q.top_value(), 1u);
  q.pop();
  EXPECT_EQ(q.peek_key(), 100);
  q.push(50, 2);  // the floor is 50, the last key taken: still allowed
  EXPECT_EQ(q.top_key(), 50);
  EXPECT_EQ(q.size(), 2u);
}

// Keys across the whole int64 range, negative included, as absolute times can be.
TYPED_TEST(MonotoneQueueTest, HugeGapsAndSignedKeys) {
  TypeParam q;
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const int64_t keys[] = {kMax, 0, kMin, -1, 1, kMax, kMin + 1, 1LL << 40, -(1LL << 40), kMin};
  for (uint32_t i = 0; i < 10; ++i) q.push(keys[i], i);
  const std::vector<std::pair<int64_t, uint32_t>> expected = {
      {kMin, 2}, {kMin, 9}, {kMin + 1, 6},  {-(1LL << 40), 8}, {-1, 3},
      {0, 1},    {1, 4},    {1LL << 40, 7}, {kMax, 0},         {kMax, 5}};
  EXPECT_EQ(drain(q), expected);
}

TYPED_TEST(MonotoneQueueTest, EmptyQueueAcceptsAnyKeyAgain) {
  TypeParam q;
  q.push(1'000'000, 0);
  EXPECT_EQ(q.top_key(), 1'000'000);
  q.pop();
  EXPECT_TRUE(q.empty());
  q.push(5, 1);  // below the last key taken, but nothing waits
  EXPECT_EQ(q.top_key(), 5);
}

// Randomised against std::multimap, which keeps equal keys in insertion order: pops interleaved
// with pushes at or after the last key popped, as the event loop does (a callback schedules
// more timers at now or later). Several delay spreads: ties galore, a typical spread, and gaps
// of up to 2^40 (HugeGapsAndSignedKeys covers the extremes).
TYPED_TEST(MonotoneQueueTest, MatchesAMultimapUnderRandomInterleaving) {
  for (const int64_t spread : {int64_t{4}, int64_t{1'000'000}, int64_t{1} << 40}) {
    std::mt19937_64 rng(static_cast<uint64_t>(spread));
    TypeParam q;
    std::multimap<int64_t, uint32_t> ref;
    uint32_t next = 0;
    int64_t now = -(int64_t{1} << 62);
    std::uniform_int_distribution<int64_t> delay(0, spread);
    for (int step = 0; step < 20'000; ++step) {
      // 1.5 pushes per pop on average, then 0.5: the queue grows to thousands, then drains.
      const int pushes = static_cast<int>(rng() % (step < 10'000 ? 4 : 2));
      for (int i = 0; i < pushes; ++i) {
        const int64_t key = now + delay(rng);
        q.push(key, next);
        ref.emplace(key, next);
        ++next;
      }
      ASSERT_EQ(q.size(), ref.size());
      if (ref.empty()) continue;
      ASSERT_EQ(q.peek_key(), ref.begin()->first);
      ASSERT_EQ(q.top_key(), ref.begin()->first) << "step " << step;
      ASSERT_EQ(q.top_value(), ref.begin()->second) << "step " << step;
      now = ref.begin()->first;
      q.pop();
      ref.erase(ref.begin());
    }
    while (!ref.empty()) {
      ASSERT_EQ(q.top_key(), ref.begin()->first);
      ASSERT_EQ(q.top_value(), ref.begin()->second);
      q.pop();
      ref.erase(ref.begin());
    }
    EXPECT_TRUE(q.empty());
  }
}

// Thousands of equal keys span several pool blocks and must still come out in order.
TYPED_TEST(MonotoneQueueTest, ManyTiesAcrossBlocks) {
  TypeParam q;
  for (uint32_t i = 0; i < 5'000; ++i) q.push(i % 2 == 0 ? 7 : 9, i);
  uint32_t expect = 0;
  for (int64_t key : {7, 9}) {
    for (uint32_t n = 0; n < 2'500; ++n) {
      ASSERT_EQ(q.top_key(), key);
      ASSERT_EQ(q.top_value(), expect + 2 * n);
      q.pop();
    }
    expect = 1;
  }
  EXPECT_TRUE(q.empty());
}

// The prefetch hint is only a hint, but it must only ever name values that are in the queue:
// the event loop prefetches the timer-table slot the value indexes.
struct RecordingHint {
  std::vector<uint32_t>* seen;
  void operator()(uint32_t v) const { seen->push_back(v); }
};

TEST(MonotoneQueueHint, NamesOnlyQueuedValues) {
  std::vector<uint32_t> seen;
  MonotoneQueue<uint32_t, RecordingHint, 4> q(RecordingHint{&seen});
  std::set<uint32_t> queued;
  std::mt19937_64 rng(7);
  int64_t now = 0;
  uint32_t next = 0;
  for (int step = 0; step < 5'000; ++step) {
    for (int i = 0; i < 2; ++i) {
      q.push(now + static_cast<int64_t>(rng() % 5'000), next);
      queued.insert(next++);
    }
    for (uint32_t v : seen) ASSERT_TRUE(queued.count(v)) << v;
    seen.clear();
    now = q.top_key();  // may move items down the levels, and hint some
    for (uint32_t v : seen) ASSERT_TRUE(queued.count(v)) << v;
    seen.clear();
    queued.erase(q.top_value());
    q.pop();
  }
  // An item equal to the last key taken comes out next among later keys: hinted on arrival.
  ASSERT_FALSE(q.empty());
  seen.clear();
  q.push(now, next);
  EXPECT_EQ(seen, std::vector<uint32_t>{next});
}

}  // namespace
}  // namespace gantry
