// spec.policy.admission (sim/admission_loader.hpp) and the admission keys of jobs (queue,
// minReplicas, topology; sim/workload_loader.hpp): parsed values and every error's message,
// with its line and column counted in the texts below.

#include "sim/admission_loader.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/core/errors.hpp"
#include "sim/scenario_loader.hpp"
#include "sim/workload_generator.hpp"
#include "tests/sim/scenario_text.hpp"

namespace gantry {
namespace {

using ::testing::HasSubstr;

const std::string kData = std::string(GANTRY_SOURCE_DIR) + "/tests/data/scenarios/";

constexpr int64_t kGi = 1ll << 30;
constexpr int64_t kTi = 1ll << 40;

// Rack r1: two nodes of 8 A100s; rack r2: two of 8 H100s. Two queues in one cohort, team-b's
// quota per GPU model. Tests replace one line by one line, so the line numbers hold.
// clang-format off
const std::string kBase =
    "apiVersion: gantry.dev/v1\n"                                                               // 1
    "kind: Scenario\n"                                                                          // 2
    "metadata: {name: t}\n"                                                                     // 3
    "spec:\n"                                                                                   // 4
    "  cluster:\n"                                                                              // 5
    "    fabric: {kind: InfiniBand}\n"                                                          // 6
    "    storage: {bandwidth: 10GB/s}\n"                                                        // 7
    "    nodeClasses:\n"                                                                        // 8
    "    - {name: a, cpu: 64, memory: 512Gi, gpu: {type: A100-80G, count: 8}, nic: 400Gbps}\n"  // 9
    "    - {name: h, cpu: 64, memory: 512Gi, gpu: {type: H100-80G, count: 8}, nic: 400Gbps}\n"  // 10
    "    racks:\n"                                                                              // 11
    "    - {name: r1, class: a, nodes: 2}\n"                                                    // 12
    "    - {name: r2, class: h, nodes: 2}\n"                                                    // 13
    "  policy:\n"                                                                               // 14
    "    admission:\n"                                                                          // 15
    "      queues:\n"                                                                           // 16
    "      - name: team-a\n"                                                                    // 17
    "        cohort: research\n"                                                                // 18
    "        quota: {gpu: 16, cpu: \"128\", memory: 1Ti}\n"                                     // 19
    "      - name: team-b\n"                                                                    // 20
    "        cohort: research\n"                                                                // 21
    "        quota: {gpu: {H100-80G: 16}}\n"                                                    // 22
    "  workload:\n"                                                                             // 23
    "    jobs:\n"                                                                               // 24
    "    - name: j\n"                                                                           // 25
    "      submit: 0s\n"                                                                        // 26
    "      framework: PyTorch\n"                                                                // 27
    "      queue: team-a\n"                                                                     // 28
    "      roles:\n"                                                                            // 29
    "      - {kind: Worker, replicas: 2, resources: {cpu: 8, memory: 64Gi, gpu: 8}}\n"          // 30
    "      work: {steps: 10, stepCompute: 1s, gradientSize: 1GB}\n";                            // 31
// clang-format on

// kBase with the first occurrence of `from` replaced by `to`.
std::string with(const std::string& from, const std::string& to) {
  return testing::replace_first(kBase, from, to);
}

// kBase with team-a's quota line (19) replaced by `line` (no newline).
std::string quota_a(const std::string& line) {
  return with("        quota: {gpu: 16, cpu: \"128\", memory: 1Ti}\n", line + "\n");
}

// kBase with team-b's quota line (22) replaced by `line`.
std::string quota_b(const std::string& line) {
  return with("        quota: {gpu: {H100-80G: 16}}\n", line + "\n");
}

// kBase with team-a's cohort line (18) replaced by `line`.
std::string cohort_a(const std::string& line) {
  return with("        cohort: research\n", line + "\n");
}

// kBase with team-b (lines 20-22) written on line 20 alone, as a flow map whose fields after
// its name are `fields`: "      - {name: team-b, " is 23 characters, so they start in column 24.
// Lines after it move up by two.
std::string team_b(const std::string& fields) {
  return with(
      "      - name: team-b\n        cohort: research\n        quota: {gpu: {H100-80G: 16}}\n",
      "      - {name: team-b, " + fields + "}\n");
}

// kBase with `line` (no newline) added to the admission block as line 23; the workload moves
// down by one (job j's queue is then on line 29).
std::string admission_with(const std::string& line) {
  return with("  workload:\n", line + "\n  workload:\n");
}

// kBase with `line` added to job j after its framework, as line 28 (its queue moves to 29, its
// roles to 30).
std::string job_with(const std::string& line) {
  return with("      framework: PyTorch\n", "      framework: PyTorch\n" + line + "\n");
}

ScenarioSpec load(const std::string& text) { return load_scenario_text(text, "t.yaml"); }
std::string error_of(const std::string& text) { return testing::load_error(text, "t.yaml"); }

TEST(AdmissionLoader, BaseValuesAndDefaults) {
  const ScenarioSpec s = load(kBase);
  const AdmissionConfig& a = s.policy.admission;
  ASSERT_TRUE(a.enabled());
  ASSERT_EQ(a.queues.size(), 2u);
  const QueueSpec& qa = a.queues[0];
  EXPECT_EQ(qa.name, "team-a");
  EXPECT_EQ(qa.cohort, "research");
  // 16 GPUs = 16,000 milli-GPUs; "128" CPUs = 128,000 milli-CPUs; 1Ti = 2^40 bytes.
  EXPECT_EQ(qa.nominal, (QuotaAmounts{{"cpu", 128'000}, {"gpu", 16'000}, {"memory", kTi}}));
  EXPECT_TRUE(qa.borrowing.empty());
  EXPECT_TRUE(qa.lending.empty());
  // Defaults: Kueue's.
  EXPECT_EQ(qa.queueing, QueueingStrategy::kBestEffortFifo);
  EXPECT_EQ(qa.within_queue, PreemptionPolicy::kNever);
  EXPECT_EQ(qa.reclaim_within_cohort, PreemptionPolicy::kNever);
  EXPECT_FALSE(qa.borrow_within_cohort);
  EXPECT_FALSE(qa.max_priority_threshold.has_value());
  EXPECT_DOUBLE_EQ(qa.fair_weight, 1);
  EXPECT_EQ(a.queues[1].nominal, (QuotaAmounts{{"gpu/H100-80G", 16'000}}));
  EXPECT_FALSE(a.fair_sharing.enabled);
  EXPECT_EQ(a.fair_sharing.strategies,
            (std::vector<FairSharingStrategy>{FairSharingStrategy::kLessThanOrEqualToFinalShare,
                                              FairSharingStrategy::kLessThanInitialShare}));
  EXPECT_FALSE(a.admission_fair_sharing.has_value());
  EXPECT_FALSE(a.wait_for_pods_ready.has_value());
  // With admission, each queue orders by priority: the scheduler's order follows.
  EXPECT_EQ(s.policy.order, QueueOrder::kPriority);
  ASSERT_EQ(s.workload.jobs.size(), 1u);
  EXPECT_EQ(s.workload.jobs[0].queue, "team-a");
  EXPECT_EQ(s.workload.jobs[0].min_replicas, 0);
  EXPECT_EQ(s.workload.jobs[0].topology.level, TopologyConstraint::Level::kNone);
}

TEST(AdmissionLoader, TwoTeamsExampleFile) {
  const ScenarioSpec s = load_scenario_file(kData + "admission-two-teams.yaml");
  const AdmissionConfig& a = s.policy.admission;
  ASSERT_EQ(a.queues.size(), 2u);
  const QueueSpec& qa = a.queues[0];
  EXPECT_EQ(qa.nominal, (QuotaAmounts{{"cpu", 128'000}, {"gpu", 16'000}, {"memory", kTi}}));
  EXPECT_EQ(qa.borrowing, (QuotaAmounts{{"gpu", 8'000}}));
  EXPECT_EQ(qa.lending, (QuotaAmounts{{"gpu", 8'000}}));
  EXPECT_EQ(qa.queueing, QueueingStrategy::kBestEffortFifo);
  EXPECT_EQ(qa.within_queue, PreemptionPolicy::kLowerPriority);
  EXPECT_EQ(qa.reclaim_within_cohort, PreemptionPolicy::kAny);
  EXPECT_TRUE(qa.borrow_within_cohort);
  EXPECT_EQ(qa.max_priority_threshold, 50);
  const QueueSpec& qb = a.queues[1];
  EXPECT_EQ(qb.cohort, "research");
  // nvidia.com/gpu is gpu; "a100-80g" is stored as the catalog spells it; 128000m = 128 CPUs.
  EXPECT_EQ(
      qb.nominal,
      (QuotaAmounts{
          {"cpu", 128'000}, {"gpu/A100-80G", 4'000}, {"gpu/H100-80G", 12'000}, {"memory", kTi}}));
  EXPECT_TRUE(qb.borrowing.empty());
  EXPECT_EQ(qb.lending, (QuotaAmounts{{"gpu/H100-80G", 4'000}}));
  EXPECT_EQ(qb.queueing, QueueingStrategy::kStrictFifo);
  EXPECT_EQ(qb.within_queue, PreemptionPolicy::kLowerOrNewerEqualPriority);
  EXPECT_EQ(qb.reclaim_within_cohort, PreemptionPolicy::kLowerPriority);
  EXPECT_DOUBLE_EQ(qb.fair_weight, 0.5);
  EXPECT_TRUE(a.fair_sharing.enabled);
  EXPECT_EQ(a.fair_sharing.strategies,
            (std::vector<FairSharingStrategy>{FairSharingStrategy::kLessThanOrEqualToFinalShare}));
  ASSERT_TRUE(a.admission_fair_sharing.has_value());
  EXPECT_EQ(a.admission_fair_sharing->usage_half_life, hours(24));
  ASSERT_TRUE(a.wait_for_pods_ready.has_value());
  EXPECT_EQ(a.wait_for_pods_ready->timeout, minutes(10));
  EXPECT_EQ(a.wait_for_pods_ready->backoff_base, seconds(30));
  EXPECT_EQ(a.wait_for_pods_ready->backoff_max, minutes(30));
  EXPECT_EQ(a.wait_for_pods_ready->backoff_limit, 3);
  EXPECT_EQ(s.policy.order, QueueOrder::kPriority);
  EXPECT_EQ(s.policy.placement, "topology");

  ASSERT_EQ(s.workload.jobs.size(), 2u);
  const JobSpec& pretrain = s.workload.jobs[0];
  EXPECT_EQ(pretrain.queue, "team-a");
  EXPECT_EQ(pretrain.min_replicas, 1);
  EXPECT_EQ(pretrain.topology.level, TopologyConstraint::Level::kRack);
  EXPECT_FALSE(pretrain.topology.required);
  const JobSpec& finetune = s.workload.jobs[1];
  EXPECT_EQ(finetune.queue, "team-b");
  EXPECT_EQ(finetune.topology.level, TopologyConstraint::Level::kNode);
  EXPECT_TRUE(finetune.topology.required);
  ASSERT_EQ(s.workload.generators.size(), 1u);
  ASSERT_EQ(s.workload.generators[0].mix.size(), 2u);
  EXPECT_EQ(s.workload.generators[0].mix[0].queue, "team-b");
  EXPECT_EQ(s.workload.generators[0].mix[1].queue, "team-a");
  // Generated jobs wait in their class's queue: 2 explicit + 20 generated, each in one.
  const std::vector<JobSpec> jobs = build_workload(s.workload, s.start, RandomStreams(s.seed));
  ASSERT_EQ(jobs.size(), 22u);
  for (const JobSpec& j : jobs) {
    if (j.name.rfind("b-sweep-", 0) != 0) continue;
    EXPECT_EQ(j.queue, j.total_gpus() == 2 ? "team-b" : "team-a") << j.name;
  }
}

TEST(AdmissionLoader, AmountsAndTheirUnits) {
  // 0.5 GPU = 500 milli-GPUs, 2.25 = 2250; 500m CPU = 500 milli-CPUs, plain 512 = 512,000;
  // 64Gi = 64 × 2^30 bytes.
  const ScenarioSpec s = load(quota_a("        quota: {gpu: 0.5, cpu: 500m, memory: 64Gi}"));
  EXPECT_EQ(s.policy.admission.queues[0].nominal,
            (QuotaAmounts{{"cpu", 500}, {"gpu", 500}, {"memory", 64 * kGi}}));
  const ScenarioSpec t = load(quota_a("        quota: {gpu: \"2.25\", cpu: 512}"));
  EXPECT_EQ(t.policy.admission.queues[0].nominal, (QuotaAmounts{{"cpu", 512'000}, {"gpu", 2'250}}));
  // Kueue's resource name for GPUs is the same key; a quota of 0 is allowed (a queue that only
  // borrows).
  const ScenarioSpec u = load(quota_a("        quota: {nvidia.com/gpu: 0}"));
  EXPECT_EQ(u.policy.admission.queues[0].nominal, (QuotaAmounts{{"gpu", 0}}));
  // Per model, any case: stored under the catalog's spelling.
  const ScenarioSpec v = load(quota_b("        quota: {gpu: {h100-80g: 1.5, A100-80g: 2}}"));
  EXPECT_EQ(v.policy.admission.queues[1].nominal,
            (QuotaAmounts{{"gpu/A100-80G", 2'000}, {"gpu/H100-80G", 1'500}}));
}

TEST(AdmissionLoader, NegativeAmounts) {
  // "        quota: {gpu: " is 21 characters: the value starts in column 22.
  EXPECT_EQ(error_of(quota_a("        quota: {gpu: -4}")),
            "t.yaml:19:22: spec.policy.admission.queues[0].quota.gpu: an amount of quota cannot "
            "be negative, got '-4'");
  EXPECT_EQ(error_of(quota_a("        quota: {cpu: \"-1\"}")),
            "t.yaml:19:22: spec.policy.admission.queues[0].quota.cpu: an amount of quota cannot "
            "be negative, got '-1'");
  // "        quota: {memory: " is 24 characters.
  EXPECT_EQ(error_of(quota_a("        quota: {memory: -4Ti}")),
            "t.yaml:19:25: spec.policy.admission.queues[0].quota.memory: an amount of quota "
            "cannot be negative, got '-4Ti'");
  // "        quota: {gpu: {H100-80G: " is 32 characters.
  EXPECT_EQ(error_of(quota_b("        quota: {gpu: {H100-80G: -1}}")),
            "t.yaml:22:33: spec.policy.admission.queues[1].quota.gpu.H100-80G: an amount of quota "
            "cannot be negative, got '-1'");
}

TEST(AdmissionLoader, BadAmounts) {
  EXPECT_EQ(error_of(quota_a("        quota: {gpu: 0.0001}")),
            "t.yaml:19:22: spec.policy.admission.queues[0].quota.gpu: expected a number of GPUs "
            "such as 64 or 0.5 (at most three decimals), got '0.0001'");
  EXPECT_EQ(error_of(quota_a("        quota: {gpu: 500m}")),
            "t.yaml:19:22: spec.policy.admission.queues[0].quota.gpu: expected a number of GPUs "
            "such as 64 or 0.5 (at most three decimals), got '500m'");
  EXPECT_EQ(error_of(quota_a("        quota: {gpu: [1]}")),
            "t.yaml:19:22: spec.policy.admission.queues[0].quota.gpu: expected a number of GPUs "
            "such as 64 or 0.5, got a list");
  // A million GPUs is the most: 1,000,001 is past it.
  EXPECT_EQ(error_of(quota_a("        quota: {gpu: 1000001}")),
            "t.yaml:19:22: spec.policy.admission.queues[0].quota.gpu: expected at most 1000000 "
            "GPUs, got '1000001' (value out of range)");
  EXPECT_THAT(error_of(quota_a("        quota: {memory: 5Pi}")),
              HasSubstr("t.yaml:19:25: spec.policy.admission.queues[0].quota.memory: expected a "
                        "size in bytes from 0 to 4Pi, got '5Pi' (value out of range)"));
  // "        quota: {" is 16 characters: the key starts in column 17.
  EXPECT_EQ(error_of(quota_a("        quota: {gpus: 16}")),
            "t.yaml:19:17: spec.policy.admission.queues[0].quota.gpus: unknown field 'gpus'; "
            "expected one of: gpu, nvidia.com/gpu, cpu, memory");
  EXPECT_EQ(error_of(quota_a("        quota: {}")),
            "t.yaml:19:16: spec.policy.admission.queues[0].quota: expected at least one of: gpu, "
            "cpu, memory");
  // "        quota: {gpu: " is 21 characters: the empty map is in column 22.
  EXPECT_EQ(error_of(quota_b("        quota: {gpu: {}}")),
            "t.yaml:22:22: spec.policy.admission.queues[1].quota.gpu: expected at least one GPU "
            "model, such as {A100-80G: 8}");
}

TEST(AdmissionLoader, GpuAndItsKueueNameTogether) {
  // The later of the two is blamed: "        quota: {gpu: 16, " is 25 characters.
  EXPECT_EQ(error_of(quota_a("        quota: {gpu: 16, nvidia.com/gpu: 8}")),
            "t.yaml:19:42: spec.policy.admission.queues[0].quota.nvidia.com/gpu: gpu and "
            "nvidia.com/gpu name the same resource (nvidia.com/gpu is Kueue's name for it); give "
            "one of them");
}

TEST(AdmissionLoader, GpuModelsComeFromTheCatalog) {
  // "        quota: {gpu: {" is 22 characters: the model key starts in column 23.
  EXPECT_EQ(error_of(quota_b("        quota: {gpu: {B300: 16}}")),
            "t.yaml:22:23: spec.policy.admission.queues[1].quota.gpu.B300: unknown GPU type "
            "'B300'; known types: A100-80G, H100-80G, H800, A10, T4, V100, L40S (add others "
            "under spec.cluster.gpuTypes)");
  // "        quota: {gpu: {H100-80G: 8, " is 35 characters.
  EXPECT_EQ(error_of(quota_b("        quota: {gpu: {H100-80G: 8, h100-80g: 8}}")),
            "t.yaml:22:36: spec.policy.admission.queues[1].quota.gpu.h100-80g: GPU model H100-80G "
            "is given twice ('H100-80G' and 'h100-80g' name the same model)");
}

TEST(AdmissionLoader, LimitsNeedACohort) {
  // Line 18 (team-a's cohort) becomes its borrowingLimit: team-a then has no cohort.
  EXPECT_EQ(error_of(cohort_a("        borrowingLimit: {gpu: 4}")),
            "t.yaml:18:25: spec.policy.admission.queues[0].borrowingLimit: borrowingLimit needs a "
            "cohort: a queue without one has no one to borrow from");
  EXPECT_EQ(error_of(cohort_a("        lendingLimit: {gpu: 4}")),
            "t.yaml:18:23: spec.policy.admission.queues[0].lendingLimit: lendingLimit needs a "
            "cohort: a queue without one has no one to lend to");
  // Without limits, a queue needs no cohort.
  EXPECT_TRUE(
      load(cohort_a("        queueing: StrictFIFO")).policy.admission.queues[0].cohort.empty());
}

TEST(AdmissionLoader, LimitsNameResourcesOfTheQuota) {
  // Columns: fields start at 24; "cohort: research, " is 18 characters (42), "quota: {gpu:
  // {H100-80G: 16}}, " 30 (72), "borrowingLimit: {memory: " 25: the value is in column 97.
  EXPECT_EQ(error_of(team_b(
                "cohort: research, quota: {gpu: {H100-80G: 16}}, borrowingLimit: {memory: 1Ti}")),
            "t.yaml:20:97: spec.policy.admission.queues[1].borrowingLimit.memory: borrowingLimit "
            "limits memory, which the queue's quota does not name (it names gpu/H100-80G); a "
            "limit applies only to a resource of the quota");
  // 72 + "lendingLimit: {gpu: " (20) = 92.
  EXPECT_EQ(
      error_of(team_b("cohort: research, quota: {gpu: {H100-80G: 16}}, lendingLimit: {gpu: 4}")),
      "t.yaml:20:92: spec.policy.admission.queues[1].lendingLimit.gpu: the queue's quota gives "
      "GPUs per model, so its lendingLimit must too, such as gpu: {A100-80G: 8}");
  // "quota: {gpu: 16}, " is 18 characters (60), "borrowingLimit: {gpu: {H100-80G: " 33: 93.
  EXPECT_EQ(
      error_of(team_b("cohort: research, quota: {gpu: 16}, borrowingLimit: {gpu: {H100-80G: 4}}")),
      "t.yaml:20:93: spec.policy.admission.queues[1].borrowingLimit.gpu.H100-80G: the queue's "
      "quota gives GPUs of any model (gpu: <number>), so its borrowingLimit must too");
  // A borrowing limit may exceed the queue's own quota; a lending limit may equal it.
  const ScenarioSpec s = load(team_b(
      "cohort: research, quota: {gpu: {H100-80G: 16}}, borrowingLimit: {gpu: {H100-80G: 100}}, "
      "lendingLimit: {gpu: {H100-80G: 16}}"));
  EXPECT_EQ(s.policy.admission.queues[1].borrowing, (QuotaAmounts{{"gpu/H100-80G", 100'000}}));
  EXPECT_EQ(s.policy.admission.queues[1].lending, (QuotaAmounts{{"gpu/H100-80G", 16'000}}));
}

TEST(AdmissionLoader, LendingLimitIsAtMostTheNominalQuota) {
  // 72 + "lendingLimit: {gpu: {h100-80g: " (31) = 103.
  EXPECT_EQ(
      error_of(team_b(
          "cohort: research, quota: {gpu: {H100-80G: 16}}, lendingLimit: {gpu: {h100-80g: 17}}")),
      "t.yaml:20:103: spec.policy.admission.queues[1].lendingLimit.gpu.h100-80g: lendingLimit "
      "of gpu/H100-80G (17) is more than the queue's nominal quota of it (16); a queue lends "
      "at most its quota");
}

TEST(AdmissionLoader, Preemption) {
  const ScenarioSpec s = load(team_b(
      "quota: {cpu: 1}, preemption: {withinQueue: LowerOrNewerEqualPriority, reclaimWithinCohort: "
      "LowerPriority, borrowWithinCohort: {policy: LowerPriority, maxPriorityThreshold: -5}}"));
  const QueueSpec& q = s.policy.admission.queues[1];
  EXPECT_EQ(q.within_queue, PreemptionPolicy::kLowerOrNewerEqualPriority);
  EXPECT_EQ(q.reclaim_within_cohort, PreemptionPolicy::kLowerPriority);
  EXPECT_TRUE(q.borrow_within_cohort);
  EXPECT_EQ(q.max_priority_threshold, -5);

  // "quota: {cpu: 1}, " is 17 characters (41), "preemption: {withinQueue: " 26: 67.
  EXPECT_EQ(error_of(team_b("quota: {cpu: 1}, preemption: {withinQueue: Any}")),
            "t.yaml:20:67: spec.policy.admission.queues[1].preemption.withinQueue: unknown value "
            "'Any'; expected one of: Never, LowerPriority, LowerOrNewerEqualPriority");
  // "preemption: {reclaimWithinCohort: " is 34: 75.
  EXPECT_EQ(error_of(team_b(
                "quota: {cpu: 1}, preemption: {reclaimWithinCohort: LowerOrNewerEqualPriority}")),
            "t.yaml:20:75: spec.policy.admission.queues[1].preemption.reclaimWithinCohort: unknown "
            "value 'LowerOrNewerEqualPriority'; expected one of: Never, LowerPriority, Any");
  // "preemption: {borrowWithinCohort: {policy: " is 42: 83.
  EXPECT_EQ(error_of(team_b("quota: {cpu: 1}, preemption: {borrowWithinCohort: {policy: Always}}")),
            "t.yaml:20:83: spec.policy.admission.queues[1].preemption.borrowWithinCohort.policy: "
            "unknown value 'Always'; expected one of: Never, LowerPriority");
}

// The example writes borrowWithinCohort: {policy: Never, maxPriorityThreshold: 0}: a
// threshold under Never bounds nothing, and is accepted as written.
TEST(AdmissionLoader, AThresholdUnderPolicyNeverIsAccepted) {
  const ScenarioSpec s =
      load(team_b("quota: {cpu: 1}, preemption: {borrowWithinCohort: {policy: Never, "
                  "maxPriorityThreshold: 0}}"));
  const QueueSpec& b = s.policy.admission.queues[1];
  EXPECT_FALSE(b.borrow_within_cohort);
  EXPECT_EQ(b.max_priority_threshold, 0);
}

TEST(AdmissionLoader, BorrowingPreemptionNeedsReclaim) {
  // Kueue: reclaimWithinCohort=Never and borrowWithinCohort.policy!=Never is invalid.
  EXPECT_EQ(error_of(team_b(
                "quota: {cpu: 1}, preemption: {borrowWithinCohort: {policy: LowerPriority}}")),
            "t.yaml:20:83: spec.policy.admission.queues[1].preemption.borrowWithinCohort.policy: "
            "borrowWithinCohort policy LowerPriority needs reclaimWithinCohort LowerPriority or "
            "Any (Kueue's rule: a queue that may not preempt to reclaim its own quota may not "
            "preempt to borrow either)");
}

TEST(AdmissionLoader, QueueingAndWeight) {
  const ScenarioSpec s =
      load(team_b("quota: {cpu: 1}, queueing: StrictFIFO, fairSharing: {weight: 0}"));
  EXPECT_EQ(s.policy.admission.queues[1].queueing, QueueingStrategy::kStrictFifo);
  EXPECT_DOUBLE_EQ(s.policy.admission.queues[1].fair_weight, 0);
  EXPECT_DOUBLE_EQ(load(team_b("quota: {cpu: 1}, fairSharing: {weight: 2.5}"))
                       .policy.admission.queues[1]
                       .fair_weight,
                   2.5);
  // "queueing: " is 10 characters: 51.
  EXPECT_EQ(error_of(team_b("quota: {cpu: 1}, queueing: StrictFifo")),
            "t.yaml:20:51: spec.policy.admission.queues[1].queueing: unknown value 'StrictFifo'; "
            "expected one of: BestEffortFIFO, StrictFIFO");
  // "fairSharing: {weight: " is 22 characters: 63.
  EXPECT_EQ(error_of(team_b("quota: {cpu: 1}, fairSharing: {weight: -1}")),
            "t.yaml:20:63: spec.policy.admission.queues[1].fairSharing.weight: expected a number "
            "from 0 to 10000, got '-1'");
}

TEST(AdmissionLoader, QueueNames) {
  // "      - name: " is 14 characters.
  EXPECT_EQ(error_of(with("      - name: team-b\n", "      - name: team-a\n")),
            "t.yaml:20:15: spec.policy.admission.queues[1].name: duplicate queue name 'team-a' "
            "(first used at line 17)");
  EXPECT_EQ(error_of(with("      - name: team-b\n", "      - name: \" b\"\n")),
            "t.yaml:20:15: spec.policy.admission.queues[1].name: expected a name, got ' b' "
            "(leading or trailing spaces)");
  // A queue without a name: reported once; job j's queue is then not checked at all.
  // "      - " is 8 characters: the map is in column 9.
  EXPECT_EQ(error_of(with("      - name: team-b\n", "      - queueing: StrictFIFO\n")),
            "t.yaml:20:9: spec.policy.admission.queues[1].name: missing required field 'name'");
  EXPECT_EQ(error_of(team_b("cohort: \"\", quota: {cpu: 1}")),
            "t.yaml:20:32: spec.policy.admission.queues[1].cohort: expected a name, got an empty "
            "string");
}

TEST(AdmissionLoader, QueuesIsANonEmptyList) {
  const std::string queues =
      "      queues:\n"
      "      - name: team-a\n"
      "        cohort: research\n"
      "        quota: {gpu: 16, cpu: \"128\", memory: 1Ti}\n"
      "      - name: team-b\n"
      "        cohort: research\n"
      "        quota: {gpu: {H100-80G: 16}}\n";
  // "      queues: " is 14 characters. Job j names team-a, which is not blamed on top.
  EXPECT_EQ(error_of(with(queues, "      queues: []\n")),
            "t.yaml:16:15: spec.policy.admission.queues: expected at least one queue (without "
            "queues, leave admission out: every job then goes straight to placement)");
  EXPECT_EQ(error_of(with("    admission:\n" + queues, "    admission: {}\n")),
            "t.yaml:15:16: spec.policy.admission.queues: missing required field 'queues'");
  EXPECT_EQ(error_of(with(queues, "      queues: {team-a: 1}\n")),
            "t.yaml:16:15: spec.policy.admission.queues: expected a list, got a map");
  std::string many = "      queues:\n";
  for (int i = 0; i < 1001; ++i)
    many += "      - {name: q" + std::to_string(i) + ", quota: {cpu: 1}}\n";
  EXPECT_EQ(error_of(with(queues, many)),
            "t.yaml:17:7: spec.policy.admission.queues: 1001 queues; at most 1000 are simulated");
}

TEST(AdmissionLoader, UnknownKeys) {
  EXPECT_EQ(error_of(admission_with("      preemption: {}")),
            "t.yaml:23:7: spec.policy.admission.preemption: unknown field 'preemption'; expected "
            "one of: queues, fairSharing, admissionFairSharing, waitForPodsReady");
  // "quota: {cpu: 1}, " ends in column 40: the key starts in 41.
  EXPECT_EQ(error_of(team_b("quota: {cpu: 1}, flavor: x")),
            "t.yaml:20:41: spec.policy.admission.queues[1].flavor: unknown field 'flavor'; "
            "expected one of: name, cohort, quota, borrowingLimit, lendingLimit, queueing, "
            "preemption, fairSharing");
}

TEST(AdmissionLoader, FairSharing) {
  EXPECT_TRUE(load(admission_with("      fairSharing: {enable: true}"))
                  .policy.admission.fair_sharing.enabled);
  // Both spellings with one value are one setting.
  EXPECT_TRUE(load(admission_with("      fairSharing: {enabled: true, enable: true}"))
                  .policy.admission.fair_sharing.enabled);
  const ScenarioSpec s = load(admission_with(
      "      fairSharing: {enabled: true, preemptionStrategies: [LessThanInitialShare]}"));
  EXPECT_EQ(s.policy.admission.fair_sharing.strategies,
            (std::vector<FairSharingStrategy>{FairSharingStrategy::kLessThanInitialShare}));
  // "      fairSharing: {enabled: true, enable: " is 43 characters.
  EXPECT_EQ(error_of(admission_with("      fairSharing: {enabled: true, enable: false}")),
            "t.yaml:23:44: spec.policy.admission.fairSharing.enable: enable (Kueue's spelling) and "
            "enabled are one setting and disagree; give one of them");
  // "      fairSharing: {preemptionStrategies: " is 42 characters.
  EXPECT_EQ(error_of(admission_with("      fairSharing: {preemptionStrategies: []}")),
            "t.yaml:23:43: spec.policy.admission.fairSharing.preemptionStrategies: expected at "
            "least one of: LessThanOrEqualToFinalShare, LessThanInitialShare");
  // The repeat: 42 + "[LessThanInitialShare, " (23) = 65.
  EXPECT_EQ(error_of(admission_with("      fairSharing: {preemptionStrategies: "
                                    "[LessThanInitialShare, LessThanInitialShare]}")),
            "t.yaml:23:66: spec.policy.admission.fairSharing.preemptionStrategies[1]: "
            "LessThanInitialShare is listed twice");
  EXPECT_EQ(
      error_of(admission_with("      fairSharing: {preemptionStrategies: [LessThanFinalShare]}")),
      "t.yaml:23:44: spec.policy.admission.fairSharing.preemptionStrategies[0]: unknown "
      "value 'LessThanFinalShare'; expected one of: LessThanOrEqualToFinalShare, "
      "LessThanInitialShare");
  EXPECT_EQ(error_of(admission_with("      fairSharing: {enabled: yes}")),
            "t.yaml:23:30: spec.policy.admission.fairSharing.enabled: expected true or false, got "
            "'yes'");
}

TEST(AdmissionLoader, AdmissionFairSharing) {
  auto half_life = [](const std::string& line) {
    const ScenarioSpec s = load(admission_with(line));
    EXPECT_TRUE(s.policy.admission.admission_fair_sharing.has_value()) << line;
    return s.policy.admission.admission_fair_sharing.value_or(AdmissionFairSharingConfig{})
        .usage_half_life;
  };
  EXPECT_EQ(half_life("      admissionFairSharing: {usageHalfLife: 24h}"), hours(24));
  EXPECT_EQ(half_life("      admissionFairSharing: {usageHalfLifeTime: 12h}"), hours(12));
  EXPECT_EQ(half_life("      admissionFairSharing: {usageHalfLife: 1h, usageHalfLifeTime: 60m}"),
            hours(1));
  EXPECT_EQ(half_life("      admissionFairSharing: {}"), hours(168));  // the header's week
  // "      admissionFairSharing: {usageHalfLife: " is 44 characters.
  EXPECT_EQ(error_of(admission_with("      admissionFairSharing: {usageHalfLife: 0s}")),
            "t.yaml:23:45: spec.policy.admission.admissionFairSharing.usageHalfLife: expected a "
            "duration greater than zero, got '0s'");
  // 44 + "1h, usageHalfLifeTime: " (23) = 67.
  EXPECT_EQ(error_of(admission_with(
                "      admissionFairSharing: {usageHalfLife: 1h, usageHalfLifeTime: 2h}")),
            "t.yaml:23:68: spec.policy.admission.admissionFairSharing.usageHalfLifeTime: "
            "usageHalfLifeTime (Kueue's spelling) and usageHalfLife are one setting and disagree; "
            "give one of them");
}

TEST(AdmissionLoader, WaitForPodsReady) {
  const auto wait = [](const std::string& fields) {
    return load(admission_with("      waitForPodsReady: {" + fields + "}"))
        .policy.admission.wait_for_pods_ready;
  };
  // Kueue's defaults: 5 min, 60 s, 3600 s, no limit.
  const std::optional<WaitForPodsReadyConfig> defaults = wait("");
  ASSERT_TRUE(defaults.has_value());
  EXPECT_EQ(defaults->timeout, minutes(5));
  EXPECT_EQ(defaults->backoff_base, seconds(60));
  EXPECT_EQ(defaults->backoff_max, seconds(3600));
  EXPECT_FALSE(defaults->backoff_limit.has_value());
  const std::optional<WaitForPodsReadyConfig> set =
      wait("enable: true, timeout: 2m, backoffBase: 10s, backoffMax: 10s, backoffLimit: 0");
  ASSERT_TRUE(set.has_value());
  EXPECT_EQ(set->timeout, minutes(2));
  EXPECT_EQ(set->backoff_base, seconds(10));
  EXPECT_EQ(set->backoff_max, seconds(10));
  EXPECT_EQ(set->backoff_limit, 0);
  EXPECT_FALSE(wait("enable: false, timeout: 1m").has_value());

  // "      waitForPodsReady: {" is 25 characters.
  EXPECT_EQ(error_of(admission_with("      waitForPodsReady: {timeout: 0s}")),
            "t.yaml:23:35: spec.policy.admission.waitForPodsReady.timeout: expected a duration "
            "greater than zero, got '0s'");
  // 25 + "backoffBase: 2m, backoffMax: " (29) = 54.
  EXPECT_EQ(error_of(admission_with("      waitForPodsReady: {backoffBase: 2m, backoffMax: 1m}")),
            "t.yaml:23:55: spec.policy.admission.waitForPodsReady.backoffMax: backoffMax (1m) is "
            "below backoffBase (2m)");
  EXPECT_EQ(error_of(admission_with("      waitForPodsReady: {backoffMax: 30s}")),
            "t.yaml:23:38: spec.policy.admission.waitForPodsReady.backoffMax: backoffMax (30s) is "
            "below backoffBase (1m, the default)");
  EXPECT_EQ(error_of(admission_with("      waitForPodsReady: {backoffBase: 2h}")),
            "t.yaml:23:39: spec.policy.admission.waitForPodsReady.backoffBase: backoffBase (2h) is "
            "above backoffMax (1h, the default); set backoffMax too");
  EXPECT_EQ(error_of(admission_with("      waitForPodsReady: {backoffLimit: -1}")),
            "t.yaml:23:40: spec.policy.admission.waitForPodsReady.backoffLimit: expected an "
            "integer from 0 to 2147483647, got '-1'");
  EXPECT_EQ(error_of(admission_with("      waitForPodsReady: {backoffBase: 0s}")),
            "t.yaml:23:39: spec.policy.admission.waitForPodsReady.backoffBase: expected a duration "
            "greater than zero, got '0s'");
}

TEST(AdmissionLoader, FifoOrderDoesNotGoWithAdmission) {
  // "    queue: " is 11 characters; the admission block moves down by one.
  EXPECT_EQ(error_of(with("  policy:\n", "  policy:\n    queue: Fifo\n")),
            "t.yaml:15:12: spec.policy.queue: queue: Fifo does not go with spec.policy.admission: "
            "each admission queue orders its jobs by priority, then by submission (as Kueue "
            "does); write queue: Priority or leave it out");
  EXPECT_EQ(load(with("  policy:\n", "  policy:\n    queue: Priority\n")).policy.order,
            QueueOrder::kPriority);
}

// ---- jobs ----

TEST(AdmissionLoader, JobsNameADeclaredQueue) {
  // "      queue: " is 13 characters.
  EXPECT_EQ(error_of(with("      queue: team-a\n", "      queue: team-c\n")),
            "t.yaml:28:14: spec.workload.jobs[0].queue: unknown queue 'team-c'; queues declared "
            "in spec.policy.admission: team-a, team-b");
  // The job's map starts at its first key, line 25 column 7.
  EXPECT_EQ(error_of(with("      queue: team-a\n", "      priority: 1\n")),
            "t.yaml:25:7: spec.workload.jobs[0].queue: missing required field 'queue'; "
            "spec.policy.admission declares queues (team-a, team-b) and every job waits in one of "
            "them");
}

TEST(AdmissionLoader, AQueueWithoutAdmissionIsAnError) {
  // Lines 14-22 become one: job j's queue moves from line 28 to 20.
  const std::string policy =
      "  policy:\n"
      "    admission:\n"
      "      queues:\n"
      "      - name: team-a\n"
      "        cohort: research\n"
      "        quota: {gpu: 16, cpu: \"128\", memory: 1Ti}\n"
      "      - name: team-b\n"
      "        cohort: research\n"
      "        quota: {gpu: {H100-80G: 16}}\n";
  EXPECT_EQ(error_of(with(policy, "  policy: {placement: spread}\n")),
            "t.yaml:20:14: spec.workload.jobs[0].queue: job names queue 'team-a' but "
            "spec.policy.admission declares no queues");
  EXPECT_EQ(error_of(with(policy, "  sim: {podStartup: 1s}\n")),
            "t.yaml:20:14: spec.workload.jobs[0].queue: job names queue 'team-a' but "
            "spec.policy.admission declares no queues");
  // A policy that is not a map says nothing about queues: only its own error.
  EXPECT_EQ(error_of(with(policy, "  policy: [1]\n")),
            "t.yaml:14:11: spec.policy: expected a map with fields queue, queueing, placement, "
            "admission, elasticity, got a list");
}

// The workload may come before the policy: the check does not depend on the order.
TEST(AdmissionLoader, WorkloadBeforePolicy) {
  const size_t policy = kBase.find("  policy:\n");
  const size_t workload = kBase.find("  workload:\n");
  // Lines 1-13, the workload (9 lines: 14-22, job j's queue on 19), the policy (23-31).
  const std::string swapped =
      kBase.substr(0, policy) + kBase.substr(workload) + kBase.substr(policy, workload - policy);
  const ScenarioSpec s = load(swapped);
  EXPECT_EQ(s.workload.jobs.at(0).queue, "team-a");
  EXPECT_EQ(s.policy.admission.queues.size(), 2u);
  EXPECT_EQ(error_of(testing::replace_first(swapped, "queue: team-a", "queue: team-x")),
            "t.yaml:19:14: spec.workload.jobs[0].queue: unknown queue 'team-x'; queues declared "
            "in spec.policy.admission: team-a, team-b");
}

TEST(AdmissionLoader, GeneratedJobsNameAQueueToo) {
  const std::string generator =
      // clang-format off
      "    generators:\n"                                                                      // 32
      "    - {kind: Poisson, name: g, count: 3, meanInterarrival: 1m,\n"                       // 33
      "       mix: [{weight: 1, gpus: 1, steps: 1, stepCompute: 1s, gradientSize: 0QUEUE}]}\n";  // 34
  // clang-format on
  const auto gen = [&](const std::string& queue) {
    return testing::replace_first(kBase + generator, "QUEUE", queue);
  };
  EXPECT_EQ(load(gen(", queue: team-b")).workload.generators.at(0).mix.at(0).queue, "team-b");
  // "       mix: [{weight: 1, gpus: 1, steps: 1, stepCompute: 1s, gradientSize: 0, queue: " is
  // 85 characters.
  EXPECT_EQ(error_of(gen(", queue: nope")),
            "t.yaml:34:86: spec.workload.generators[0].mix[0].queue: unknown queue 'nope'; queues "
            "declared in spec.policy.admission: team-a, team-b");
  // "       mix: [" is 13 characters: the class's map starts in column 14.
  EXPECT_EQ(error_of(gen("")),
            "t.yaml:34:14: spec.workload.generators[0].mix[0].queue: missing required field "
            "'queue'; spec.policy.admission declares queues (team-a, team-b) and every job waits "
            "in one of them");
  // Without admission (the 9 lines 14-22 gone: 34 becomes 25).
  const std::string no_policy =
      testing::replace_first(gen(", queue: team-b"),
                             kBase.substr(kBase.find("  policy:\n"),
                                          kBase.find("  workload:\n") - kBase.find("  policy:\n")),
                             "");
  EXPECT_EQ(error_of(testing::replace_first(no_policy, "      queue: team-a\n", "\n")),
            "t.yaml:25:86: spec.workload.generators[0].mix[0].queue: jobs of this class name "
            "queue 'team-b' but spec.policy.admission declares no queues");
}

TEST(AdmissionLoader, MinReplicas) {
  EXPECT_EQ(load(job_with("      minReplicas: 2")).workload.jobs.at(0).min_replicas, 2);
  // "      minReplicas: " is 19 characters.
  EXPECT_EQ(error_of(job_with("      minReplicas: 3")),
            "t.yaml:28:20: spec.workload.jobs[0].minReplicas: minReplicas (3) is more than the "
            "replicas of the Worker role (2)");
  EXPECT_EQ(error_of(job_with("      minReplicas: 0")),
            "t.yaml:28:20: spec.workload.jobs[0].minReplicas: expected an integer from 1 to "
            "10000, got '0'");
  // Worker, then Master: the last role is not a Worker role.
  const std::string master_last = testing::replace_first(
      job_with("      minReplicas: 1"), "gpu: 8}}\n",
      "gpu: 8}}\n      - {kind: Master, resources: {cpu: 8, memory: 64Gi}}\n");
  EXPECT_EQ(error_of(master_last),
            "t.yaml:28:20: spec.workload.jobs[0].minReplicas: minReplicas applies to the job's "
            "last role, which must be a Worker role; the last role here is Master");
}

// The cluster has 4 nodes of 8 GPUs. 5 workers of 8 GPUs never fit at once, but a job that
// may start with 4 of them can start.
TEST(AdmissionLoader, PartialAdmissionCountsInTheFitCheck) {
  const std::string five = testing::replace_first(kBase, "replicas: 2,", "replicas: 5,");
  // The roles list is marked at its first item: line 30, column 7.
  EXPECT_EQ(error_of(five),
            "t.yaml:30:7: spec.workload.jobs[0].roles: job 'j' can never start: it needs 5 Worker "
            "pods of cpu 8000m, memory 64Gi, gpu 8, but the whole cluster holds at most 4 of them "
            "at once");
  const std::string four_of_five = testing::replace_first(
      five, "      queue: team-a\n", "      queue: team-a\n      minReplicas: 4\n");
  EXPECT_EQ(load(four_of_five).workload.jobs.at(0).min_replicas, 4);
  const std::string five_of_five = testing::replace_first(
      five, "      queue: team-a\n", "      queue: team-a\n      minReplicas: 5\n");
  EXPECT_THAT(error_of(five_of_five), HasSubstr("job 'j' can never start: it needs 5 Worker pods"));
}

TEST(AdmissionLoader, Topology) {
  const TopologyConstraint rack =
      load(job_with("      topology: {required: rack}")).workload.jobs.at(0).topology;
  EXPECT_EQ(rack.level, TopologyConstraint::Level::kRack);
  EXPECT_TRUE(rack.required);
  const TopologyConstraint island =
      load(job_with("      topology: {preferred: island}")).workload.jobs.at(0).topology;
  EXPECT_EQ(island.level, TopologyConstraint::Level::kIsland);
  EXPECT_FALSE(island.required);
  EXPECT_EQ(load(job_with("      topology: {preferred: node}")).workload.jobs.at(0).topology.level,
            TopologyConstraint::Level::kNode);

  // "      topology: {required: rack, preferred: " is 44 characters.
  EXPECT_EQ(error_of(job_with("      topology: {required: rack, preferred: node}")),
            "t.yaml:28:45: spec.workload.jobs[0].topology.preferred: required and preferred "
            "exclude each other; give one of them (required: the whole gang in one domain or not "
            "at all; preferred: there if possible)");
  // "      topology: " is 16 characters: the map is in column 17.
  EXPECT_EQ(error_of(job_with("      topology: {}")),
            "t.yaml:28:17: spec.workload.jobs[0].topology: expected required or preferred, such "
            "as {required: rack} (island, node or rack)");
  EXPECT_EQ(error_of(job_with("      topology: {required: zone}")),
            "t.yaml:28:28: spec.workload.jobs[0].topology.required: unknown value 'zone'; "
            "expected one of: island, node, rack");
  EXPECT_EQ(error_of(job_with("      topology: {required: rack, level: 2}")),
            "t.yaml:28:34: spec.workload.jobs[0].topology.level: unknown field 'level'; expected "
            "one of: required, preferred");
}

// Mistakes in the admission block and in a job, each reported once, in file order, and no
// check that needs a value with an error (the queue of job j, its gang) adds another.
TEST(AdmissionLoader, EveryErrorIsReportedOnce) {
  std::string text = quota_a("        quota: {gpu: -1}");
  text = testing::replace_first(text, "      - name: team-b\n", "      - name: team-a\n");
  text = testing::replace_first(text, "      queue: team-a\n", "      queue: team-c\n");
  EXPECT_EQ(error_of(text),
            "t.yaml:19:22: spec.policy.admission.queues[0].quota.gpu: an amount of quota cannot "
            "be negative, got '-1'\n"
            "t.yaml:20:15: spec.policy.admission.queues[1].name: duplicate queue name 'team-a' "
            "(first used at line 17)\n"
            "t.yaml:28:14: spec.workload.jobs[0].queue: unknown queue 'team-c'; queues declared "
            "in spec.policy.admission: team-a");
}

// Model names are checked against the catalog only when the cluster could be read.
TEST(AdmissionLoader, BadClusterLeavesModelNamesUnchecked) {
  const std::string text =
      testing::replace_first(quota_b("        quota: {gpu: {B300: 16}}"), "count: 8}", "count: x}");
  EXPECT_EQ(error_of(text),
            "t.yaml:9:70: spec.cluster.nodeClasses[0].gpu.count: expected an integer from 1 to "
            "64, got 'x'");
}

}  // namespace
}  // namespace gantry
