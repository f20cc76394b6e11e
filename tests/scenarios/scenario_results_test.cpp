// Every scenario shipped in scenarios/ runs here, and the result its opening comment promises is
// checked (STYLE.md habit 15: examples are documentation and tests at once).

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "adapters/traces/trace_ref_loader.hpp"
#include "sim/fragmentation_experiment.hpp"
#include "sim/scenario_loader.hpp"
#include "sim/simulation.hpp"
#include "sim/summary.hpp"

namespace gantry {
namespace {

std::string scenario_path(const std::string& name) {
  return std::string(GANTRY_SOURCE_DIR) + "/scenarios/" + name;
}

RunSummary run_file(const std::string& name) {
  return summarize(run_simulation(load_scenario_file(scenario_path(name))));
}

TEST(Scenarios, QuickstartFinishesEveryJob) {
  const RunSummary s = run_file("quickstart.yaml");
  EXPECT_EQ(s.jobs_total, 600);
  EXPECT_EQ(s.jobs_finished, 600);
  EXPECT_GT(s.gpu_allocation_ratio, 0.5);
  EXPECT_LT(s.gpu_allocation_ratio, 0.9);
  EXPECT_LT(s.wait_s.p50, 60.0) << "most jobs start within a minute";
}

TEST(Scenarios, TopologyPlacementBeatsBinpackOnTcp) {
  const RunSummary binpack = run_file("whatif/placement-tcp-binpack.yaml");
  const RunSummary topology = run_file("whatif/placement-tcp-topology.yaml");
  EXPECT_EQ(binpack.jobs_finished, binpack.jobs_total);
  EXPECT_EQ(topology.jobs_finished, topology.jobs_total);
  EXPECT_LT(topology.jct_s.mean, 0.9 * binpack.jct_s.mean)
      << "topology " << topology.jct_s.mean << " s vs binpack " << binpack.jct_s.mean << " s";
}

TEST(Scenarios, RdmaBeatsTcpForMultiNodeJobs) {
  const RunSummary rdma = run_file("whatif/fabric-rdma.yaml");
  const RunSummary tcp = run_file("whatif/fabric-tcp.yaml");
  EXPECT_EQ(rdma.jobs_finished, rdma.jobs_total);
  EXPECT_EQ(tcp.jobs_finished, tcp.jobs_total);
  EXPECT_LT(rdma.jct_s.mean, tcp.jct_s.mean / 2);
  EXPECT_LT(rdma.wait_s.mean, tcp.wait_s.mean);
}

TEST(Scenarios, Scale100kFinishesAtAboutEightyPercentAllocation) {
  const RunSummary s = run_file("scale-100k.yaml");
  EXPECT_EQ(s.jobs_total, 100'000);
  EXPECT_EQ(s.jobs_finished, 100'000);
  EXPECT_EQ(s.total_gpus, 8192);
  EXPECT_GT(s.gpu_allocation_ratio, 0.75);
  EXPECT_LT(s.gpu_allocation_ratio, 0.85);
}

// The paper's headline (Weng et al., ATC'23, Fig. 7): FGD leaves the least GPU unallocated
// once the cluster is loaded. Checked at 100 % and 130 % arrival over the scenario's 10 seeds.
TEST(Scenarios, OpenbFgdLeavesTheLeastGpuUnallocated) {
  const ScenarioSpec scenario = load_scenario_file(scenario_path("openb-fragmentation.yaml"));
  ASSERT_TRUE(scenario.experiment.has_value());
  const FragmentationExperimentSpec& e = *scenario.experiment;
  FragmentationInput input;
  input.topology = load_trace_topology(e.nodes);
  input.pods = load_trace_pods(e.pods);
  ExperimentOptions options;
  options.policies = e.policies;
  options.seeds = e.seeds;
  options.base_seed = scenario.seed;
  options.threads = 2;
  const FragmentationResult r = run_fragmentation_experiment(input, options);
  ASSERT_EQ(r.policies.size(), 6u);
  EXPECT_EQ(r.nodes, 1213);
  EXPECT_EQ(r.capacity_gpus, 6212);
  const PolicyCurves* fgd = nullptr;
  for (const PolicyCurves& p : r.policies)
    if (p.policy == "FGD") fgd = &p;
  ASSERT_NE(fgd, nullptr);
  for (size_t level : {100u, 130u}) {
    for (const PolicyCurves& p : r.policies) {
      if (&p == fgd) continue;
      EXPECT_LT(fgd->unallocated_gpu_pct_mean[level], p.unallocated_gpu_pct_mean[level])
          << "FGD vs " << p.policy << " at " << level << " %";
    }
  }
}

TEST(Scenarios, Pai2020ClusterRunsEveryJobAtTheSpeedOfItsGpu) {
  const ScenarioSpec scenario =
      load_scenario_file(scenario_path("pai-2020-cluster.yaml"), load_trace_topology);
  EXPECT_EQ(scenario.topology.nodes.size(), 1897u);
  EXPECT_EQ(scenario.topology.total_gpus(), 6742);
  const SimulationRun run = run_simulation(scenario);
  const RunSummary s = summarize(run);
  EXPECT_EQ(s.jobs_finished, s.jobs_total);
  EXPECT_LE(s.wait_s.p99, 10.0) << "no job waits for GPUs beyond pod start-up";
  EXPECT_LT(s.gpu_allocation_ratio, 0.30);
  double fastest = 1e9, slowest = 0;
  for (const JobLog& job : run.log.jobs) {
    if (job.spec->total_gpus() != 1) continue;
    fastest = std::min(fastest, job.step.total.seconds());
    slowest = std::max(slowest, job.step.total.seconds());
  }
  EXPECT_GT(slowest / fastest, 10.0) << fastest << " s vs " << slowest << " s";
}

// Runs a sweep scenario's pod lists (the base list first, then each variant) and returns, per
// list, each policy's mean unallocated GPU % at the last arrival level.
std::vector<std::map<std::string, double>> sweep_at_limit(const std::string& file) {
  const ScenarioSpec scenario = load_scenario_file(scenario_path(file));
  const FragmentationExperimentSpec& e = *scenario.experiment;
  std::vector<TraceRef> lists{e.pods};
  for (const PodListVariant& v : e.variants) lists.push_back(v.pods);
  FragmentationInput input;
  input.topology = load_trace_topology(e.nodes);
  ExperimentOptions options;
  options.policies = e.policies;
  options.seeds = e.seeds;
  options.base_seed = scenario.seed;
  options.threads = 2;
  std::vector<std::map<std::string, double>> out;
  for (const TraceRef& list : lists) {
    input.pods = load_trace_pods(list);
    std::map<std::string, double> row;
    for (const PolicyCurves& p : run_fragmentation_experiment(input, options).policies)
      row[p.policy] = p.unallocated_gpu_pct_mean.back();
    out.push_back(std::move(row));
  }
  return out;
}

void expect_fgd_within(const std::string& file, size_t lists, double points) {
  const auto rows = sweep_at_limit(file);
  ASSERT_EQ(rows.size(), lists);
  for (size_t i = 0; i < rows.size(); ++i) {
    for (const auto& [policy, value] : rows[i]) {
      if (policy == "FGD") continue;
      EXPECT_LT(rows[i].at("FGD"), value + points) << file << " list " << i << ": FGD vs " << policy;
    }
  }
}

TEST(Scenarios, SweepGpushareFgdLowestOnEveryList) { expect_fgd_within("openb-sweep-gpushare.yaml", 6, 0); }
TEST(Scenarios, SweepGpuspecFgdLowestOnEveryList) { expect_fgd_within("openb-sweep-gpuspec.yaml", 6, 0); }
TEST(Scenarios, SweepMultigpuFgdLowestOnEveryList) { expect_fgd_within("openb-sweep-multigpu.yaml", 5, 0); }
TEST(Scenarios, SweepCpuFgdWithinThreeTenthsOfTheBest) { expect_fgd_within("openb-sweep-cpu.yaml", 10, 0.3); }

// Catches a scenario added to scenarios/ without a test above. (Pipeline examples in
// scenarios/pipelines/ are checked by tests/tools/pipeline_command_test.cpp.)
TEST(Scenarios, EveryShippedScenarioIsCovered) {
  int count = 0;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(std::string(GANTRY_SOURCE_DIR) + "/scenarios")) {
    if (entry.path().extension() != ".yaml") continue;
    std::ifstream in(entry.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find("\nkind: Scenario") != std::string::npos) ++count;
  }
  EXPECT_EQ(count, 12) << "add a test for the new scenario's promised result";
}

}  // namespace
}  // namespace gantry
