#include "sim/experiment_runner.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "tests/sim/fragmentation_fixtures.hpp"

namespace gantry {
namespace {

using testing::pod;

TraceRef ref(const std::string& file) { return TraceRef{"openb-pods", "/data/" + file, file, {}}; }

// An experiment over its own pod list and one variant, as loaded from a file.
ExperimentSpec two_lists() {
  ExperimentSpec e;
  e.name = "e";
  e.seed = 5;
  e.fragmentation.nodes = TraceRef{"openb-nodes", "/data/nodes.csv", "data/nodes.csv", {}};
  e.fragmentation.pods = ref("openb_pod_list_base.csv");
  e.fragmentation.seeds = 2;
  e.fragmentation.policies = {"FGD", "BestFit"};
  e.fragmentation.variants = {PodListVariant{"halves", ref("halves.csv")}};
  return e;
}

// The fake loaders record what they were asked for.
struct FakeTraces {
  std::vector<std::string> asked;
  ExperimentTraces traces() {
    return {[this](const TraceRef& r) {
              asked.push_back(r.file);
              return testing::two_gpu_node(2);  // 4 GPUs
            },
            [this](const TraceRef& r) {
              asked.push_back(r.file);
              if (r.file == "halves.csv")
                return std::vector<JobSpec>{pod("a", 0, 500), pod("b", 0, 500)};
              return std::vector<JobSpec>{pod("a", 1, 0), pod("b", 0, 500), pod("c", 0, 0)};
            }};
  }
};

TEST(ExperimentRunner, RunsItsPodListThenEachVariant) {
  FakeTraces fake;
  const std::vector<NamedResult> results = run_experiment(two_lists(), fake.traces(), {});
  EXPECT_EQ(fake.asked,
            (std::vector<std::string>{"data/nodes.csv", "openb_pod_list_base.csv", "halves.csv"}));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].variant, "base");  // pod_list_name of its file
  EXPECT_EQ(results[1].variant, "halves");
  for (const NamedResult& r : results) {
    EXPECT_EQ(r.result.scenario, "e");
    EXPECT_EQ(r.result.node_list, "nodes.csv");
    EXPECT_EQ(r.result.capacity_gpus, 4);
    ASSERT_EQ(r.result.policies.size(), 2u);
    EXPECT_EQ(r.result.policies[0].policy, "FGD");
    EXPECT_EQ(r.result.policies[0].seeds, 2);
  }
  EXPECT_EQ(results[0].result.pod_list, "openb_pod_list_base.csv");
  EXPECT_EQ(results[0].result.pods_in_list, 3);
  EXPECT_EQ(results[1].result.pods_in_list, 2);
}

TEST(ExperimentRunner, OptionsNarrowToOnePolicyAndOneSeed) {
  FakeTraces fake;
  ExperimentRunOptions options;
  options.policies = {"Random"};
  options.seed = 9;
  const std::vector<NamedResult> results = run_experiment(two_lists(), fake.traces(), options);
  ASSERT_EQ(results[0].result.policies.size(), 1u);
  EXPECT_EQ(results[0].result.policies[0].policy, "Random");
  EXPECT_EQ(results[0].result.policies[0].seeds, 1);
  // The same seed twice, the same curves: the runner is deterministic.
  const std::vector<NamedResult> again = run_experiment(two_lists(), fake.traces(), options);
  EXPECT_EQ(again[0].result.policies[0].unallocated_gpu_pct_mean,
            results[0].result.policies[0].unallocated_gpu_pct_mean);
}

TEST(ExperimentRunner, ReportsProgressPerPodList) {
  FakeTraces fake;
  ExperimentRunOptions options;
  std::vector<ExperimentProgress> seen;
  options.progress = [&](const ExperimentProgress& p) { seen.push_back(p); };
  run_experiment(two_lists(), fake.traces(), options);
  ASSERT_FALSE(seen.empty());
  // Each list opens with done = total = 0 and ends with all 2 policies × 2 seeds done.
  EXPECT_EQ(seen.front().list, 0u);
  EXPECT_EQ(seen.front().lists, 2u);
  EXPECT_EQ(seen.front().name, "base");
  EXPECT_EQ(seen.front().total, 0u);
  EXPECT_EQ(seen.back().list, 1u);
  EXPECT_EQ(seen.back().name, "halves");
  EXPECT_EQ(seen.back().done, 4u);
  EXPECT_EQ(seen.back().total, 4u);
}

TEST(ExperimentRunner, AnUnknownPolicyIsRefused) {
  FakeTraces fake;
  ExperimentRunOptions options;
  options.policies = {"Tetris"};
  EXPECT_THROW(run_experiment(two_lists(), fake.traces(), options), std::invalid_argument);
}

TEST(ExperimentRunner, PodListsAreNamedAfterTheirFiles) {
  EXPECT_EQ(pod_list_name("data/openb/openb_pod_list_default.csv"), "default");
  EXPECT_EQ(pod_list_name("data/openb/openb_pod_list_gpushare20.csv"), "gpushare20");
  EXPECT_EQ(pod_list_name("lists/mine.csv"), "mine");
  EXPECT_EQ(pod_list_name("openb_pod_list_.csv"), "openb_pod_list_");  // nothing left to name it
}

}  // namespace
}  // namespace gantry
