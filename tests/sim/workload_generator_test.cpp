// Workload generator tests. Statistical checks use fixed seeds and bounds of 3 standard errors
// computed in the test, so they are deterministic yet would fail on a biased generator.

#include "sim/workload_generator.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

namespace gantry {
namespace {

constexpr int64_t kGiB = 1024ll * 1024 * 1024;

Time scenario_start() {
  Time t;
  EXPECT_TRUE(parse_rfc3339("2026-01-01T00:00:00Z", t));
  return t;
}

JobClass job_class(int gpus, int gpus_per_pod, Framework fw, double weight = 1) {
  JobClass c;
  c.weight = weight;
  c.gpus = gpus;
  c.gpus_per_pod = gpus_per_pod;
  c.framework = fw;
  return c;
}

PoissonGeneratorSpec generator(std::string name, int64_t count, std::vector<JobClass> mix) {
  PoissonGeneratorSpec g;
  g.name = std::move(name);
  g.count = count;
  g.mean_interarrival = seconds(60);
  g.mix = std::move(mix);
  return g;
}

// Everything that identifies a generated job, for whole-list comparisons.
std::string describe(const JobSpec& j) {
  std::string s = j.name + "@" + std::to_string(j.submit.micros()) + " " + to_string(j.framework) +
                  " steps=" + std::to_string(j.work.steps);
  for (const RoleSpec& r : j.roles)
    s += " " + std::string(to_string(r.kind)) + "x" + std::to_string(r.replicas) + "/" +
         std::to_string(r.per_replica.gpus);
  return s;
}

std::vector<std::string> describe_all(const std::vector<JobSpec>& jobs) {
  std::vector<std::string> out;
  for (const JobSpec& j : jobs) out.push_back(describe(j));
  return out;
}

WorkloadSpec mixed_workload() {
  WorkloadSpec w;
  PoissonGeneratorSpec g = generator(
      "a", 200, {job_class(8, 8, Framework::kPyTorch, 2), job_class(16, 4, Framework::kMPI, 1)});
  g.mix[0].steps = {100, 5000};
  w.generators.push_back(g);
  return w;
}

TEST(WorkloadGenerator, SameSeedGivesIdenticalJobs) {
  const WorkloadSpec w = mixed_workload();
  const auto a = describe_all(build_workload(w, scenario_start(), RandomStreams(42)));
  const auto b = describe_all(build_workload(w, scenario_start(), RandomStreams(42)));
  ASSERT_EQ(a.size(), 200u);
  EXPECT_EQ(a, b);
  // And the seed matters: another seed gives another list.
  const auto c = describe_all(build_workload(w, scenario_start(), RandomStreams(43)));
  EXPECT_NE(a, c);
}

TEST(WorkloadGenerator, AddingAGeneratorDoesNotChangeAnother) {
  const WorkloadSpec alone = mixed_workload();
  WorkloadSpec with_other = alone;
  // Inserted before "a", so it runs first: it must still not shift a's draws.
  with_other.generators.insert(with_other.generators.begin(),
                               generator("b", 300, {job_class(1, 1, Framework::kTensorFlow)}));
  const auto only_a = build_workload(alone, scenario_start(), RandomStreams(7));
  const auto both = build_workload(with_other, scenario_start(), RandomStreams(7));
  ASSERT_EQ(both.size(), 500u);
  std::vector<JobSpec> a_from_both;
  for (const JobSpec& j : both)
    if (j.name.rfind("a-", 0) == 0) a_from_both.push_back(j);
  EXPECT_EQ(describe_all(only_a), describe_all(a_from_both));
}

TEST(WorkloadGenerator, UsesTheGeneratorsNamedStream) {
  const WorkloadSpec w = mixed_workload();
  const RandomStreams streams(99);
  RandomStream rng = streams.stream("workload/a");
  std::vector<JobSpec> direct;
  generate_poisson(w.generators[0], scenario_start(), rng, direct);
  EXPECT_EQ(describe_all(direct), describe_all(build_workload(w, scenario_start(), streams)));
}

TEST(WorkloadGenerator, MeanInterArrivalWithinThreeStandardErrors) {
  constexpr int64_t kN = 20'000;
  PoissonGeneratorSpec g = generator("m", kN, {job_class(1, 1, Framework::kPyTorch)});
  g.mean_interarrival = seconds(60);
  g.start = minutes(5);
  RandomStream rng = RandomStreams(2026).stream("workload/m");
  std::vector<JobSpec> jobs;
  generate_poisson(g, scenario_start(), rng, jobs);
  ASSERT_EQ(jobs.size(), static_cast<size_t>(kN));
  // The first arrival is one gap after start + offset, so N gaps span [start + offset, last].
  const Time origin = scenario_start() + minutes(5);
  EXPECT_GT(jobs.front().submit, origin);
  for (size_t i = 1; i < jobs.size(); ++i) ASSERT_LE(jobs[i - 1].submit, jobs[i].submit);
  const double sample_mean = (jobs.back().submit - origin).seconds() / kN;
  // Exponential: standard deviation = mean, so SE = 60 / sqrt(20000) = 0.424 s; 3 SE = 1.27 s.
  const double se = 60.0 / std::sqrt(static_cast<double>(kN));
  EXPECT_NEAR(sample_mean, 60.0, 3 * se);
}

TEST(WorkloadGenerator, ClassFrequenciesFollowWeights) {
  constexpr int64_t kN = 20'000;
  // Classes told apart by their GPU count; weights 1:3:6 -> p = 0.1, 0.3, 0.6.
  const PoissonGeneratorSpec g =
      generator("f", kN,
                {job_class(1, 1, Framework::kPyTorch, 1), job_class(2, 2, Framework::kPyTorch, 3),
                 job_class(4, 4, Framework::kPyTorch, 6)});
  RandomStream rng = RandomStreams(5).stream("workload/f");
  std::vector<JobSpec> jobs;
  generate_poisson(g, scenario_start(), rng, jobs);
  std::map<int, int64_t> by_gpus;
  for (const JobSpec& j : jobs) ++by_gpus[j.total_gpus()];
  ASSERT_EQ(by_gpus.size(), 3u);
  const std::map<int, double> p = {{1, 0.1}, {2, 0.3}, {4, 0.6}};
  for (const auto& [gpus, prob] : p) {
    // Binomial proportion: SE = sqrt(p(1−p)/N), e.g. 0.0021 for p = 0.1.
    const double se = std::sqrt(prob * (1 - prob) / kN);
    EXPECT_NEAR(static_cast<double>(by_gpus[gpus]) / kN, prob, 3 * se) << gpus << " GPUs";
  }
}

// A job waits in its class's admission queue and checkpoints as its class says; a class without
// them leaves the job's empty.
TEST(WorkloadGenerator, JobsTakeTheQueueOfTheirClass) {
  PoissonGeneratorSpec g = generator(
      "q", 200, {job_class(1, 1, Framework::kPyTorch, 1), job_class(2, 2, Framework::kPyTorch, 1)});
  g.mix[0].queue = "team-a";
  g.mix[0].checkpoint_every = minutes(10);
  RandomStream rng = RandomStreams(3).stream("workload/q");
  std::vector<JobSpec> jobs;
  generate_poisson(g, scenario_start(), rng, jobs);
  ASSERT_EQ(jobs.size(), 200u);
  std::map<std::string, int> by_queue;  // every 1-GPU job in team-a, every 2-GPU one in none
  for (const JobSpec& j : jobs) {
    EXPECT_EQ(j.queue, j.total_gpus() == 1 ? "team-a" : "") << j.name;
    EXPECT_EQ(j.work.checkpoint_every, j.total_gpus() == 1 ? minutes(10) : Duration(0)) << j.name;
    ++by_queue[j.queue];
  }
  // Equal weights: both classes drawn (P(one class never drawn in 200) = 2 · 2^-200).
  EXPECT_EQ(by_queue.size(), 2u);
}

TEST(WorkloadGenerator, PyTorchIsMasterPlusWorkers) {
  JobClass c = job_class(16, 8, Framework::kPyTorch);
  c.cpu_milli_per_gpu = 4000;
  c.memory_bytes_per_gpu = 32 * kGiB;
  c.priority = 3;
  c.tenant = "vision";
  c.gpu_type = "H100-80G";
  c.steps = {777, 777};
  c.step_compute_ref = milliseconds(350);
  c.gradient_bytes = 123;
  c.input_bytes_per_step = 456;
  RandomStream rng(1);
  std::vector<JobSpec> jobs;
  generate_poisson(generator("pt", 1, {c}), scenario_start(), rng, jobs);
  ASSERT_EQ(jobs.size(), 1u);
  const JobSpec& j = jobs[0];
  EXPECT_EQ(j.name, "pt-0");
  ASSERT_EQ(j.roles.size(), 2u);
  EXPECT_EQ(j.roles[0].kind, RoleKind::kMaster);
  EXPECT_EQ(j.roles[0].replicas, 1);
  EXPECT_EQ(j.roles[1].kind, RoleKind::kWorker);
  EXPECT_EQ(j.roles[1].replicas, 1);
  // Per pod: 8 GPUs · 4000 milli-CPU, 8 · 32 GiB.
  const Resources pod{32'000, 256 * kGiB, 8};
  EXPECT_EQ(j.roles[0].per_replica, pod);
  EXPECT_EQ(j.roles[1].per_replica, pod);
  EXPECT_EQ(j.total_gpus(), 16);
  // Every field of the class is copied.
  EXPECT_EQ(j.framework, Framework::kPyTorch);
  EXPECT_EQ(j.priority, 3);
  EXPECT_EQ(j.tenant, "vision");
  EXPECT_EQ(j.gpu_type, "H100-80G");
  EXPECT_EQ(j.work.steps, 777);
  EXPECT_EQ(j.work.step_compute_ref, milliseconds(350));
  EXPECT_EQ(j.work.gradient_bytes, 123);
  EXPECT_EQ(j.work.input_bytes_per_step, 456);
}

TEST(WorkloadGenerator, SinglePodPyTorchIsMasterOnly) {
  RandomStream rng(1);
  std::vector<JobSpec> jobs;
  generate_poisson(generator("pt", 1, {job_class(8, 8, Framework::kPyTorch)}), scenario_start(),
                   rng, jobs);
  ASSERT_EQ(jobs.size(), 1u);
  ASSERT_EQ(jobs[0].roles.size(), 1u);
  EXPECT_EQ(jobs[0].roles[0].kind, RoleKind::kMaster);
  EXPECT_EQ(jobs[0].roles[0].replicas, 1);
  EXPECT_EQ(jobs[0].total_gpus(), 8);
}

TEST(WorkloadGenerator, MpiIsCpuLauncherPlusWorkers) {
  RandomStream rng(1);
  std::vector<JobSpec> jobs;
  // 16 GPUs in pods of 4, defaults 8000 milli-CPU and 64 GiB per GPU.
  generate_poisson(generator("mpi", 1, {job_class(16, 4, Framework::kMPI)}), scenario_start(), rng,
                   jobs);
  ASSERT_EQ(jobs.size(), 1u);
  const JobSpec& j = jobs[0];
  ASSERT_EQ(j.roles.size(), 2u);
  EXPECT_EQ(j.roles[0].kind, RoleKind::kLauncher);
  EXPECT_EQ(j.roles[0].replicas, 1);
  EXPECT_EQ(j.roles[0].per_replica, (Resources{1000, 2 * kGiB, 0}));
  EXPECT_EQ(j.roles[1].kind, RoleKind::kWorker);
  EXPECT_EQ(j.roles[1].replicas, 4);
  EXPECT_EQ(j.roles[1].per_replica, (Resources{32'000, 256 * kGiB, 4}));
  EXPECT_EQ(j.total_pods(), 5);
  EXPECT_EQ(j.total_gpus(), 16);
}

TEST(WorkloadGenerator, TensorFlowIsWorkersOnly) {
  RandomStream rng(1);
  std::vector<JobSpec> jobs;
  generate_poisson(generator("tf", 1, {job_class(4, 1, Framework::kTensorFlow)}), scenario_start(),
                   rng, jobs);
  ASSERT_EQ(jobs.size(), 1u);
  ASSERT_EQ(jobs[0].roles.size(), 1u);
  EXPECT_EQ(jobs[0].roles[0].kind, RoleKind::kWorker);
  EXPECT_EQ(jobs[0].roles[0].replicas, 4);
  EXPECT_EQ(jobs[0].roles[0].per_replica, (Resources{8000, 64 * kGiB, 1}));
}

TEST(WorkloadGenerator, StepsStayWithinRangeAndReachBothEnds) {
  JobClass c = job_class(1, 1, Framework::kPyTorch);
  c.steps = {100, 110};
  RandomStream rng(11);
  std::vector<JobSpec> jobs;
  generate_poisson(generator("s", 2000, {c}), scenario_start(), rng, jobs);
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const JobSpec& j : jobs) {
    ASSERT_GE(j.work.steps, 100);
    ASSERT_LE(j.work.steps, 110);
    lo = std::min(lo, j.work.steps);
    hi = std::max(hi, j.work.steps);
  }
  // 11 values, 2000 draws: missing an end has probability (10/11)^2000 ≈ 1e-83.
  EXPECT_EQ(lo, 100);
  EXPECT_EQ(hi, 110);
}

TEST(WorkloadGenerator, NamesAreZeroPaddedToFitCount) {
  auto names = [](int64_t count) {
    RandomStream rng(1);
    std::vector<JobSpec> jobs;
    generate_poisson(generator("g", count, {job_class(1, 1, Framework::kPyTorch)}),
                     scenario_start(), rng, jobs);
    return std::make_pair(jobs.front().name, jobs.back().name);
  };
  EXPECT_EQ(names(10), std::make_pair(std::string("g-0"), std::string("g-9")));
  EXPECT_EQ(names(11), std::make_pair(std::string("g-00"), std::string("g-10")));
  EXPECT_EQ(names(1000), std::make_pair(std::string("g-000"), std::string("g-999")));
}

TEST(WorkloadGenerator, AppendsWithoutTouchingExistingJobs) {
  std::vector<JobSpec> jobs(1);
  jobs[0].name = "existing";
  RandomStream rng(1);
  generate_poisson(generator("g", 3, {job_class(1, 1, Framework::kPyTorch)}), scenario_start(), rng,
                   jobs);
  ASSERT_EQ(jobs.size(), 4u);
  EXPECT_EQ(jobs[0].name, "existing");
  EXPECT_EQ(jobs[1].name, "g-0");
}

TEST(WorkloadGenerator, SortedBySubmitWithTiesInSpecOrder) {
  const Time start = scenario_start();
  WorkloadSpec w;
  JobSpec late, tie, early;
  late.name = "late";
  late.submit = start + seconds(10);
  tie.name = "tie";
  tie.submit = start;
  early.name = "early";
  early.submit = start - seconds(5);
  w.jobs = {late, tie, early};
  // Zero mean inter-arrival: every job of these generators arrives exactly at `start`.
  PoissonGeneratorSpec g2 = generator("g2", 1, {job_class(1, 1, Framework::kPyTorch)});
  g2.mean_interarrival = Duration(0);
  PoissonGeneratorSpec g1 = generator("g1", 2, {job_class(1, 1, Framework::kPyTorch)});
  g1.mean_interarrival = Duration(0);
  w.generators = {g2, g1};
  std::vector<std::string> names;
  for (const JobSpec& j : build_workload(w, start, RandomStreams(1))) names.push_back(j.name);
  // At `start`: the explicit job first, then generators in list order (g2 before g1), each
  // generator's jobs by index.
  EXPECT_EQ(names, (std::vector<std::string>{"early", "tie", "g2-0", "g1-0", "g1-1", "late"}));
}

TEST(WorkloadGenerator, GeneratorsInterleaveInSubmitOrder) {
  WorkloadSpec w;
  w.generators.push_back(generator("x", 100, {job_class(1, 1, Framework::kPyTorch)}));
  w.generators.push_back(generator("y", 100, {job_class(1, 1, Framework::kTensorFlow)}));
  const auto jobs = build_workload(w, scenario_start(), RandomStreams(3));
  ASSERT_EQ(jobs.size(), 200u);
  for (size_t i = 1; i < jobs.size(); ++i) ASSERT_LE(jobs[i - 1].submit, jobs[i].submit);
  // Both processes cover the same span, so they interleave: y's first job is not at the end.
  size_t first_y = 0;
  while (jobs[first_y].name[0] != 'y') ++first_y;
  EXPECT_LT(first_y, 100u);
}

}  // namespace
}  // namespace gantry
