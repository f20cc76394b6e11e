#pragma once
// How a training job's progress and its checkpoints share its running time, from one start (a
// run segment): the job starts at a checkpoint (or at step 0), runs `every` steps, writes a
// checkpoint for `cost` (no progress meanwhile), runs `every` more, and so on. No checkpoint is
// written after the job's last step. A failure or an eviction keeps the steps of the last
// completed checkpoint; a checkpoint being written when the job stops is lost with the steps
// before it.
//
// `every` is in steps: TrainingWork::checkpoint_every of running time, rounded down to whole
// steps (at least one), as trainers checkpoint every N steps. This is the model behind
// Young's and Daly's optimum interval √(2·C·MTBF) (C = cost).
//
// All arithmetic is integer microseconds; results saturate instead of overflowing.

#include <cstdint>

#include "engine/cluster/job.hpp"
#include "engine/core/time.hpp"

namespace gantry {

struct CheckpointPlan {
  Duration step;      // time of one step (> 0 for progress to happen)
  int64_t every = 0;  // steps between checkpoints; 0: the job never checkpoints
  Duration cost;      // time to write one checkpoint
};

// The plan of a job whose step takes `step`.
CheckpointPlan checkpoint_plan(const TrainingWork& work, Duration step);

struct SegmentProgress {
  int64_t steps = 0;  // whole steps done since the segment began
  int64_t saved = 0;  // ... of which a completed checkpoint holds
};

// Progress after running `elapsed` from the segment's start. With step <= 0 nothing is
// counted (the caller treats such a job as done at once).
SegmentProgress progress_after(const CheckpointPlan& plan, Duration elapsed);

// Running time from a segment's start to finish `steps` more steps (checkpoints included,
// none after the last step); saturates at Duration::max().
Duration time_to_run(const CheckpointPlan& plan, int64_t steps);

}  // namespace gantry
