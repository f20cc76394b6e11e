#pragma once
// Trigger rules (issue #4): when a task with upstream tasks may start, given how its upstream
// ended so far. A pure function; the scheduler re-evaluates it each time an upstream finishes.
//
// Upstream outcomes are counted as: succeeded; skipped; failed (failed or killed);
// upstream_failed. A task without upstream runs when its run starts, whatever its rule.
//
// | rule        | run when                         | otherwise, once it can never run   |
// |-------------|----------------------------------|------------------------------------|
// | all_success | all succeeded or skipped         | upstream_failed (any failed / u_f) |
// | all_failed  | all failed or upstream_failed    | skipped (any succeeded or skipped) |
// | all_done    | all finished                     | -                                  |
// | one_success | one succeeded (not waiting)      | all finished, none succeeded:      |
// |             |                                  | upstream_failed if one failed or   |
// |             |                                  | u_f, else skipped                  |
// | one_failed  | one failed or u_f (not waiting)  | skipped (all finished, none failed)|
// | none_failed | all finished, none failed or u_f | upstream_failed (any failed / u_f) |
// | always      | at once, without waiting (Airflow's meaning: upstream only orders the   |
// |             | graph drawing, not the start)                                           |
//
// These are Airflow's definitions, except that all_success accepts skipped upstream (issue
// #4: skip: true tasks are "done without running; downstream treats it as satisfied"), where
// Airflow would skip the downstream task.

#include "workflow/pipeline/pipeline_spec.hpp"

namespace gantry {

struct UpstreamCounts {
  int total = 0;
  int succeeded = 0;
  int skipped = 0;
  int failed = 0;  // failed or killed
  int upstream_failed = 0;
  int finished() const { return succeeded + skipped + failed + upstream_failed; }
};

enum class RuleVerdict {
  kWait,            // not decided yet
  kRun,             // start it (or, for skip: true, mark it skipped)
  kSkip,            // the rule can never fire: skipped
  kUpstreamFailed,  // the rule can never fire because of a failure: upstream_failed
};

RuleVerdict evaluate_trigger_rule(TriggerRule rule, const UpstreamCounts& up);

}  // namespace gantry
