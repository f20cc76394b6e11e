// Every scenario shipped in scenarios/ runs here, and the result its opening comment promises is
// checked (STYLE.md habit 15: examples are documentation and tests at once).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "adapters/traces/trace_ref_loader.hpp"
#include "sim/reliability_summary.hpp"
#include "sim/scenario_loader.hpp"
#include "sim/simulation.hpp"
#include "sim/summary.hpp"
#include "tests/scenarios/allocation_invariant.hpp"

namespace gantry {
namespace {

using testing::run_checked;

std::string scenario_path(const std::string& name) {
  return std::string(GANTRY_SOURCE_DIR) + "/scenarios/" + name;
}

RunSummary run_file(const std::string& name) {
  return summarize(run_checked(load_scenario_file(scenario_path(name)), name));
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
    return run_checked(load_scenario_file(scenario_path(name)), name);
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

// whatif/checkpoint-interval.yaml, run at five checkpoint intervals around Young's and Daly's
// optimum. A job on 8 nodes of 48 h MTBF each sees M = 6 h; C = 5 min; τ* = √(2·C·M) = 60 min.
// For exponential failures a cycle of τ of steps and C of writing, restarted from its start on
// a failure, takes M·(e^((τ+C)/M) − 1) on average, so goodput is G(τ) = τ / (M·(e^((τ+C)/M) − 1))
// (the restart delay is not counted: no GPUs are held meanwhile): 0.729, 0.816, 0.842, 0.803
// and 0.684 at 0.25, 0.5, 1, 2 and 4 τ*. The simulator gave 0.731, 0.817, 0.844, 0.809 and
// 0.694 when written (323 to 377 failures a run). Checked: the curve rises to its peak and
// falls after it, the peak is within a factor 2 of τ*, every point is within 0.03 of G(τ), the
// jobs see M within 15 %, and a second run at τ* gives the same goodput and trajectory.
TEST(Scenarios, CheckpointIntervalGoodputPeaksNearYoungDaly) {
  const ScenarioSpec base = load_scenario_file(scenario_path("whatif/checkpoint-interval.yaml"));
  const double mtbf_s = 48.0 * 3600 / 8, cost_s = 300;
  const double tau_star_s = std::sqrt(2 * cost_s * mtbf_s);
  ASSERT_DOUBLE_EQ(tau_star_s, 3600);
  ASSERT_EQ(base.workload.generators.at(0).mix.at(0).checkpoint_every, hours(1));
  ASSERT_EQ(base.workload.generators.at(0).mix.at(0).checkpoint_cost, minutes(5));
  const auto model = [&](double tau_s) {
    return tau_s / (mtbf_s * std::expm1((tau_s + cost_s) / mtbf_s));
  };
  const std::vector<double> factors = {0.25, 0.5, 1, 2, 4};
  std::vector<double> goodput;
  std::printf("  checkpoint every   τ/τ*   goodput   model   failures   MTBF seen\n");
  for (const double f : factors) {
    ScenarioSpec spec = base;
    spec.workload.generators[0].mix[0].checkpoint_every = seconds(static_cast<int64_t>(f * 3600));
    const SimulationRun run =
        run_checked(spec, "whatif/checkpoint-interval.yaml at τ* × " + std::to_string(f));
    const ReliabilitySummary r = summarize_reliability(run.log);
    goodput.push_back(r.goodput);
    ASSERT_EQ(r.by_size.size(), 1u);
    std::printf("  %8.0f min      %5.2f   %7.3f   %5.3f   %8lld   %7.2f h%s\n", f * 60, f,
                r.goodput, model(f * tau_star_s), static_cast<long long>(r.jobs_killed),
                r.by_size[0].mtbf_hours, f == 1 ? "   <- Young/Daly τ*" : "");
    EXPECT_NEAR(r.goodput, model(f * tau_star_s), 0.03) << "at " << f << " τ*";
    EXPECT_NEAR(r.by_size[0].mtbf_hours, 6.0, 0.9) << "at " << f << " τ*";
    EXPECT_EQ(summarize(run).jobs_finished, 100);
  }
  const size_t best =
      static_cast<size_t>(std::max_element(goodput.begin(), goodput.end()) - goodput.begin());
  std::printf("  simulator's best: %.0f min (τ* = %.0f min)\n", factors[best] * 60,
              tau_star_s / 60);
  EXPECT_GE(factors[best], 0.5);
  EXPECT_LE(factors[best], 2.0);
  for (size_t i = 0; i < best; ++i) EXPECT_LT(goodput[i], goodput[i + 1]) << "rising, " << i;
  for (size_t i = best; i + 1 < goodput.size(); ++i)
    EXPECT_GT(goodput[i], goodput[i + 1]) << "falling, " << i;
  // Same seed, same run.
  const SimulationRun again = run_checked(base, "whatif/checkpoint-interval.yaml"),
                      once = run_checked(base, "whatif/checkpoint-interval.yaml");
  EXPECT_EQ(summarize_reliability(again.log).goodput, summarize_reliability(once.log).goodput);
  EXPECT_EQ(summarize(again).fingerprint, summarize(once).fingerprint);
  EXPECT_DOUBLE_EQ(summarize_reliability(once.log).goodput, goodput[2]);
}

struct PoolTotals {
  double node_hours = 0;
  double cost = 0;
  int reclaims = 0;
  int nodes_added = 0;
};
PoolTotals pool_totals(const SimulationRun& run) {
  PoolTotals t;
  for (const PoolLog& p : run.log.pools) {
    t.node_hours += p.node_hours;
    t.cost += p.cost;
    t.reclaims += p.reclaims;
    t.nodes_added += p.nodes_added;
  }
  return t;
}

// Work lost and goodput of the elastic or the rigid jobs of a run.
struct KindLoss {
  int jobs = 0;
  double lost_gpu_hours = 0;
  double useful_spot_gpu_hours = 0;
  double goodput = 0;
  double mean_jct_s = 0;
};
KindLoss loss_of(const SimulationRun& run, bool elastic) {
  KindLoss k;
  double allocated = 0, useful = 0, jct = 0;
  int finished = 0;
  for (const JobLog& j : run.log.jobs) {
    if (j.spec->elastic.enabled() != elastic) continue;
    ++k.jobs;
    k.lost_gpu_hours += j.lost_gpu_seconds / 3600;
    k.useful_spot_gpu_hours += j.useful_spot_gpu_seconds / 3600;
    allocated += j.allocated_gpu_seconds;
    useful += j.useful_gpu_seconds;
    if (j.finished) {
      ++finished;
      jct += (*j.finished - j.spec->submit).seconds();
    }
  }
  k.goodput = allocated > 0 ? useful / allocated : 0;
  k.mean_jct_s = finished > 0 ? jct / finished : 0;
  return k;
}

// whatif/spot-share-{0,50,100}.yaml: the same 300 jobs on 8 nodes of which 0, 4 or 8 are spot
// ($12 a node-hour against $40, reclaimed after 8 h on average). When written: cost $62.4k,
// $43.4k, $19.8k; mean JCT 7,478 s, 10,258 s, 9,902 s; work thrown away 0, 286 and 640 GPU-h.
// At 100 % spot the rigid jobs threw away 631 GPU-h (goodput 87 %), the elastic ones 9 (96 %).
// Bounds: all spot costs at most 30 % of all on-demand × (1 + the extra node-hours reclaims
// cause, under a third here), so below 40 %; half spot is (40 + 12)/80 = 65 % of it, give or
// take the node-hours, so between 50 and 80 %. Reclaims cost every job the work since its last
// checkpoint (up to 30 min), 5 min of restart delay and the wait for a replacement node, which
// queueing multiplies: mean JCT at least 10 % above the all-on-demand run at both spot shares.
// Between 50 and 100 % the JCT difference is within what the seed changes (seeds 8 to 11 give
// 100 % 3 to 10 % above 50 %; seed 7, shipped, 3 % below), so it is not checked.
TEST(Scenarios, SpotShareCutsTheBillAndCostsTime) {
  const auto run = [](const std::string& name) {
    return run_checked(load_scenario_file(scenario_path(name)), name);
  };
  const SimulationRun none = run("whatif/spot-share-0.yaml");
  const SimulationRun half = run("whatif/spot-share-50.yaml");
  const SimulationRun all = run("whatif/spot-share-100.yaml");
  const PoolTotals p0 = pool_totals(none), p50 = pool_totals(half), p100 = pool_totals(all);
  const RunSummary s0 = summarize(none), s50 = summarize(half), s100 = summarize(all);
  const ReliabilitySummary r0 = summarize_reliability(none.log),
                           r50 = summarize_reliability(half.log),
                           r100 = summarize_reliability(all.log);
  std::printf("  spot   node-h      cost   reclaims   mean JCT   lost GPU-h   goodput\n");
  const auto row = [](int share, const PoolTotals& p, const RunSummary& s,
                      const ReliabilitySummary& r) {
    std::printf("  %3d %%  %6.0f  %8.0f   %8d   %6.0f s   %10.1f   %6.3f\n", share, p.node_hours,
                p.cost, p.reclaims, s.jct_s.mean, r.lost_gpu_hours, r.goodput);
  };
  row(0, p0, s0, r0);
  row(50, p50, s50, r50);
  row(100, p100, s100, r100);
  for (const RunSummary* s : {&s0, &s50, &s100}) EXPECT_EQ(s->jobs_finished, 300);
  EXPECT_EQ(p0.reclaims, 0);
  EXPECT_GT(p50.reclaims, 0);
  EXPECT_GT(p100.reclaims, p50.reclaims);
  EXPECT_LT(p100.cost, 0.40 * p0.cost);
  EXPECT_GT(p50.cost, 0.50 * p0.cost);
  EXPECT_LT(p50.cost, 0.80 * p0.cost);
  EXPECT_GT(s50.jct_s.mean, 1.10 * s0.jct_s.mean);
  EXPECT_GT(s100.jct_s.mean, 1.10 * s0.jct_s.mean);
  EXPECT_EQ(r0.lost_gpu_hours, 0);
  EXPECT_GT(r50.lost_gpu_hours, 0);
  EXPECT_GT(r100.lost_gpu_hours, 1.5 * r50.lost_gpu_hours);
  // Elastic jobs shrink off a node at its notice: per spot GPU-hour of useful work they throw
  // away under a tenth of what rigid jobs do (9.1 / 5,544 against 631 / 5,627 when written).
  const KindLoss rigid = loss_of(all, false), elastic = loss_of(all, true);
  std::printf("  100 %% spot   lost GPU-h / spot GPU-h   goodput   mean JCT\n");
  std::printf("  rigid        %10.4f               %6.3f   %6.0f s\n",
              rigid.lost_gpu_hours / rigid.useful_spot_gpu_hours, rigid.goodput, rigid.mean_jct_s);
  std::printf("  elastic      %10.4f               %6.3f   %6.0f s\n",
              elastic.lost_gpu_hours / elastic.useful_spot_gpu_hours, elastic.goodput,
              elastic.mean_jct_s);
  ASSERT_GT(rigid.jobs, 100);
  ASSERT_GT(elastic.jobs, 100);
  EXPECT_LT(elastic.lost_gpu_hours / elastic.useful_spot_gpu_hours,
            0.1 * rigid.lost_gpu_hours / rigid.useful_spot_gpu_hours);
  EXPECT_GT(elastic.goodput, rigid.goodput + 0.05);
}

// whatif/autoscale-max-{8,16,32}.yaml: about 12 nodes of demand on one pool of at most 8, 16 or
// 32. When written: mean wait 28,992 s, 584 s, 186 s; node-hours 616, 663, 702 ($40 each);
// 18, 201 and 358 nodes added. Checked: the wait falls and node-hours and cost rise with the
// maximum; at 32 the pool's peak stays below its maximum (room to spare) and the wait left is
// provisioning: the same run with nodes up at once (provisioning 0s) waits under 30 s on
// average (5 s pod start-up plus up to 10 s to the autoscaler's next scan), the shipped one
// over 120 s (a job that needs a new node waits for one of median 5 min).
TEST(Scenarios, AutoscalerMaxTradesWaitForNodeHours) {
  std::vector<RunSummary> s;
  std::vector<PoolTotals> p;
  std::vector<int> peak;
  std::printf("  max   mean wait   p95 wait   node-h     cost   nodes added   peak\n");
  for (const int max : {8, 16, 32}) {
    const std::string name = "whatif/autoscale-max-" + std::to_string(max) + ".yaml";
    const SimulationRun run = run_checked(load_scenario_file(scenario_path(name)), name);
    s.push_back(summarize(run));
    p.push_back(pool_totals(run));
    ASSERT_EQ(run.log.pools.size(), 1u);
    peak.push_back(run.log.pools[0].peak_nodes);
    std::printf("  %3d   %7.0f s  %7.0f s   %6.0f   %6.0f   %11d   %4d\n", max,
                s.back().wait_s.mean, s.back().wait_s.p95, p.back().node_hours, p.back().cost,
                p.back().nodes_added, peak.back());
    EXPECT_EQ(s.back().jobs_finished, 300);
    EXPECT_LE(peak.back(), max);
  }
  EXPECT_LT(s[1].wait_s.mean, s[0].wait_s.mean / 10);
  EXPECT_LT(s[2].wait_s.mean, s[1].wait_s.mean);
  EXPECT_GT(p[1].node_hours, p[0].node_hours);
  EXPECT_GT(p[2].node_hours, p[1].node_hours);
  EXPECT_GT(p[2].cost, p[0].cost);
  EXPECT_EQ(peak[0], 8);
  EXPECT_LT(peak[2], 32);
  ScenarioSpec instant = load_scenario_file(scenario_path("whatif/autoscale-max-32.yaml"));
  ASSERT_EQ(instant.autoscaling.pools.size(), 1u);
  instant.autoscaling.pools[0].provisioning = DelayDistribution::constant(Duration{});
  const RunSummary at_once =
      summarize(run_checked(instant, "whatif/autoscale-max-32.yaml with provisioning 0s"));
  std::printf("   32, nodes up at once: mean wait %.0f s\n", at_once.wait_s.mean);
  EXPECT_LT(at_once.wait_s.mean, 30);
  EXPECT_GT(s[2].wait_s.mean, 120);
}

// whatif/elastic-{on,off}.yaml: the same 300 jobs of 16 GPUs at 62 % load, elastic (1 to 4
// Workers, scale-out-idle) or rigid. Now: mean JCT 3,187 s against 5,003 s; busy GPUs 62.1 %
// against 61.9 %; allocated 63.6 % against 62.0 %; goodput 95.7 % against 97.2 %; 268 resizes.
// (When first written the elastic side was 3,630 s, 61.8 %, 63.2 %, 96.1 %: a job grew only at
// the next cycle some other event caused, often well after it started; since issue 22 its
// start gives the policy a cycle, so it grows while the idle GPUs are there.)
// Checked: the elastic jobs' mean JCT is under 85 % of the rigid ones' (a job grown from 2 to
// 4 Workers computes its steps in half the time); the busy share is the same within a point
// (the same steps over about the same span, since every job finishes); the allocated share is
// no lower, and goodput is lower (resizes restart pods and write checkpoints). The issue
// expected higher utilisation too; with all the work done it cannot be much higher.
TEST(Scenarios, ElasticJobsFinishSoonerOnTheSameTrace) {
  const SimulationRun on_run =
      run_checked(load_scenario_file(scenario_path("whatif/elastic-on.yaml")), "elastic-on");
  const SimulationRun off_run =
      run_checked(load_scenario_file(scenario_path("whatif/elastic-off.yaml")), "elastic-off");
  const RunSummary on = summarize(on_run), off = summarize(off_run);
  const ReliabilitySummary r_on = summarize_reliability(on_run.log),
                           r_off = summarize_reliability(off_run.log);
  int resizes = 0;
  for (const JobLog& j : on_run.log.jobs) resizes += j.resizes;
  std::printf("           mean JCT   mean wait   allocated   busy     goodput   resizes\n");
  std::printf("  elastic  %6.0f s   %6.0f s    %6.3f    %6.3f   %6.3f   %d\n", on.jct_s.mean,
              on.wait_s.mean, on.gpu_allocation_ratio, on.gpu_busy_ratio, r_on.goodput, resizes);
  std::printf("  rigid    %6.0f s   %6.0f s    %6.3f    %6.3f   %6.3f   0\n", off.jct_s.mean,
              off.wait_s.mean, off.gpu_allocation_ratio, off.gpu_busy_ratio, r_off.goodput);
  EXPECT_EQ(on.jobs_finished, 300);
  EXPECT_EQ(off.jobs_finished, 300);
  EXPECT_GT(resizes, 0);
  EXPECT_LT(on.jct_s.mean, 0.85 * off.jct_s.mean);
  EXPECT_NEAR(on.gpu_busy_ratio, off.gpu_busy_ratio, 0.01);
  EXPECT_GE(on.gpu_allocation_ratio, off.gpu_allocation_ratio);
  EXPECT_LT(r_on.goodput, r_off.goodput);
}

TEST(Scenarios, Scale100kFinishesAtAboutEightyPercentAllocation) {
  const RunSummary s = run_file("scale-100k.yaml");
  EXPECT_EQ(s.jobs_total, 100'000);
  EXPECT_EQ(s.jobs_finished, 100'000);
  EXPECT_EQ(s.total_gpus, 8192);
  EXPECT_GT(s.gpu_allocation_ratio, 0.75);
  EXPECT_LT(s.gpu_allocation_ratio, 0.85);
}

// scale-1m.yaml in full takes minutes (bench/scale_1m.sh); here its first 20,000 arrivals
// (about 4.9 h of them, one every 875 ms) on its whole cluster. It must be scale-100k's mix on
// 8x the GPUs, and fail: per GPU every 3,597 d, per node every 639 d, so over the roughly 8 h
// the prefix runs, about 65,536 x 8 / 24 / 3,597 = 6 GPU and 8,192 x 8 / 24 / 639 = 4 node
// failures (a check that the failure processes cover these A100 nodes at all).
TEST(Scenarios, Scale1mIsScale100kEightTimesOverWithFailures) {
  ScenarioSpec spec = load_scenario_file(scenario_path("scale-1m.yaml"));
  const ScenarioSpec small = load_scenario_file(scenario_path("scale-100k.yaml"));
  ASSERT_EQ(spec.workload.generators.size(), 1u);
  EXPECT_EQ(spec.workload.generators[0].count, 1'000'000);
  EXPECT_EQ(spec.workload.generators[0].mix.size(), small.workload.generators[0].mix.size());
  spec.workload.generators[0].count = 20'000;
  const auto run = run_checked(spec, "scale-1m.yaml, first 20,000 jobs");
  const RunSummary s = summarize(run);
  EXPECT_EQ(s.jobs_total, 20'000);
  EXPECT_EQ(s.jobs_finished, 20'000);
  EXPECT_EQ(s.total_gpus, 8 * 8192);
  EXPECT_GT(summarize_reliability(run.log).fault_events, 0);
}

TEST(Scenarios, Pai2020ClusterRunsEveryJobAtTheSpeedOfItsGpu) {
  const ScenarioSpec scenario =
      load_scenario_file(scenario_path("pai-2020-cluster.yaml"), trace_loaders());
  EXPECT_EQ(scenario.topology.nodes.size(), 1897u);
  EXPECT_EQ(scenario.topology.total_gpus(), 6742);
  const SimulationRun run = run_checked(scenario, "pai-2020-cluster.yaml");
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
// openb-sweep-*.yaml, openb-artifact.yaml) are checked against the FGD paper's published results in
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
  // llama3-failures-30d.yaml is checked in failure_scenario_test.cpp (slow),
  // plans/two-generations.yaml through the plan of shipped_sweeps_test.cpp, the seven of
  // scenarios/serving/ in serving_scenarios_test.cpp.
  EXPECT_EQ(scenarios, 28) << "add a test above for the new scenario's promised result";
  EXPECT_EQ(experiments, 6) << "add a test in published_results_test.cpp for the new experiment";
}

}  // namespace
}  // namespace gantry
