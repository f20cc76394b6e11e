#include "sim/summary.hpp"

#include <gtest/gtest.h>

#include "sim/simulation.hpp"
#include "tests/sim/sim_fixtures.hpp"

namespace gantry {
namespace summary_test {

using namespace gantry::testing;

ScenarioSpec poisson_scenario(uint64_t seed) {
  return two_size_poisson(seed, 300, minutes(2), 5000);
}

TEST(Determinism, SameSeedGivesIdenticalTrajectory) {
  const RunSummary a = summarize(run_simulation(poisson_scenario(5)));
  const RunSummary b = summarize(run_simulation(poisson_scenario(5)));
  EXPECT_EQ(a.fingerprint, b.fingerprint);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.jct_s.mean, b.jct_s.mean);
  EXPECT_EQ(a.jobs_finished, 300);
}

TEST(Determinism, DifferentSeedGivesDifferentTrajectory) {
  EXPECT_NE(summarize(run_simulation(poisson_scenario(5))).fingerprint,
            summarize(run_simulation(poisson_scenario(6))).fingerprint);
}

// The fingerprint hashes (time, kind, job, detail) of every event in order, so swapping two
// events changes it.
TEST(Fingerprint, DependsOnEventOrder) {
  SimulationLog forward, backward;
  forward.record_event({kT0, EventKind::kSubmit, 1, 0});
  forward.record_event({kT0, EventKind::kSubmit, 2, 0});
  backward.record_event({kT0, EventKind::kSubmit, 2, 0});
  backward.record_event({kT0, EventKind::kSubmit, 1, 0});
  EXPECT_NE(trajectory_fingerprint(forward), trajectory_fingerprint(backward));
  EXPECT_EQ(trajectory_fingerprint(SimulationLog{}), 0xcbf29ce484222325ull) << "FNV offset basis";
}

// Same events, another placement: the fingerprint differs (node, then GPUs).
TEST(Fingerprint, DependsOnPlacements) {
  SimulationLog log;
  log.record_event({kT0, EventKind::kBind, 0, 1});
  log.jobs.push_back(JobLog{});
  log.jobs[0].pods = {PodPlacement{0, 0b0011}};
  const uint64_t on_node_0 = trajectory_fingerprint(log);
  log.jobs[0].pods[0].node = 1;
  const uint64_t on_node_1 = trajectory_fingerprint(log);
  log.jobs[0].pods[0].gpu_mask = 0b1100;
  EXPECT_NE(on_node_0, on_node_1);
  EXPECT_NE(on_node_1, trajectory_fingerprint(log));
}

}  // namespace summary_test
}  // namespace gantry
