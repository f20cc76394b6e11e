// The pure rules of the elasticity policies (engine/policy/elastic/elastic_rules.hpp), on
// numbers worked by hand.

#include "engine/policy/elastic/elastic_rules.hpp"

#include <gtest/gtest.h>

#include "engine/policy/elastic/elastic_config.hpp"

namespace gantry {
namespace elastic_rules_test {

const Time kT0 = Time::from_micros(1'700'000'000'000'000);

ElasticJob job(JobId id, int priority, int64_t started_s, int workers, ElasticSpec spec,
               double gpus_per_worker = 1) {
  return ElasticJob{id, priority, kT0 + seconds(started_s), workers, spec, gpus_per_worker};
}

// min 1, max 4, step 2: from 1 one step up (to 3), never to 4; from 3 one step down (to 1).
// Step 0 counts as 1. min 0 counts as 1 (a job keeps a Worker).
TEST(ElasticRules, StepsStayOnTheStepGrid) {
  const ElasticSpec s{1, 4, 2, Duration(0)};
  EXPECT_EQ(grow_steps(s, 1), 1);
  EXPECT_EQ(shrink_steps(s, 1), 0);
  EXPECT_EQ(grow_steps(s, 3), 0);
  EXPECT_EQ(shrink_steps(s, 3), 1);
  const ElasticSpec unit{0, 5, 0, Duration(0)};
  EXPECT_EQ(step_of(unit), 1);
  EXPECT_EQ(grow_steps(unit, 2), 3);
  EXPECT_EQ(shrink_steps(unit, 2), 1);
}

// Growth: priority 2 first; among priority 1, started at 5 s before 10 s; same start: id 3
// before id 4. Shrink: the exact reverse.
TEST(ElasticRules, GrowthAndShrinkOrders) {
  const ElasticSpec s{1, 8, 1, Duration(0)};
  std::vector<ElasticJob> jobs{job(4, 1, 10, 2, s), job(1, 1, 5, 2, s), job(2, 2, 20, 2, s),
                               job(3, 1, 10, 2, s)};
  sort_for_growth(jobs);
  std::vector<JobId> ids;
  for (const ElasticJob& j : jobs) ids.push_back(j.id);
  EXPECT_EQ(ids, (std::vector<JobId>{2, 1, 3, 4}));
  sort_for_shrink(jobs);
  ids.clear();
  for (const ElasticJob& j : jobs) ids.push_back(j.id);
  EXPECT_EQ(ids, (std::vector<JobId>{4, 3, 1, 2}));
}

// A job of 2-GPU Workers, min 2, at 4 Workers, step 2: T(2) = 10, T(2) = 10 (down), T(4) = 16,
// T(6) = 19 steps/s.
//   U(T) = T / 10 · 2 · 2: U(4) = 6.4, U(6) = 7.6, U(2) = 4.
//   gain per GPU = (7.6 − 6.4) / 4 = 0.3; loss per GPU = (6.4 − 4) / 4 = 0.6.
// Alone, from idle GPUs, over 100 s with resize cost 5 s: 100 · 1.2 − 5 · 12 GPUs = 60.
// A second job of 1-GPU Workers, min 1, at 2, step 1, T(1) = 1, T(2) = 1.5 (down = T(1)):
//   U(2) = 1.5 · 1 · 1, U(1) = 1: loss per GPU = 0.5; its resize cost 2 s at 1 GPU after.
//   net gain = 100 · (1.2 − 0.5) − 60 − 2 · 1 = 8.
TEST(ElasticRules, GoodputArithmetic) {
  GoodputJob a{job(0, 0, 0, 4, ElasticSpec{2, 8, 2, seconds(5)}, 2), 10, 10, 16, 19};
  EXPECT_DOUBLE_EQ(effective_gpus(a, 16), 6.4);
  EXPECT_DOUBLE_EQ(*gain_per_gpu(a), 0.3);
  EXPECT_DOUBLE_EQ(*loss_per_gpu(a), 0.6);
  EXPECT_NEAR(goodput_net_gain(a, nullptr, seconds(100)), 60, 1e-9);
  GoodputJob b{job(1, 0, 0, 2, ElasticSpec{1, 2, 1, seconds(2)}, 1), 1, 1, 1.5, 0};
  EXPECT_DOUBLE_EQ(*loss_per_gpu(b), 0.5);
  EXPECT_FALSE(gain_per_gpu(b)) << "at its maximum";
  EXPECT_NEAR(goodput_net_gain(a, &b, seconds(100)), 8, 1e-9);
}

// Receivers by gain per GPU, highest first; donors by loss, lowest first; equal values by
// priority. Job 0: gain 0.3, loss 0.6 (above); job 1: T = n (U(n) = n at 1 GPU per Worker, min 1),
// at 2 of max 3: gain 1, loss 1; job 2 the same at priority 1: it goes before job 1 as a
// receiver, after it as a donor (job 0, losing least, is the first donor); job 3 has no
// throughput: in neither.
TEST(ElasticRules, ReceiverAndDonorOrders) {
  std::vector<GoodputJob> jobs{
      GoodputJob{job(0, 0, 0, 4, ElasticSpec{2, 8, 2, Duration(0)}, 2), 10, 10, 16, 19},
      GoodputJob{job(1, 0, 0, 2, ElasticSpec{1, 3, 1, Duration(0)}), 1, 1, 2, 3},
      GoodputJob{job(2, 1, 0, 2, ElasticSpec{1, 3, 1, Duration(0)}), 1, 1, 2, 3},
      GoodputJob{job(3, 0, 0, 2, ElasticSpec{1, 3, 1, Duration(0)}), 0, 0, 0, 0},
  };
  EXPECT_EQ(receiver_order(jobs), (std::vector<size_t>{2, 1, 0}));
  EXPECT_EQ(donor_order(jobs), (std::vector<size_t>{0, 1, 2}));
}

TEST(ElasticRules, PolicyNames) {
  for (const ElasticPolicy p : {ElasticPolicy::kNone, ElasticPolicy::kScaleOutIdle,
                                ElasticPolicy::kShrinkToAdmit, ElasticPolicy::kGoodput})
    EXPECT_EQ(parse_elastic_policy(to_string(p)), p);
  EXPECT_EQ(std::string(to_string(ElasticPolicy::kShrinkToAdmit)), "shrink-to-admit");
  EXPECT_FALSE(parse_elastic_policy("Goodput"));
}

}  // namespace elastic_rules_test
}  // namespace gantry
