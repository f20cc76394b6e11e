// What-if simulations through the service: a bad scenario is refused at submit (never a failed
// job), a good one runs on the worker and ends with the same JSON figures as `gantry simulate`,
// and its progress reaches the event bus. No sleeps: the test waits on the bus.

#include "web/server/simulation_service.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "adapters/traces/trace_ref_loader.hpp"
#include "engine/core/errors.hpp"
#include "sim/experiment_json.hpp"
#include "sim/experiment_loader.hpp"
#include "sim/experiment_runner.hpp"

namespace gantry::web {
namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Waits on the bus until simulation `id` reports a final state; returns it.
std::string wait_final(EventBus& bus, const std::string& id) {
  uint64_t after = 0;
  while (true) {
    const EventBus::Batch b = bus.wait_after(after, std::chrono::minutes(5));
    if (b.closed || b.events.empty()) return "timeout";
    for (const BusEvent& e : b.events) {
      after = e.id;
      const auto j = nlohmann::json::parse(e.data);
      if (j["id"] != id) continue;
      const std::string state = j["state"];
      if (state == "done" || state == "failed" || state == "cancelled") return state;
    }
  }
}

TEST(SimulationService, RunsTheQuickstartWithTheCliFigures) {
  EventBus bus;
  SimulationService service(bus);
  const std::string file = std::string(GANTRY_SOURCE_DIR) + "/scenarios/quickstart.yaml";
  const std::string id = service.submit({.scenario_yaml = read(file), .file = file});
  EXPECT_EQ(id, "sim-1");
  ASSERT_EQ(wait_final(bus, id), "done");
  const auto j = *service.describe(id, true);
  EXPECT_EQ(j["state"], "done");
  EXPECT_EQ(j["progress"], 1.0);
  // The quickstart's figures, as tests/tools checks them for `gantry simulate`: 600 jobs, 256
  // GPUs, the same fingerprint.
  EXPECT_EQ(j["result"]["jobs"]["finished"], 600);
  EXPECT_EQ(j["result"]["cluster"]["gpus"], 256);
  EXPECT_EQ(j["result"]["fingerprint"], "a89fcb27c10999ff");
  const auto series = *service.series(id);
  EXPECT_EQ(series["jctCdf"].back()[1], 1.0);
  EXPECT_LE(series["gpuAllocation"].size(), 2001u);
  EXPECT_EQ(service.list().size(), 1u);
  EXPECT_TRUE(service.remove(id));
  EXPECT_EQ(service.describe(id, false), std::nullopt);
}

// A scenario with services: the result has the "services" section of `gantry simulate
// --format json` (the canary what-if: v2 serves about 10 % of the requests), and the series a
// plot per service, one point per report interval (6 h at 5 min: 72).
TEST(SimulationService, ServicesHaveTheirSectionAndSeries) {
  EventBus bus;
  SimulationService service(bus);
  const std::string file = std::string(GANTRY_SOURCE_DIR) + "/scenarios/serving/canary-10.yaml";
  const std::string id = service.submit({.scenario_yaml = read(file), .file = file});
  ASSERT_EQ(wait_final(bus, id), "done");
  const auto j = *service.describe(id, true);
  const nlohmann::json& services = j["result"]["services"];
  ASSERT_EQ(services.size(), 1u);
  EXPECT_EQ(services[0]["name"], "chat");
  const double requests = services[0]["requests"];
  const double v2 = services[0]["predictors"][1]["requests"];
  EXPECT_NEAR(v2 / requests, 0.10, 0.005);
  const auto series = *service.series(id);
  ASSERT_EQ(series["services"].size(), 1u);
  const nlohmann::json& chat = series["services"][0];
  EXPECT_EQ(chat["name"], "chat");
  ASSERT_EQ(chat["ready"].size(), 72u);
  EXPECT_EQ(chat["ready"][0][0], "2026-01-01T00:00:00Z");
  EXPECT_EQ(chat["qps"].size(), 72u);
  EXPECT_EQ(chat["p99"].size(), 72u);
  EXPECT_EQ(chat["starting"].size(), 72u);
  // Twenty requests a second all along.
  EXPECT_NEAR(chat["qps"][40][1].get<double>(), 20.0, 2.0);
}

TEST(SimulationService, ABadScenarioIsRefusedAtSubmit) {
  EventBus bus;
  SimulationService service(bus);
  EXPECT_THROW(
      service.submit({.scenario_yaml = "kind: Scenario\nspec: {seed: lots}\n", .file = "body"}),
      InputError);
  const std::string file = std::string(GANTRY_SOURCE_DIR) + "/scenarios/quickstart.yaml";
  EXPECT_THROW(service.submit({.scenario_yaml = read(file), .file = file, .policy = "tetris"}),
               std::invalid_argument);
  EXPECT_EQ(service.list().size(), 0u) << "nothing queued";
}

TEST(SimulationService, SeedPolicyAndOverridesChangeTheRun) {
  EventBus bus;
  SimulationService service(bus);
  const std::string file = std::string(GANTRY_SOURCE_DIR) + "/scenarios/quickstart.yaml";
  const std::string id = service.submit({.scenario_yaml = read(file),
                                         .file = file,
                                         .seed = 7,
                                         .policy = "spread",
                                         .overrides = {.nodes = 16}});
  ASSERT_EQ(wait_final(bus, id), "done");
  const auto j = *service.describe(id, true);
  EXPECT_EQ(j["seed"], 7);
  EXPECT_EQ(j["policy"], "spread");
  EXPECT_EQ(j["result"]["cluster"]["gpus"], 128) << "16 nodes of 8 GPUs";
}

// An Experiment runs too: its result is the document `gantry simulate EXPERIMENT --format json`
// prints (experiment_json of run_experiment, computed here directly), and its series carry the
// unallocated-GPU curve per policy. Overrides do not apply to an experiment.
TEST(SimulationService, RunsAFragmentationExperiment) {
  EventBus bus;
  SimulationService service(bus);
  const std::string file = std::string(GANTRY_SOURCE_DIR) + "/scenarios/openb-fragmentation.yaml";
  EXPECT_THROW(
      service.submit({.scenario_yaml = read(file), .file = file, .overrides = {.nodes = 10}}),
      std::invalid_argument);
  EXPECT_THROW(service.submit({.scenario_yaml = read(file), .file = file, .policy = "Tetris"}),
               std::invalid_argument);
  const std::string id =
      service.submit({.scenario_yaml = read(file), .file = file, .seed = 3, .policy = "FGD"});
  ASSERT_EQ(wait_final(bus, id), "done");
  const auto j = *service.describe(id, true);
  EXPECT_EQ(j["kind"], "Experiment");
  ExperimentRunOptions options;
  options.policies = {"FGD"};
  options.seed = 3;
  const auto expected = experiment_json(
      run_experiment(load_experiment_file(file), {load_trace_topology, load_trace_pods}, options));
  EXPECT_EQ(j["result"].dump(), nlohmann::json(expected).dump());
  const auto series = *service.series(id);
  ASSERT_TRUE(series["unallocatedGpuPct"].contains("FGD"));
  EXPECT_EQ(series["unallocatedGpuPct"]["FGD"].size(), 131u) << "0 to 130 % of capacity";
  EXPECT_EQ(series["unallocatedGpuPct"]["FGD"][100][1],
            j["result"]["policies"][0]["unallocated_gpu_pct_mean"][100]);
}

}  // namespace
}  // namespace gantry::web
