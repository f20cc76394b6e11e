#pragma once
// The pure rules of the elasticity policies (SchedulerConfig::elasticity): orders, step
// arithmetic and goodput's value of a move. No cluster, no scheduler, so each rule is tested
// on a few numbers worked by hand (tests/engine/policy/elastic/elastic_rules_test.cpp); the
// scheduler applies them (scheduler.hpp, "Elasticity policies").
//
// Sizes move by whole scale steps (ElasticSpec::scale_step, at least 1): a job at n Workers
// may grow by k·step while n + k·step <= maxReplicas and shrink by k·step while
// n − k·step >= minReplicas. A job with min 1, max 4, step 2 at 1 Worker may grow to 3, never
// to 4: sizes stay on the job's step grid.
//
// ## Goodput (in the spirit of Pollux, Qiao et al., OSDI'21)
//
// Per job j at n Workers of g GPUs each, with T(n) = ThroughputModel::steps_per_second() and
// m = minReplicas (at least 1): its *effective GPUs*
//
//   U(n) = T(n) / T(m) · m · g
//
// the GPUs it would need at its minimum size's efficiency to go as fast, so a job that scales
// perfectly has U(n) = n·g and one that does not scale at all U(n) = m·g. With s = the job's
// scale step:
//
//   gain per GPU  = (U(n+s) − U(n)) / (s·g)    (growing by one step; n + s <= max)
//   loss per GPU  = (U(n) − U(n−s)) / (s·g)    (shrinking by one step; n − s >= min)
//
// Growing receiver r by one step, from idle GPUs (no donor) or from GPUs donor d gives up by
// shrinking one step, over an interval I, with c = ElasticSpec::resize_cost (0 counts as free)
// and G' = the job's GPUs after its resize:
//
//   net gain = I · [(U_r(n_r+s_r) − U_r(n_r)) − (U_d(n_d) − U_d(n_d−s_d))] − c_r·G'_r − c_d·G'_d
//
// in GPU-seconds (the donor's terms are 0 without a donor): the effective GPU-seconds gained
// over the interval, minus the GPU-seconds both jobs' GPUs sit idle while they checkpoint and
// restart. A move is made when net gain > ElasticityConfig::min_gain_gpu_seconds.
//
// Receivers are tried by gain per GPU, highest first; donors by loss per GPU, lowest first
// (receiver_order(), donor_order()). Ties: higher priority first for receivers, lower for
// donors, then started earlier (receivers) or later (donors), then id.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "engine/cluster/job.hpp"
#include "engine/core/time.hpp"

namespace gantry {

// A running elastic job as the policies see it.
struct ElasticJob {
  JobId id = -1;
  int priority = 0;
  Time started;  // when it last started running
  int workers = 0;
  ElasticSpec spec;
  double gpus_per_worker = 0;  // GPU milli of one Worker / 1000
};

// Scale steps a job may grow (grow_steps) or shrink (shrink_steps) from `workers` (above).
int grow_steps(const ElasticSpec& spec, int workers);
int shrink_steps(const ElasticSpec& spec, int workers);
// ElasticSpec::scale_step, at least 1.
int step_of(const ElasticSpec& spec);

// scale-out-idle's order: higher priority first, then started earlier, then lower id.
void sort_for_growth(std::vector<ElasticJob>& jobs);
// shrink-to-admit's order: lower priority first, then started later, then higher id.
void sort_for_shrink(std::vector<ElasticJob>& jobs);

// A job with its throughput at the sizes goodput looks at (0 where a size is out of range).
struct GoodputJob {
  ElasticJob job;
  double t_min = 0;   // T(m)
  double t_down = 0;  // T(n − s)
  double t_now = 0;   // T(n)
  double t_up = 0;    // T(n + s)
};

// U(T) = T / T(m) · m · g for a throughput T of this job; 0 when T(m) is 0.
double effective_gpus(const GoodputJob& j, double throughput);
// Gain per GPU of one step up; nullopt when the job cannot grow, its Workers hold no GPU or its
// throughput is unknown (T(m) or T(n+s) is 0). May be negative (a job that slows down).
std::optional<double> gain_per_gpu(const GoodputJob& j);
// Loss per GPU of one step down; nullopt when the job cannot shrink, its Workers hold no GPU or
// its throughput is unknown (T(m) or T(n−s) is 0).
std::optional<double> loss_per_gpu(const GoodputJob& j);
// Net gain in GPU-seconds of growing `r` by one step from idle GPUs (`d` null) or from donor
// `d` shrinking by one step, over `interval` (above).
double goodput_net_gain(const GoodputJob& r, const GoodputJob* d, Duration interval);
// Indices of the jobs that can grow, highest gain per GPU first; of those that can shrink,
// lowest loss per GPU first.
std::vector<size_t> receiver_order(std::span<const GoodputJob> jobs);
std::vector<size_t> donor_order(std::span<const GoodputJob> jobs);

}  // namespace gantry
