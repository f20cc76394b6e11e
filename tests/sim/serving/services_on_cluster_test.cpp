// Services in a scenario: replicas are jobs of the training world, placed by its scheduler on
// the scenario's cluster, so they compete with training jobs for GPUs, and GPU shares pack two
// replicas on one GPU.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sim/scenario_loader.hpp"
#include "sim/simulation.hpp"
#include "sim/summary.hpp"

namespace gantry {
namespace {

// One node with one A10. A 1-GPU training job arrives at 0 s; the service starts at 1 s with a
// fixed 3 replicas of half a GPU, a 10 s image pull and requests at 2 s and 400 s of 1,000
// prompt and 100 output tokens (0.2 s on a replica: 0.1 ms a prompt token and 1 ms an output
// token per batch slot).
std::string scenario(const std::string& trace) {
  return R"(apiVersion: gantry.dev/v1
kind: Scenario
metadata: {name: share}
spec:
  horizon: 1h
  cluster:
    fabric: {kind: InfiniBand}
    storage: {bandwidth: 10GB/s}
    nodeClasses:
    - {name: a10, cpu: 32, memory: 256Gi, gpu: {type: A10, count: 1}, nic: 100Gbps}
    racks:
    - {name: r1, class: a10, nodes: 1}
  workload:
    jobs:
    - name: train
      submit: 0s
      roles: [{kind: Worker, replicas: 1, resources: {cpu: "4", memory: 16Gi, gpu: 1}}]
      framework: PyTorch
      work: {steps: 100, stepCompute: 1s, gradientSize: 0}
    services:
    - name: chat
      start: 1s
      predictors: [{name: v1, model: m, resources: {gpu: "0.5", gpuType: A10}}]
      capacity: {"A10@0.5": {tokensPerSecond: 2000, maxBatch: 2, prefillTokensPerSecond: 20000}}
      coldStart: {imagePull: 10s}
      autoscaler: {kind: none, replicas: 3}
      load: {trace: {format: azure-llm-2023, file: )" +
         trace + R"(, loop: false}}
)";
}

TEST(ServicesOnCluster, ReplicasWaitForTrainingAndShareTheGpu) {
  const auto dir = std::filesystem::temp_directory_path() / "gantry-services-on-cluster";
  std::filesystem::create_directories(dir);
  const std::string trace = (dir / "trace.csv").string();
  std::ofstream(trace) << "arrived_at,num_prefill_tokens,num_decode_tokens\n"
                          "1.0,1000,100\n"
                          "399.0,1000,100\n";
  const SimulationRun run = run_simulation(load_scenario_text(scenario(trace), "share.yaml"));
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
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gantry
