#pragma once
// Which elasticity policy the scheduler runs on elastic jobs (JobSpec::elastic), and its knobs.
// Parsed from a Scenario's `spec.policy.elasticity` (sim/scenario_loader). The rules themselves
// are stated in elastic_rules.hpp and scheduler.hpp ("Elasticity policies").

#include <algorithm>
#include <optional>
#include <string_view>
#include <vector>

#include "engine/core/time.hpp"

namespace gantry {

enum class ElasticPolicy : uint8_t {
  kNone,           // the scheduler never resizes on its own (the default)
  kScaleOutIdle,   // grow running elastic jobs into idle GPUs while nothing is pending
  kShrinkToAdmit,  // shrink running elastic jobs to admit a head that does not fit, before any
                   // preemption
  kGoodput,  // every `interval`, move Workers to where the marginal speed-up per GPU is highest
};
// "none", "scale-out-idle", "shrink-to-admit", "goodput" (the scenario file's names).
const char* to_string(ElasticPolicy p);
std::optional<ElasticPolicy> parse_elastic_policy(std::string_view name);

struct ElasticityConfig {
  // The policies on, in the order a cycle runs them (shrink-to-admit, scale-out-idle, goodput);
  // several may be: shrink-to-admit with scale-out-idle grows the jobs it shrank back once
  // nothing waits. Empty: none (kNone is never listed).
  std::vector<ElasticPolicy> policies;
  // goodput: how often the allocation is reconsidered (Pollux reallocates every 60 s; a resize
  // here checkpoints and restarts the job, so the default is longer).
  Duration interval = minutes(5);
  // goodput: a move is made only when its net gain over the interval, in GPU-seconds, is larger
  // than this (elastic_rules.hpp, goodput_net_gain()). 0: any positive net gain.
  double min_gain_gpu_seconds = 0;
  bool enabled() const { return !policies.empty(); }
  bool has(ElasticPolicy p) const {
    return std::find(policies.begin(), policies.end(), p) != policies.end();
  }
  // Turns `p` on (kNone: nothing), keeping the run order.
  void add(ElasticPolicy p);
};

}  // namespace gantry
