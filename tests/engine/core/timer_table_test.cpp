#include "engine/core/timer_table.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace gantry {
namespace {

TEST(TimerTable, TakeRunsTheStoredCallbackAndFreesTheSlot) {
  TimerTable t;
  std::string ran;
  const uint32_t a = t.add(InlineCallback::make([&ran] { ran += "a"; }), 1);
  const uint32_t b = t.add(InlineCallback::make([&ran] { ran += "b"; }), 2);
  EXPECT_NE(a, b);
  EXPECT_TRUE(t.holds(a, 1));
  EXPECT_FALSE(t.holds(a, 2)) << "another timer's seq";
  InlineCallback fb = t.take(b);
  fb();
  fb.release();
  EXPECT_EQ(ran, "b");
  EXPECT_FALSE(t.holds(b, 2)) << "ran";
  // The slot freed last is reused first (it is the one still in cache).
  EXPECT_EQ(t.add(InlineCallback::make([] {}), 3), b);
  EXPECT_FALSE(t.holds(b, 2)) << "a stale id does not name the slot's new timer";
  EXPECT_TRUE(t.holds(b, 3));
}

TEST(TimerTable, CancelReleasesAtOnceAndFreesOnlyWhenTheEntryComesUp) {
  TimerTable t;
  auto owned = std::make_shared<int>(7);  // held by a heap-stored callback
  const uint32_t a = t.add(InlineCallback::make([owned] { ++*owned; }), 1);
  EXPECT_EQ(owned.use_count(), 2);
  t.cancel(a);
  EXPECT_EQ(owned.use_count(), 1) << "released by cancel, not when the entry comes up";
  EXPECT_TRUE(t.cancelled(a));
  EXPECT_FALSE(t.holds(a, 1));
  // Still taken: a new timer gets another slot until the loop frees this one.
  const uint32_t b = t.add(InlineCallback::make([] {}), 2);
  EXPECT_NE(b, a);
  t.free(a);
  EXPECT_EQ(t.add(InlineCallback::make([] {}), 3), a);
}

TEST(TimerTable, HoldsRejectsOutOfRangeAndNullIds) {
  TimerTable t;
  EXPECT_FALSE(t.holds(0, 0));
  EXPECT_FALSE(t.holds(5, 1));
  t.add(InlineCallback::make([] {}), 1);
  EXPECT_FALSE(t.holds(0, 0)) << "seq 0 names nothing, even where a free slot has seq 0";
}

TEST(TimerTable, ReleasesPendingCallbacksOnDestruction) {
  auto owned = std::make_shared<int>(0);
  {
    TimerTable t;
    t.add(InlineCallback::make([owned] { ++*owned; }), 1);
    t.add(InlineCallback::make([owned] { ++*owned; }), 2);
    EXPECT_EQ(owned.use_count(), 3);
  }
  EXPECT_EQ(owned.use_count(), 1);
  EXPECT_EQ(*owned, 0) << "released, never run";
}

}  // namespace
}  // namespace gantry
