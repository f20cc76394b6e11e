// The fragmentation experiments Gantry ships, against the results their authors published:
// Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation
// Gradient Descent", USENIX ATC'23, Fig. 7 and §6, as produced by their simulator and recorded
// in hkust-adsl/kubernetes-scheduler-simulator, experiments/analysis/expected_results/
// analysis_allo_discrete.csv (commit 1853fc0e79d74778719c8137d7ca31dd61729e4f): allocated GPU %
// per arrival level, one row per policy and seed (10 seeds, tune ratio 1.3). The means below
// are 100 − the mean of those rows over the 10 seeds, computed from that file.
//
// Gantry's seeds are not the authors' (their Go math/rand streams are not reproduced), so the
// comparison is between means over 10 seeds each: within half a point, as issue #7 asks.
//
// Slow (the 60-run experiment takes about 10 s, the sweeps a minute, the artifact's 1,020 runs
// another): CTest label `slow`.

#include <gtest/gtest.h>

#include <array>
#include <map>
#include <string>
#include <vector>

#include "adapters/traces/trace_ref_loader.hpp"
#include "sim/experiment_loader.hpp"
#include "sim/experiment_runner.hpp"

namespace gantry {
namespace {

std::string scenario_path(const std::string& name) {
  return std::string(GANTRY_SOURCE_DIR) + "/scenarios/" + name;
}

// Every pod list of the experiment file `name` as `gantry simulate` runs it
// (sim/experiment_runner.hpp), on both cores.
std::vector<NamedResult> run_file(const std::string& name) {
  const ExperimentSpec experiment = load_experiment_file(scenario_path(name));
  ExperimentRunOptions options;
  options.threads = 2;
  return run_experiment(experiment, {load_trace_topology, load_trace_pods}, options);
}

const PolicyCurves& policy(const FragmentationResult& r, const std::string& name) {
  for (const PolicyCurves& p : r.policies)
    if (p.policy == name) return p;
  ADD_FAILURE() << "no policy " << name;
  return r.policies.front();
}

// Unallocated GPU % of the default openb trace (openb_pod_list_default), published means.
constexpr std::array<size_t, 7> kLevels = {80, 90, 95, 100, 110, 120, 130};
const std::map<std::string, std::array<double, 7>> kPublishedDefault = {
    {"Random", {21.34, 14.98, 14.28, 13.70, 13.12, 12.72, 12.53}},
    {"DotProduct", {19.98, 10.02, 9.42, 9.38, 9.30, 9.23, 9.15}},
    {"GpuClustering", {19.98, 10.02, 8.39, 8.35, 8.27, 8.20, 8.12}},
    {"GpuPacking", {19.98, 10.02, 8.26, 8.22, 8.14, 8.08, 8.00}},
    {"BestFit", {19.98, 10.01, 7.18, 7.14, 7.07, 7.00, 6.92}},
    {"FGD", {19.98, 10.02, 5.10, 4.77, 4.70, 4.65, 4.61}},
};

// The default list's unallocated GPU % against kPublishedDefault, and the paper's ordering.
void expect_published_default(const FragmentationResult& r) {
  ASSERT_EQ(r.policies.size(), 6u);
  EXPECT_EQ(r.nodes, 1213);
  EXPECT_EQ(r.capacity_gpus, 6212);
  for (const auto& [name, published] : kPublishedDefault) {
    const PolicyCurves& p = policy(r, name);
    for (size_t i = 0; i < kLevels.size(); ++i)
      EXPECT_NEAR(p.unallocated_gpu_pct_mean[kLevels[i]], published[i], 0.5)
          << name << " at " << kLevels[i] << " % arrival";
  }
  // The paper's ordering from 95 % on: FGD < BestFit < GpuPacking ≈ GpuClustering < DotProduct
  // < Random (packing and clustering are within 0.15 of each other in the published means).
  for (size_t level = 95; level <= 130; ++level) {
    const auto u = [&](const std::string& name) {
      return policy(r, name).unallocated_gpu_pct_mean[level];
    };
    EXPECT_LT(u("FGD"), u("BestFit")) << level;
    EXPECT_LT(u("BestFit"), u("GpuPacking")) << level;
    EXPECT_LT(u("BestFit"), u("GpuClustering")) << level;
    EXPECT_NEAR(u("GpuPacking"), u("GpuClustering"), 0.5) << level;
    EXPECT_LT(u("GpuPacking"), u("DotProduct")) << level;
    EXPECT_LT(u("GpuClustering"), u("DotProduct")) << level;
    EXPECT_LT(u("DotProduct"), u("Random")) << level;
  }
}

// Published means (same file, same averaging) of one list of each sweep, unallocated GPU % at
// 100 % and 130 % arrival. These lists' seed-to-seed spread is larger (sd up to 0.8 point where
// a curve is steep at 100 %), so the difference of two 10-seed means has a standard error of up
// to about 0.37 point; they are held to 1 point (2.7 standard errors).
struct ListMeans {
  std::string list;
  std::map<std::string, std::array<double, 2>> at_100_130;
};
const std::vector<ListMeans> kPublishedLists = {
    {"gpushare40",
     {{"Random", {15.14, 14.00}},
      {"DotProduct", {10.70, 10.44}},
      {"GpuClustering", {10.24, 9.99}},
      {"GpuPacking", {10.23, 9.97}},
      {"BestFit", {8.56, 8.31}},
      {"FGD", {6.04, 5.85}}}},
    {"gpuspec33",
     {{"Random", {16.13, 13.54}},
      {"DotProduct", {20.18, 10.86}},
      {"GpuClustering", {18.91, 7.88}},
      {"GpuPacking", {17.78, 6.78}},
      {"BestFit", {19.61, 6.91}},
      {"FGD", {12.16, 5.45}}}},
    {"multigpu50",
     {{"Random", {18.72, 9.73}},
      {"DotProduct", {5.27, 5.15}},
      {"GpuClustering", {4.31, 4.19}},
      {"GpuPacking", {3.94, 3.82}},
      {"BestFit", {4.38, 4.26}},
      {"FGD", {2.91, 2.82}}}},
    {"cpu250",
     {{"Random", {20.00, 19.59}},
      {"DotProduct", {16.43, 16.20}},
      {"GpuClustering", {12.25, 12.01}},
      {"GpuPacking", {11.95, 11.72}},
      {"BestFit", {8.79, 8.55}},
      {"FGD", {6.80, 6.59}}}},
};

// FGD must leave the least GPU unallocated at the limit on each list (the paper's Fig. 9–12
// claim), allowed `points`; a list with published means above must match them. Returns how
// many lists were compared with published means.
int expect_fgd_lowest_and_published(const std::vector<NamedResult>& results,
                                    const std::string& file, double points) {
  int compared = 0;
  for (const auto& [name, r] : results) {
    const double fgd = policy(r, "FGD").unallocated_gpu_pct_mean.back();
    for (const PolicyCurves& p : r.policies) {
      if (p.policy == "FGD") continue;
      EXPECT_LT(fgd, p.unallocated_gpu_pct_mean.back() + points)
          << file << " list " << name << ": FGD vs " << p.policy;
    }
    for (const ListMeans& published : kPublishedLists) {
      if (published.list != name) continue;
      ++compared;
      for (const auto& [policy_name, means] : published.at_100_130) {
        const PolicyCurves& p = policy(r, policy_name);
        EXPECT_NEAR(p.unallocated_gpu_pct_mean[100], means[0], 1.0) << name << " " << policy_name;
        EXPECT_NEAR(p.unallocated_gpu_pct_mean[130], means[1], 1.0) << name << " " << policy_name;
      }
    }
  }
  return compared;
}

// The sweeps: every list of each shipped sweep runs, FGD lowest (the CPU sweep allowed 0.3
// point), one list of each against published means.
void expect_fgd_within(const std::string& file, size_t lists, double points) {
  const std::vector<NamedResult> results = run_file(file);
  ASSERT_EQ(results.size(), lists);
  EXPECT_EQ(expect_fgd_lowest_and_published(results, file, points), 1)
      << file << ": one list is checked against published means";
}

TEST(PublishedResults, SweepGpushareFgdLowestOnEveryList) {
  expect_fgd_within("openb-sweep-gpushare.yaml", 6, 0);
}
TEST(PublishedResults, SweepGpuspecFgdLowestOnEveryList) {
  expect_fgd_within("openb-sweep-gpuspec.yaml", 6, 0);
}
TEST(PublishedResults, SweepMultigpuFgdLowestOnEveryList) {
  expect_fgd_within("openb-sweep-multigpu.yaml", 5, 0);
}
TEST(PublishedResults, SweepCpuFgdWithinThreeTenthsOfTheBest) {
  expect_fgd_within("openb-sweep-cpu.yaml", 10, 0.3);
}

// scenarios/openb-artifact.yaml: the authors' artifact run, the 17 pod lists of their run script
// (hkust-adsl/kubernetes-scheduler-simulator, experiments/run_scripts/generate_run_scripts.py,
// FileList; there gpushare100 comes before gpushare40) × 6 policies × 10 seeds = 1,020 runs,
// under a minute on 2 cores.
// The default list has openb-fragmentation.yaml's seeds, so it must match the published means
// as that file does; FGD leaves the least GPU unallocated at 130 % on every list; the four
// lists with published means above match them at 10 seeds.
TEST(PublishedResults, ArtifactSeventeenListsFgdLowestOnEach) {
  const ExperimentSpec artifact = load_experiment_file(scenario_path("openb-artifact.yaml"));
  // Its default list is openb-fragmentation.yaml's whole experiment, field for field, so the
  // published means below check that file too (it used to run on its own, 13 s more).
  const ExperimentSpec fragmentation =
      load_experiment_file(scenario_path("openb-fragmentation.yaml"));
  EXPECT_EQ(artifact.seed, fragmentation.seed);
  EXPECT_EQ(artifact.fragmentation.nodes.path, fragmentation.fragmentation.nodes.path);
  EXPECT_EQ(artifact.fragmentation.pods.path, fragmentation.fragmentation.pods.path);
  EXPECT_EQ(artifact.fragmentation.arrival_limit_pct,
            fragmentation.fragmentation.arrival_limit_pct);
  EXPECT_EQ(artifact.fragmentation.seeds, fragmentation.fragmentation.seeds);
  EXPECT_EQ(artifact.fragmentation.typical_coverage, fragmentation.fragmentation.typical_coverage);
  EXPECT_EQ(artifact.fragmentation.policies, fragmentation.fragmentation.policies);
  EXPECT_TRUE(fragmentation.fragmentation.variants.empty());
  EXPECT_EQ(artifact.fragmentation.seeds, 10);
  const std::vector<NamedResult> results = run_file("openb-artifact.yaml");
  std::vector<std::string> lists;
  for (const NamedResult& r : results) {
    lists.push_back(r.variant);
    EXPECT_EQ(r.result.pod_list, "openb_pod_list_" + r.variant + ".csv");
    EXPECT_EQ(r.result.policies.size(), 6u) << r.variant;
  }
  EXPECT_EQ(lists,
            (std::vector<std::string>{"default", "cpu050", "cpu100", "cpu200", "cpu250",
                                      "gpushare40", "gpushare60", "gpushare80", "gpushare100",
                                      "gpuspec10", "gpuspec20", "gpuspec25", "gpuspec33",
                                      "multigpu20", "multigpu30", "multigpu40", "multigpu50"}));
  expect_published_default(results.front().result);
  EXPECT_EQ(expect_fgd_lowest_and_published(results, "openb-artifact.yaml", 0), 4);
}

}  // namespace
}  // namespace gantry
