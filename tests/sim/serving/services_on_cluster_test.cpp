// Services in a scenario: replicas are jobs of the training world, placed by its scheduler on
// the scenario's cluster, so they compete with training jobs for GPUs, and GPU shares pack two
// replicas on one GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "adapters/traces/trace_ref_loader.hpp"
#include "sim/fault_event.hpp"
#include "sim/scenario_loader.hpp"
#include "sim/simulation.hpp"
#include "sim/summary.hpp"

namespace gantry {
namespace {

// A trace of requests of 1,000 prompt and 100 output tokens (0.2 s on the replicas below: 0.1 ms
// a prompt token and 1 ms an output token per batch slot) arriving at `arrivals` ("50.0"), in a
// folder of its own that goes with the object.
struct TraceFile {
  TraceFile(const std::string& name, std::initializer_list<const char*> arrivals)
      : dir(std::filesystem::temp_directory_path() / name), path((dir / "trace.csv").string()) {
    std::filesystem::create_directories(dir);
    std::ofstream out(path);
    out << "arrived_at,num_prefill_tokens,num_decode_tokens\n";
    for (const char* a : arrivals) out << a << ",1000,100\n";
  }
  ~TraceFile() { std::filesystem::remove_all(dir); }
  std::filesystem::path dir;
  std::string path;
};

// A scenario of `horizon` on `nodes` nodes of `gpus` A10s, with `jobs` (YAML list items under
// spec.workload.jobs, or "") and one service "chat" of predictor v1 on `gpu` A10s ("1" or
// "\"0.5\""), capacity of 2 batch slots, a 10 s image pull, `more` (its other keys) and the
// trace's load.
std::string a10_scenario(const std::string& horizon, int gpus, int nodes, const std::string& jobs,
                         const std::string& gpu, const std::string& more, const TraceFile& trace) {
  const std::string key = gpu == "1" ? "A10" : "\"A10@0.5\"";
  return "apiVersion: gantry.dev/v1\nkind: Scenario\nmetadata: {name: t}\nspec:\n  horizon: " +
         horizon +
         "\n  cluster:\n    fabric: {kind: InfiniBand}\n    storage: {bandwidth: 10GB/s}\n"
         "    nodeClasses:\n    - {name: a10, cpu: 32, memory: 256Gi, gpu: {type: A10, count: " +
         std::to_string(gpus) +
         "}, nic: 100Gbps}\n    racks:\n    - {name: r1, class: a10, nodes: " +
         std::to_string(nodes) + "}\n  workload:\n" + (jobs.empty() ? "" : "    jobs:\n" + jobs) +
         "    services:\n    - name: chat\n      predictors: [{name: v1, model: m, resources: "
         "{gpu: " +
         gpu + ", gpuType: A10}}]\n      capacity: {" + key +
         ": {tokensPerSecond: 2000, maxBatch: 2, prefillTokensPerSecond: 20000}}\n"
         "      coldStart: {imagePull: 10s}\n" +
         more + "      load: {trace: {format: azure-llm-2023, file: " + trace.path +
         ", loop: false}}\n";
}

// One node with one A10. A 1-GPU training job arrives at 0 s; the service starts at 1 s with a
// fixed 3 replicas of half a GPU and requests at 2 s and 400 s.
TEST(ServicesOnCluster, ReplicasWaitForTrainingAndShareTheGpu) {
  const TraceFile trace("gantry-services-on-cluster", {"1.0", "399.0"});
  const std::string jobs =
      "    - name: train\n      submit: 0s\n"
      "      roles: [{kind: Worker, replicas: 1, resources: {cpu: \"4\", memory: 16Gi, gpu: 1}}]\n"
      "      framework: PyTorch\n      work: {steps: 100, stepCompute: 1s, gradientSize: 0}\n";
  const SimulationRun run = run_simulation(load_scenario_text(
      a10_scenario("1h", 1, 1, jobs, "\"0.5\"",
                   "      start: 1s\n      autoscaler: {kind: none, replicas: 3}\n", trace),
      "share.yaml", trace_loaders()));
  ASSERT_EQ(run.services.size(), 1u);
  const ServiceReport& s = run.services.front();

  // The training job holds the only GPU until it ends; then two half-GPU replicas fit on it and
  // the third never does. Each is placed when its pod runs (bind at the job's end + podStartup
  // 5 s) and ready 10 s later.
  const JobLog& train = run.log.jobs.front();
  ASSERT_TRUE(train.finished.has_value());
  const double placed = (*train.finished - run.start).seconds() + 5;
  EXPECT_EQ(s.cold_starts, 2);
  EXPECT_EQ(s.max_replicas, 3);  // three asked for (one never placed)
  // The request of 2 s waits for the first replica: ready at placed + 10, done 0.2 s later.
  // The one of 400 s finds it ready (the job ends after 100 steps of at least a second).
  EXPECT_EQ(s.requests, 2);
  EXPECT_NEAR(s.p99_s, placed + 10 + 0.2 - 2, (placed + 10) / 64);
  EXPECT_NEAR(s.p50_s, 0.2, 0.2 / 64);
  // Two replicas of half a GPU from placement to the end of the hour.
  EXPECT_NEAR(s.gpu_hours, 2 * 0.5 * (3600 - placed) / 3600, 1e-9);
  // Training reports leave the replicas' jobs out: one job, finished.
  const RunSummary summary = summarize(run);
  EXPECT_EQ(summary.jobs_total, 1);
  EXPECT_EQ(summary.jobs_finished, 1);
}

// A replica whose node fails takes no more requests from that instant: two nodes of one A10, a
// fixed replica ready at 15 s (pod start-up 5 s + image pull 10 s). At 100 s its node goes
// down: the replica is lost, placed again on the other node at once (no restart delay), runs
// at 105 s and is ready at 115 s after a new pull. Requests of 0.2 s at 50 s, 99.9 s, 102 s and
// 200 s: the one at 99.9 s was running on the lost replica and fails; the one at 102 s is held
// until 115 s (13.2 s), not sent to the dead replica.
TEST(ServicesOnCluster, AReplicaOnAFailedNodeTakesNoMoreRequestsAndStartsElsewhere) {
  const TraceFile trace("gantry-services-node-failure", {"50.0", "99.9", "102.0", "200.0"});
  const std::string text = a10_scenario(
      "1h", 1, 2, "", "1",
      "      autoscaler: {kind: KPA, minReplicas: 1, maxReplicas: 1, target: {concurrency: 1}}\n",
      trace);
  ScenarioSpec scenario = load_scenario_text(text, "node-failure.yaml", trace_loaders());
  // Where the replica lands without a failure (the placement policy's choice): that node fails.
  NodeId node = -1;
  for (const JobLog& j : run_simulation(scenario).log.jobs)
    if (j.spec->serving_replica && !j.pods.empty()) node = j.pods.front().node;
  ASSERT_GE(node, 0);
  FaultEvent down;
  down.at = scenario.start + seconds(100);
  down.action = FaultAction::kNodeDown;
  down.node = node;
  down.cause = "injected";
  scenario.injected_faults.push_back(down);

  std::ostringstream actions;
  const SimulationRun run = run_simulation(scenario, {}, &actions);
  ASSERT_EQ(run.services.size(), 1u);
  const ServiceReport& s = run.services.front();
  EXPECT_EQ(s.requests, 3);
  EXPECT_EQ(s.failed, 1);
  EXPECT_DOUBLE_EQ(s.slo_attainment, 0.75);  // no SLO: 3 of 4 requests succeeded
  EXPECT_EQ(s.replicas_lost, 1);
  EXPECT_EQ(s.cold_starts, 2);
  EXPECT_DOUBLE_EQ(s.cold_start_s.min(), 10.0);
  EXPECT_DOUBLE_EQ(s.cold_start_s.max(), 10.0);
  EXPECT_NEAR(s.p99_s, 13.2, 13.2 / 64);
  EXPECT_NEAR(s.p50_s, 0.2, 0.2 / 64);
  // One GPU from placement (5 s) to the failure (100 s), then from 105 s to the end.
  EXPECT_NEAR(s.gpu_hours, (95.0 + 3495.0) / 3600, 1e-9);
  // The second placement is on the other node.
  for (const JobLog& j : run.log.jobs) {
    if (!j.spec->serving_replica) continue;
    ASSERT_FALSE(j.pods.empty());
    EXPECT_NE(j.pods.front().node, node);
    EXPECT_EQ(j.evictions, 1);
  }
  // The metrics the autoscaler read end with the failure: at the tick of 102 s the request of
  // 50 s left 0.2 request-seconds and the failed one 0.1 (99.9 to 100, not to 100.1); the GPU
  // was busy as long; its two batch slots half that.
  std::istringstream in(actions.str());
  bool seen = false;
  for (std::string l; std::getline(in, l);) {
    const nlohmann::json j = nlohmann::json::parse(l);
    if (j["kind"] != "scale" || j["t"] != "2026-01-01T00:01:42Z") continue;
    seen = true;
    EXPECT_NEAR(j["observed"]["concurrencySeconds"].get<double>(), 0.3, 1e-9);
    EXPECT_NEAR(j["observed"]["gpuBusySeconds"].get<double>(), 0.3, 1e-9);
    EXPECT_NEAR(j["observed"]["slotsBusySeconds"].get<double>(), 0.15, 1e-9);
    EXPECT_DOUBLE_EQ(j["observed"]["requests"].get<double>(), 2.0);
    EXPECT_EQ(j["ready"], 0);
    EXPECT_EQ(j["starting"], 1);  // being placed again
  }
  EXPECT_TRUE(seen);
}

// The action log's "scale" lines: every tick of the autoscaler with the replicas it was given,
// its answer, and the predictor's metrics as counters (what the live world scrapes). A KPA at
// target concurrency 1 on a node of two A10s; requests at 1.0 s and 1.5 s held by the activator
// until the first replica is ready (pod start-up 5 s + image pull 10 s = 15 s), both then run
// at once in its two slots and leave at 15.2 s.
TEST(ServicesOnCluster, EveryAutoscalerTickIsAScaleLineWithTheCountersItRead) {
  const TraceFile trace("gantry-services-scale-lines", {"1.0", "1.5"});
  const std::string text = a10_scenario(
      "20s", 2, 1, "", "1",
      "      autoscaler: {kind: KPA, minReplicas: 1, maxReplicas: 2, target: {concurrency: 1}}\n",
      trace);
  std::ostringstream actions;
  // A scenario of services alone: its wake-ups move the progress bar, not only its end.
  std::vector<double> progress;
  run_simulation(
      load_scenario_text(text, "scale-lines.yaml", trace_loaders()),
      [&](double f) { progress.push_back(f); }, &actions);
  ASSERT_GE(progress.size(), 11u);  // at least each tick's tenth of the 20 s, then the end
  EXPECT_TRUE(std::is_sorted(progress.begin(), progress.end()));
  EXPECT_DOUBLE_EQ(progress[0], 0.1);  // the first wake-up after 0 s: the tick at 2 s
  EXPECT_DOUBLE_EQ(progress.back(), 1.0);
  std::vector<nlohmann::json> scale;
  std::istringstream in(actions.str());
  for (std::string l; std::getline(in, l);) {
    nlohmann::json j = nlohmann::json::parse(l);
    if (j["kind"] == "scale") scale.push_back(std::move(j));
  }
  // A tick every 2 s from 2 s to 20 s.
  ASSERT_EQ(scale.size(), 10u);
  const nlohmann::json& first = scale[0];
  EXPECT_EQ(first["service"], "chat");
  EXPECT_EQ(first["predictor"], "v1");
  // At 2 s: the first replica in its start-up; [0, 2) saw both arrivals and 1 + 0.5
  // request-seconds: an average of 0.75, one replica.
  EXPECT_EQ(first["ready"], 0);
  EXPECT_EQ(first["starting"], 1);
  EXPECT_EQ(first["from"], 1);
  EXPECT_EQ(first["to"], 1);
  EXPECT_DOUBLE_EQ(first["observed"]["requests"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(first["observed"]["concurrencySeconds"].get<double>(), 1.5);
  // At 4 s: 3 + 2.5 = 5.5 request-seconds over 4 s, 1.375: ceil gives 2, at least twice the
  // one replica (none ready counts as one), so the panic window's answer: 2.
  EXPECT_DOUBLE_EQ(scale[1]["observed"]["concurrencySeconds"].get<double>(), 5.5);
  EXPECT_EQ(scale[1]["from"], 1);
  EXPECT_EQ(scale[1]["to"], 2);
  // At 16 s both have left: 14.2 + 13.7 request-seconds; the GPU busy and both slots busy for
  // the same 0.2 s (two requests over two slots: 2 × 0.2 / 2).
  const nlohmann::json& at16 = scale[7];
  EXPECT_EQ(at16["t"], "2026-01-01T00:00:16Z");
  EXPECT_NEAR(at16["observed"]["concurrencySeconds"].get<double>(), 27.9, 1e-9);
  EXPECT_NEAR(at16["observed"]["gpuBusySeconds"].get<double>(), 0.2, 1e-9);
  EXPECT_NEAR(at16["observed"]["slotsBusySeconds"].get<double>(), 0.2, 1e-9);
  EXPECT_DOUBLE_EQ(at16["observed"]["requests"].get<double>(), 2.0);
}

}  // namespace
}  // namespace gantry
