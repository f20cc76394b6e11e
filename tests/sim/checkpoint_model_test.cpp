// The checkpoint model (sim/checkpoint_model.hpp): progress, saved steps and run time within
// one run segment, worked out by hand.

#include "sim/checkpoint_model.hpp"

#include <gtest/gtest.h>

namespace gantry {
namespace {

CheckpointPlan plan(Duration step, int64_t every, Duration cost) {
  return CheckpointPlan{step, every, cost};
}

TEST(CheckpointModel, TheIntervalIsRoundedDownToWholeSteps) {
  TrainingWork w;
  w.checkpoint_every = seconds(10);
  w.checkpoint_cost = seconds(2);
  // 10,000,000 µs / 108,778 µs = 91.9: every 91 steps.
  const CheckpointPlan p = checkpoint_plan(w, microseconds(108'778));
  EXPECT_EQ(p.every, 91);
  EXPECT_EQ(p.cost, seconds(2));
  // An interval shorter than a step still checkpoints after every step.
  w.checkpoint_every = microseconds(5);
  EXPECT_EQ(checkpoint_plan(w, microseconds(108'778)).every, 1);
  w.checkpoint_every = Duration{};
  EXPECT_EQ(checkpoint_plan(w, microseconds(108'778)).every, 0) << "never";
}

TEST(CheckpointModel, ProgressAlternatesStepsAndCheckpointWrites) {
  // 1 s steps, a checkpoint every 10 steps costing 5 s: cycles of 15 s.
  const CheckpointPlan p = plan(seconds(1), 10, seconds(5));
  // 34 s: two cycles (30 s, 20 steps saved), then 4 s: 4 more steps.
  EXPECT_EQ(progress_after(p, seconds(34)).steps, 24);
  EXPECT_EQ(progress_after(p, seconds(34)).saved, 20);
  // 27 s: one cycle (15 s), 12 s into the second: its 10 steps are done (10 s) and its
  // checkpoint is 2 s into its 5 s write, so only the first checkpoint holds.
  EXPECT_EQ(progress_after(p, seconds(27)).steps, 20);
  EXPECT_EQ(progress_after(p, seconds(27)).saved, 10);
  // A step in flight does not count: 3.9 s is 3 steps.
  EXPECT_EQ(progress_after(p, milliseconds(3'900)).steps, 3);
  EXPECT_EQ(progress_after(p, Duration{}).steps, 0);
}

TEST(CheckpointModel, WithoutCheckpointsNothingIsSaved) {
  const CheckpointPlan p = plan(seconds(1), 0, seconds(5));
  EXPECT_EQ(progress_after(p, seconds(34)).steps, 34);
  EXPECT_EQ(progress_after(p, seconds(34)).saved, 0);
  EXPECT_EQ(time_to_run(p, 25), seconds(25)) << "no checkpoint is ever written";
}

TEST(CheckpointModel, RunTimeCountsNoCheckpointAfterTheLastStep) {
  const CheckpointPlan p = plan(seconds(1), 10, seconds(5));
  // 25 steps: checkpoints after steps 10 and 20: 25 + 2 × 5 = 35 s.
  EXPECT_EQ(time_to_run(p, 25), seconds(35));
  // 20 steps: the checkpoint after step 20 is not needed: 20 + 1 × 5 = 25 s.
  EXPECT_EQ(time_to_run(p, 20), seconds(25));
  EXPECT_EQ(time_to_run(p, 0), Duration{});
  // Consistent with progress: at 35 s the 25 steps are done.
  EXPECT_EQ(progress_after(p, time_to_run(p, 25)).steps, 25);
  EXPECT_EQ(progress_after(p, time_to_run(p, 25) - microseconds(1)).steps, 24);
}

TEST(CheckpointModel, HugeJobsSaturateInsteadOfOverflowing) {
  const CheckpointPlan p = plan(hours(1), 1, hours(1));
  EXPECT_EQ(time_to_run(p, int64_t{1} << 40), Duration::max());
  // Cycles of 2 h (a step, then a checkpoint); a step more if the rest holds one.
  const int64_t max = Duration::max().micros();
  const int64_t cycle = 2 * hours(1).micros();
  const int64_t expected = max / cycle + (max % cycle >= hours(1).micros() ? 1 : 0);
  EXPECT_EQ(progress_after(p, Duration::max()).steps, expected);
}

}  // namespace
}  // namespace gantry
