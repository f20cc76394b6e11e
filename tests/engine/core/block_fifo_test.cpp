#include "engine/core/block_fifo.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <random>
#include <vector>

namespace gantry {
namespace {

using Pool = BlockFifoPool<uint64_t>;
constexpr uint32_t kPer = Pool::kPerBlock;  // (1024 - 8) / 8 = 127 items of 8 bytes

std::vector<uint64_t> take_all(Pool& pool, Pool::Fifo& q) {
  std::vector<uint64_t> out;
  pool.drain(q, [&](uint64_t v) { out.push_back(v); });
  return out;
}

TEST(BlockFifo, BlockHoldsWhatItsSizeSays) {
  EXPECT_EQ(kPer, 127u);
  EXPECT_EQ(sizeof(Pool::Block), 1024u);
}

TEST(BlockFifo, PushPopAcrossBlockBoundaries) {
  Pool pool;
  Pool::Fifo q;
  EXPECT_TRUE(Pool::empty(q));
  // 3 blocks and a bit; pop part of the way through the second, push more, pop all.
  for (uint64_t i = 0; i < 3 * kPer + 5; ++i) pool.push(q, i);
  for (uint64_t i = 0; i < kPer + 10; ++i) {
    ASSERT_EQ(Pool::front(q), i);
    pool.pop_front(q);
  }
  for (uint64_t i = 3 * kPer + 5; i < 4 * kPer; ++i) pool.push(q, i);
  for (uint64_t i = kPer + 10; i < 4 * kPer; ++i) {
    ASSERT_FALSE(Pool::empty(q));
    ASSERT_EQ(Pool::front(q), i);
    pool.pop_front(q);
  }
  EXPECT_TRUE(Pool::empty(q));
  // Emptied exactly at a block's end, the queue starts over cleanly.
  pool.push(q, 42);
  EXPECT_EQ(Pool::front(q), 42u);
}

TEST(BlockFifo, DrainVisitsInOrderFromThePartlyPoppedHead) {
  Pool pool;
  Pool::Fifo q;
  for (uint64_t i = 0; i < 2 * kPer + 1; ++i) pool.push(q, i);
  pool.pop_front(q);
  pool.pop_front(q);
  const std::vector<uint64_t> got = take_all(pool, q);
  ASSERT_EQ(got.size(), 2 * kPer - 1);
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], i + 2);
  EXPECT_TRUE(Pool::empty(q));
}

TEST(BlockFifo, SpliceMovesEverythingInOrder) {
  Pool pool;
  Pool::Fifo from, to;
  for (uint64_t i = 0; i < kPer + 3; ++i) pool.push(from, i);
  Pool::splice(to, from);
  EXPECT_TRUE(Pool::empty(from));
  const std::vector<uint64_t> got = take_all(pool, to);
  ASSERT_EQ(got.size(), kPer + 3);
  EXPECT_EQ(got.front(), 0u);
  EXPECT_EQ(got.back(), kPer + 2);
}

// The point of the pool: draining one queue into others reuses the blocks just read, so moving
// n items around many times needs about n / kPer blocks, not a fresh allocation per move.
TEST(BlockFifo, DrainingIntoOtherQueuesReusesBlocks) {
  Pool pool;
  std::vector<Pool::Fifo> qs(16);
  constexpr uint64_t kItems = 20 * kPer;  // 20 full blocks
  for (uint64_t i = 0; i < kItems; ++i) pool.push(qs[0], i);
  EXPECT_EQ(pool.blocks_allocated(), 64u) << "one chunk of 64 blocks";
  // Scatter round-robin into queues 1..15, gather them back into queue 0, 50 times. In use at
  // any moment: the 20 blocks' worth of items, one partly filled block per queue, and the one
  // being read — under 40, so the first chunk suffices.
  std::vector<uint64_t> model(kItems);  // the same permutation applied to 0..kItems-1
  for (uint64_t i = 0; i < kItems; ++i) model[i] = i;
  for (int round = 0; round < 50; ++round) {
    size_t k = 0;
    pool.drain(qs[0], [&](uint64_t v) { pool.push(qs[1 + k++ % 15], v); });
    for (size_t j = 1; j < 16; ++j) pool.drain(qs[j], [&](uint64_t v) { pool.push(qs[0], v); });
    std::vector<uint64_t> next;
    for (size_t j = 0; j < 15; ++j)
      for (uint64_t i = j; i < kItems; i += 15) next.push_back(model[i]);
    model.swap(next);
  }
  EXPECT_EQ(pool.blocks_allocated(), 64u);
  EXPECT_EQ(take_all(pool, qs[0]), model);
}

TEST(BlockFifo, MatchesADequeUnderRandomOperations) {
  Pool pool;
  std::vector<Pool::Fifo> qs(4);
  std::vector<std::deque<uint64_t>> ref(4);
  std::mt19937_64 rng(3);
  for (int step = 0; step < 100'000; ++step) {
    const size_t a = rng() % 4;
    switch (rng() % 8) {
      case 0:
      case 1:
      case 2:
      case 3:
        pool.push(qs[a], static_cast<uint64_t>(step));
        ref[a].push_back(static_cast<uint64_t>(step));
        break;
      case 4:
      case 5:
      case 6:
        if (!ref[a].empty()) {
          ASSERT_EQ(Pool::front(qs[a]), ref[a].front());
          pool.pop_front(qs[a]);
          ref[a].pop_front();
        }
        break;
      default: {
        const size_t b = (a + 1 + rng() % 3) % 4;
        pool.drain(qs[a], [&](uint64_t v) { pool.push(qs[b], v); });
        ref[b].insert(ref[b].end(), ref[a].begin(), ref[a].end());
        ref[a].clear();
      }
    }
    ASSERT_EQ(Pool::empty(qs[a]), ref[a].empty());
  }
  for (size_t a = 0; a < 4; ++a) {
    const std::vector<uint64_t> got = take_all(pool, qs[a]);
    EXPECT_EQ(got, std::vector<uint64_t>(ref[a].begin(), ref[a].end()));
  }
}

}  // namespace
}  // namespace gantry
