#include "sim/world_builder.hpp"

#include <gtest/gtest.h>

#include "sim/simulation.hpp"
#include "tests/sim/sim_fixtures.hpp"

namespace gantry {
namespace {

using testing::kT0;

// Two DGX nodes; one 16-GPU PyTorch job at 10 s and four 1-GPU jobs from a generator.
ScenarioSpec scenario() {
  ScenarioSpec s = testing::scenario_with(
      testing::dgx_rack(2),
      {testing::training_job("big", Framework::kPyTorch, {testing::role(RoleKind::kWorker, 2, 8)},
                             seconds(10), 100, milliseconds(200), 0)});
  PoissonGeneratorSpec g;
  g.name = "gen";
  g.count = 4;
  g.mean_interarrival = minutes(1);
  g.mix.push_back(JobClass{});
  s.workload.generators.push_back(g);
  s.seed = 3;
  return s;
}

TEST(WorldBuilder, BuildsTheScenariosClusterJobsAndScheduler) {
  const auto loop = EventLoop::virtual_time(kT0);
  const std::unique_ptr<SimulatedWorld> w = build_world(scenario(), *loop);
  EXPECT_EQ(w->jobs.size(), 5u) << "one explicit job and four generated";
  EXPECT_EQ(w->cluster->topology().nodes.size(), 2u);
  EXPECT_EQ(w->scheduler->config().placement, "binpack");
  w->world->start();
  loop->run();
  EXPECT_EQ(w->world->finished(), 5u);
}

// run_simulation is the builder plus a loop: the same scenario gives the same placements and
// the same times as a world built and run by hand.
TEST(WorldBuilder, RunSimulationRunsTheBuiltWorld) {
  const SimulationRun run = run_simulation(scenario());
  const auto loop = EventLoop::virtual_time(kT0);
  const std::unique_ptr<SimulatedWorld> w = build_world(scenario(), *loop);
  w->world->start();
  loop->run();
  const SimulationLog& log = w->world->log();
  ASSERT_EQ(log.jobs.size(), run.log.jobs.size());
  for (size_t i = 0; i < log.jobs.size(); ++i) {
    EXPECT_EQ(log.jobs[i].spec->name, run.log.jobs[i].spec->name);
    EXPECT_EQ(log.jobs[i].running, run.log.jobs[i].running) << i;
    EXPECT_EQ(log.jobs[i].finished, run.log.jobs[i].finished) << i;
    ASSERT_EQ(log.jobs[i].pods.size(), run.log.jobs[i].pods.size()) << i;
    for (size_t p = 0; p < log.jobs[i].pods.size(); ++p) {
      EXPECT_EQ(log.jobs[i].pods[p].node, run.log.jobs[i].pods[p].node) << i;
      EXPECT_EQ(log.jobs[i].pods[p].gpu_mask, run.log.jobs[i].pods[p].gpu_mask) << i;
    }
  }
}

TEST(WorldBuilder, StartingAtMovesTheExplicitJobsWithTheStart) {
  const ScenarioSpec moved = starting_at(scenario(), kT0 + hours(1));
  EXPECT_EQ(moved.start, kT0 + hours(1));
  EXPECT_EQ(moved.workload.jobs.at(0).submit, kT0 + hours(1) + seconds(10));
  // Generators count from the start already.
  EXPECT_EQ(moved.workload.generators.at(0).start, Duration(0));
}

}  // namespace
}  // namespace gantry
