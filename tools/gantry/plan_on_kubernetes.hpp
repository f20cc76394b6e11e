#pragma once
// `gantry plan PLAN.yaml --on kubernetes ...` (issue #25; README, "Sweeps on Kubernetes"): the
// planner searches here, and each batch of simulations it asks for (one round of seeds of
// some configurations, PlanEvaluator) runs on the user's cluster as one distributed sweep, so
// one Indexed Job per round (tools/gantry/kube_sweep_job.hpp), each with its progress bar.
//
// A batch is written as a Sweep of the plan's base (plan_batch_sweep): one point per run,
// `seeds: 1`, the point setting spec.cluster.racks to the configuration's racks
// (PlanVariants::racks_yaml) and spec.seed to the run's seed, and `growth:` the forecast step.
// The worker then loads exactly the scenario the local planner simulates, with the same seed,
// so the plan's answer is the local `gantry plan`'s, figure for figure. A run's figures are
// read back as its point's means (a point of one seed: the mean is the value itself).
//
// --dry-run prints the Job and Secret of the first round and creates nothing. --detach is
// refused: the search needs each round's figures to choose the next round. Interrupting the
// command (Ctrl-C) stops the search; the round's Job runs on to its end and is removed after
// --ttl, or at once with `gantry sweep cancel ID` (each round's id is printed on stderr).

#include <string>

#include "sim/plan/plan_evaluator.hpp"
#include "sim/plan/plan_spec.hpp"
#include "sim/plan/plan_variant.hpp"
#include "tools/gantry/kube_sweep_job.hpp"

namespace gantry::cli {

// The Sweep document (YAML) of `batch`, to be read as a file beside the plan's (its base is
// plan.base_as_written).
std::string plan_batch_sweep(const PlanSpec& plan, const PlanVariants& variants,
                             const PlanBatch& batch);

// Thrown by the --dry-run runner once it printed the first round's objects.
struct PlanDryRunPrinted {};

// The runner of `gantry plan --on kubernetes` for `plan` (loaded from its file): each batch
// submitted through `session` (null with --dry-run) and waited for. Throws GantryError (a
// failed Job, a cancelled sweep, a server's error), PlanDryRunPrinted.
PlanBatchRunner kube_plan_runner(const PlanSpec& plan, const PlanVariants& variants,
                                 const KubeSweepOptions& o, KubeSweepSession* session,
                                 bool no_progress);

}  // namespace gantry::cli
