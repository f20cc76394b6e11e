// Every scenario shipped in scenarios/ runs here, and the result its opening comment promises is
// checked (STYLE.md habit 15: examples are documentation and tests at once).

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "adapters/traces/trace_ref_loader.hpp"
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

// The fragmentation experiments (kind: Experiment: openb-fragmentation.yaml,
// openb-sweep-*.yaml) are checked against the FGD paper's published results in
// published_results_test.cpp.

// Catches a scenario added to scenarios/ without a test above. (Pipeline examples in
// scenarios/pipelines/ are checked by tests/tools/pipeline_command_test.cpp.)
TEST(Scenarios, EveryShippedScenarioIsCovered) {
  int scenarios = 0, experiments = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(
           std::string(GANTRY_SOURCE_DIR) + "/scenarios")) {
    if (entry.path().extension() != ".yaml") continue;
    std::ifstream in(entry.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find("\nkind: Scenario") != std::string::npos) ++scenarios;
    if (text.find("\nkind: Experiment") != std::string::npos) ++experiments;
  }
  EXPECT_EQ(scenarios, 7) << "add a test above for the new scenario's promised result";
  EXPECT_EQ(experiments, 5) << "add a test in published_results_test.cpp for the new experiment";
}

}  // namespace
}  // namespace gantry
