// `gantry serve --world sim` with a scenario that has inference services: the services run in
// the served world beside its jobs (web/server/sim_serve_world.cpp), their replicas placed by
// its scheduler, so the cluster the server shows holds them. Before, the server ignored them.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "engine/core/event_loop.hpp"
#include "web/server/serve_world.hpp"

namespace gantry::web {
namespace {

TEST(SimServeWorld, RunsTheScenariosServices) {
  const auto dir = std::filesystem::temp_directory_path() / "gantry-sim-serve-world";
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "chat.yaml").string();
  // Two replicas of a whole A10 (no autoscaler) on one node of four, a 10 s image pull.
  std::ofstream(file) << R"(apiVersion: gantry.dev/v1
kind: Scenario
metadata: {name: chat}
spec:
  horizon: 1h
  cluster:
    fabric: {kind: InfiniBand}
    storage: {bandwidth: 10GB/s}
    nodeClasses:
    - {name: a10, cpu: 32, memory: 256Gi, gpu: {type: A10, count: 4}, nic: 100Gbps}
    racks:
    - {name: r1, class: a10, nodes: 1}
  workload:
    services:
    - name: chat
      predictors: [{name: v1, model: m, resources: {gpu: 1, gpuType: A10}}]
      capacity: {A10: {tokensPerSecond: 2400, maxBatch: 16}}
      coldStart: {imagePull: 10s}
      autoscaler: {kind: none, replicas: 2}
      load: {poisson: {qps: 5}}
)";
  const Time start = Time::from_micros(1'767'225'600'000'000);  // 2026-01-01T00:00:00Z
  const auto loop = EventLoop::virtual_time(start);
  const std::unique_ptr<ServeWorld> world = make_sim_world(*loop, file, 1);
  EXPECT_EQ(world->describe(), "sim: " + file + ", 1 service");
  world->start();
  loop->run_until(start + seconds(60));
  // The two replicas hold two of the four GPUs.
  EXPECT_EQ(world->cluster().total_gpus(), 4);
  EXPECT_EQ(world->cluster().free_gpus(), 2);
  world->stop();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gantry::web
