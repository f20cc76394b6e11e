#include "workflow/runner/trigger_rule.hpp"

namespace gantry {

RuleVerdict evaluate_trigger_rule(TriggerRule rule, const UpstreamCounts& up) {
  if (up.total == 0) return RuleVerdict::kRun;
  const int bad = up.failed + up.upstream_failed;
  const int good = up.succeeded + up.skipped;
  const bool all_done = up.finished() == up.total;
  switch (rule) {
    case TriggerRule::kAllSuccess:
      if (bad > 0) return RuleVerdict::kUpstreamFailed;
      return good == up.total ? RuleVerdict::kRun : RuleVerdict::kWait;
    case TriggerRule::kAllFailed:
      if (good > 0) return RuleVerdict::kSkip;
      return bad == up.total ? RuleVerdict::kRun : RuleVerdict::kWait;
    case TriggerRule::kAllDone:
      return all_done ? RuleVerdict::kRun : RuleVerdict::kWait;
    case TriggerRule::kOneSuccess:
      if (up.succeeded > 0) return RuleVerdict::kRun;
      if (!all_done) return RuleVerdict::kWait;
      return bad > 0 ? RuleVerdict::kUpstreamFailed : RuleVerdict::kSkip;
    case TriggerRule::kOneFailed:
      if (bad > 0) return RuleVerdict::kRun;
      return all_done ? RuleVerdict::kSkip : RuleVerdict::kWait;
    case TriggerRule::kNoneFailed:
      if (bad > 0) return RuleVerdict::kUpstreamFailed;
      return all_done ? RuleVerdict::kRun : RuleVerdict::kWait;
    case TriggerRule::kAlways:
      return RuleVerdict::kRun;
  }
  return RuleVerdict::kWait;
}

}  // namespace gantry
