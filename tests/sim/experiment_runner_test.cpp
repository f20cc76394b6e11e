#include "sim/experiment_runner.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/core/errors.hpp"
#include "sim/experiment_json.hpp"
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

// The fake loaders record what they were asked for (pod lists on the runs' threads, so under
// a lock).
struct FakeTraces {
  std::mutex mutex;
  std::vector<std::string> asked;
  ExperimentTraces traces() {
    return {[this](const TraceRef& r) {
              std::lock_guard lock(mutex);
              asked.push_back(r.file);
              return testing::two_gpu_node(2);  // 4 GPUs
            },
            [this](const TraceRef& r) {
              std::lock_guard lock(mutex);
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

// Progress counts runs over both lists (2 lists × 2 policies × 2 seeds = 8), one thread or
// two, and names the first list with runs still to finish: at the end, the last one with its
// 2 × 2 = 4 runs done.
TEST(ExperimentRunner, ReportsProgressOverEveryRun) {
  for (const unsigned threads : {1u, 2u}) {
    FakeTraces fake;
    ExperimentRunOptions options;
    options.threads = threads;
    std::vector<ExperimentProgress> seen;
    options.progress = [&](const ExperimentProgress& p) { seen.push_back(p); };
    run_experiment(two_lists(), fake.traces(), options);
    ASSERT_FALSE(seen.empty());
    for (size_t k = 1; k < seen.size(); ++k)
      EXPECT_LT(seen[k - 1].runs_done, seen[k].runs_done) << threads << " threads";
    EXPECT_EQ(seen.front().lists, 2u);
    EXPECT_EQ(seen.back().runs_done, 8u);
    EXPECT_EQ(seen.back().runs_total, 8u);
    EXPECT_EQ(seen.back().list, 1u);
    EXPECT_EQ(seen.back().name, "halves");
    EXPECT_EQ(seen.back().done, 4u);
    EXPECT_EQ(seen.back().total, 4u);
    if (threads == 1) {  // one run after another: every count once, list 0 until its 4th run
      ASSERT_EQ(seen.size(), 8u);
      EXPECT_EQ(seen[2].list, 0u);
      EXPECT_EQ(seen[2].done, 3u);
      EXPECT_EQ(seen[3].list, 1u);
      EXPECT_EQ(seen[3].done, 0u);
    }
  }
}

// Two threads give byte for byte what one gives: the JSON report and the results database.
// Three pod lists (so runs of two lists go on at once), 2 policies, 3 seeds: 18 runs.
TEST(ExperimentRunner, TwoThreadsGiveTheSameReportAndDatabaseAsOne) {
  ExperimentSpec e = two_lists();
  e.fragmentation.seeds = 3;
  e.fragmentation.variants.push_back(PodListVariant{"again", ref("openb_pod_list_again.csv")});
  const auto report = [&](unsigned threads, const std::string& db) {
    FakeTraces fake;
    ExperimentRunOptions options;
    options.threads = threads;
    const std::vector<NamedResult> results = run_experiment(e, fake.traces(), options);
    write_fragmentation_database(db, e.name, results);
    return experiment_json(results).dump(2);
  };
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  const std::string one_db = (dir / ("experiment_runner_1_" + std::to_string(::getpid()))).string();
  const std::string two_db = (dir / ("experiment_runner_2_" + std::to_string(::getpid()))).string();
  const std::string one = report(1, one_db), two = report(2, two_db);
  EXPECT_EQ(one, two);
  EXPECT_NE(one.find("\"again\""), std::string::npos) << "the third list is in the report";
  const auto bytes = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_FALSE(bytes(one_db).empty());
  EXPECT_EQ(bytes(one_db), bytes(two_db));
  std::filesystem::remove(one_db);
  std::filesystem::remove(two_db);
}

// A pod list that turns out bad when its turn comes (after the first list's runs) stops the
// experiment with the loader's own exception, the same on one thread and on two; with two bad
// lists, the first in order is the one reported, as one thread would meet it.
TEST(ExperimentRunner, ABadPodListFoundLateIsReportedAsOnOneThread) {
  ExperimentSpec e = two_lists();
  e.fragmentation.variants.push_back(PodListVariant{"worse", ref("worse.csv")});
  const auto failure = [&](unsigned threads) {
    FakeTraces fake;
    ExperimentTraces traces = fake.traces();
    traces.pods = [good = traces.pods](const TraceRef& r) {
      if (r.file == "halves.csv" || r.file == "worse.csv")
        throw InputError({r.path, 3, 7}, "num_gpu", r.file + " row 3: expected an integer");
      return good(r);
    };
    ExperimentRunOptions options;
    options.threads = threads;
    try {
      run_experiment(e, traces, options);
    } catch (const InputError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  const std::string one = failure(1);
  EXPECT_NE(one.find("halves.csv row 3: expected an integer"), std::string::npos) << one;
  EXPECT_EQ(failure(2), one);
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
