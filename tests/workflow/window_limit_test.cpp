// How many runs a replay or backfill window may create (issue 8: a 1,000-year window of a
// 5-minute cron grew to 1.5 GB before printing anything).

#include "workflow/runner/window_limit.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/core/errors.hpp"

namespace gantry {
namespace {

using ::testing::HasSubstr;

Time at(const char* text) {
  Time t;
  EXPECT_TRUE(parse_rfc3339(text, t)) << text;
  return t;
}

PipelineSpec every_five_minutes(bool catchup) {
  PipelineSpec p;
  p.name = "five";
  ScheduleSpec s;
  s.cron = "*/5 * * * *";
  s.start = at("2026-01-01T00:00:00Z");
  s.catchup = catchup;
  p.schedule = s;
  return p;
}

TEST(WindowLimit, CountsTheTicksARunOrBackfillCreates) {
  const PipelineSpec p = every_five_minutes(true);
  // catchup: every tick from the schedule's start. One day = 288 ticks of 5 minutes, both
  // ends included in [2026-01-01T00:00, 2026-01-02T00:00]: 289.
  EXPECT_EQ(replay_ticks(p, at("2026-01-01T12:00:00Z"), at("2026-01-02T00:00:00Z"), 1000), 289u);
  // catchup false: the ticks of [from, until] (12 h: 145) plus the one caught up.
  EXPECT_EQ(replay_ticks(every_five_minutes(false), at("2026-01-01T12:00:00Z"),
                         at("2026-01-02T00:00:00Z"), 1000),
            146u);
  // Backfill: the window only. One hour: 13.
  EXPECT_EQ(backfill_ticks(p, at("2026-01-01T00:00:00Z"), at("2026-01-01T01:00:00Z"), 1000), 13u);
  // Counting stops one past the limit.
  EXPECT_EQ(backfill_ticks(p, at("2026-01-01T00:00:00Z"), at("2027-01-01T00:00:00Z"), 10), 11u);
  PipelineSpec manual;
  EXPECT_EQ(replay_ticks(manual, at("2026-01-01T00:00:00Z"), at("3026-01-01T00:00:00Z"), 10), 0u);
}

TEST(WindowLimit, RefusesAWindowOfMoreThanAMillionRuns) {
  const std::vector<PipelineSpec> ps{every_five_minutes(true)};
  // A year of 5-minute ticks (105,121 with both ends) is fine; 1,000 years are not.
  EXPECT_NO_THROW(check_window(ps, at("2026-01-01T00:00:00Z"), at("2027-01-01T00:00:00Z"), false,
                               "", "--until"));
  try {
    check_window(ps, at("2026-01-01T00:00:00Z"), at("3026-01-01T00:00:00Z"), false, "", "--until");
    ADD_FAILURE() << "expected a GantryError";
  } catch (const GantryError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--until: the window 2026-01-01T00:00:00Z .. 3026-01-01T00:00:00Z would create more "
              "than 1000000 runs (pipeline 'five', cron '*/5 * * * *', counting from "
              "2026-01-01T00:00:00Z); at most 1000000 runs are replayed at once: shorten the "
              "window, split it, or raise the limit with --max-runs if you mean it");
  }
  // Backfill counts only the pipeline asked for.
  EXPECT_NO_THROW(check_window(ps, at("2026-01-01T00:00:00Z"), at("3026-01-01T00:00:00Z"), true,
                               "other", "--to"));
  EXPECT_THROW(check_window(ps, at("2026-01-01T00:00:00Z"), at("3026-01-01T00:00:00Z"), true,
                            "five", "--to"),
               GantryError);
}

}  // namespace
}  // namespace gantry
