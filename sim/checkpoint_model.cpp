#include "sim/checkpoint_model.hpp"

#include <algorithm>
#include <limits>

namespace gantry {

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// a·b + c, saturating at kMax; all non-negative.
int64_t mul_add(int64_t a, int64_t b, int64_t c) {
  if (a != 0 && b > (kMax - c) / a) return kMax;
  return a * b + c;
}

}  // namespace

CheckpointPlan checkpoint_plan(const TrainingWork& work, Duration step) {
  CheckpointPlan plan;
  plan.step = step;
  plan.cost = work.checkpoint_cost;
  const int64_t every = work.checkpoint_every.micros();
  if (every > 0 && step.micros() > 0) plan.every = std::max<int64_t>(1, every / step.micros());
  return plan;
}

SegmentProgress progress_after(const CheckpointPlan& plan, Duration elapsed) {
  const int64_t step = plan.step.micros();
  const int64_t e = std::max<int64_t>(0, elapsed.micros());
  if (step <= 0) return {};
  if (plan.every == 0) return {e / step, 0};
  // One cycle: `every` steps, then a checkpoint.
  const int64_t cycle = mul_add(plan.every, step, plan.cost.micros());
  const int64_t cycles = e / cycle;
  const int64_t rest = e - cycles * cycle;
  const int64_t saved = cycles * plan.every;  // cycles ≤ e / (every·step), so no overflow
  return {saved + std::min(plan.every, rest / step), saved};
}

Duration time_to_run(const CheckpointPlan& plan, int64_t steps) {
  const int64_t step = plan.step.micros();
  if (steps <= 0 || step <= 0) return Duration(0);
  const int64_t checkpoints = plan.every == 0 ? 0 : (steps - 1) / plan.every;
  const int64_t compute = mul_add(steps, step, 0);
  const int64_t writing = mul_add(checkpoints, plan.cost.micros(), 0);
  if (compute == kMax || writing > kMax - compute) return Duration::max();
  return Duration(compute + writing);
}

}  // namespace gantry
