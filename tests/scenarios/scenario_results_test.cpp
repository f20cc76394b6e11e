// Every scenario shipped in scenarios/ runs here, and the result its opening comment promises is
// checked (STYLE.md habit 15: examples are documentation and tests at once).

#include <gtest/gtest.h>

#include <algorithm>
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

// Median admission wait (first admission − submit) of one queue's admitted jobs, in seconds,
// and how many of its jobs were admitted.
struct QueueWaits {
  double median_s = 0;
  size_t admitted = 0;
  int evictions = 0;
};
QueueWaits waits_of(const SimulationRun& run, const std::string& queue) {
  std::vector<double> waits;
  QueueWaits q;
  for (const JobLog& j : run.log.jobs) {
    if (j.spec->queue != queue) continue;
    q.evictions += static_cast<int>(j.evicted.size());
    if (j.admitted) waits.push_back((*j.admitted - j.spec->submit).seconds());
  }
  std::sort(waits.begin(), waits.end());
  q.admitted = waits.size();
  if (!waits.empty()) q.median_s = waits[waits.size() / 2];
  return q;
}

// The what-if pair of teams-borrowing-{on,off}.yaml: with borrowing, research's median wait is
// under half of what it is without (about 1.1 h against 7 h when written) and more of its jobs
// start; the GPUs are busier (98 % against 75 % allocated); prod's median start stays within a
// minute of its own; only borrowing ever evicts anyone (mostly prod reclaiming its quota).
TEST(Scenarios, BorrowingCutsTheBusyTeamsWaitAndFillsTheCluster) {
  const auto load = [](const std::string& name) {
    return run_simulation(load_scenario_file(scenario_path(name)));
  };
  const SimulationRun on = load("whatif/teams-borrowing-on.yaml");
  const SimulationRun off = load("whatif/teams-borrowing-off.yaml");
  const QueueWaits research_on = waits_of(on, "research"), research_off = waits_of(off, "research");
  const QueueWaits prod_on = waits_of(on, "prod"), prod_off = waits_of(off, "prod");
  EXPECT_LT(research_on.median_s, 0.5 * research_off.median_s)
      << research_on.median_s << " s vs " << research_off.median_s << " s";
  EXPECT_GT(research_on.admitted, research_off.admitted);
  EXPECT_LT(prod_on.median_s, prod_off.median_s + 60);
  EXPECT_EQ(prod_on.admitted, prod_off.admitted);
  EXPECT_GT(summarize(on).gpu_allocation_ratio, summarize(off).gpu_allocation_ratio + 0.15);
  EXPECT_GT(research_on.evictions, 0);
  // Prod is reclaimed from only in its bursts above its own 32 GPUs.
  EXPECT_LT(prod_on.evictions, research_on.evictions / 2);
  EXPECT_EQ(research_off.evictions + prod_off.evictions, 0);
  ASSERT_EQ(on.log.queues.size(), 2u);
  EXPECT_GT(on.log.queues[0].borrowed_gpu_seconds, 0);
  EXPECT_EQ(off.log.queues[0].borrowed_gpu_seconds, 0);
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
  // llama3-failures-30d.yaml is checked in failure_scenario_test.cpp (slow).
  EXPECT_EQ(scenarios, 10) << "add a test above for the new scenario's promised result";
  EXPECT_EQ(experiments, 5) << "add a test in published_results_test.cpp for the new experiment";
}

}  // namespace
}  // namespace gantry
