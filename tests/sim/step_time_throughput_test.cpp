// The step-time model as a ThroughputModel (sim/step_time_throughput.hpp): the compact placement
// it imagines and the steps per second it gives, worked by hand from sim/step_time.hpp.

#include "sim/step_time_throughput.hpp"

#include <gtest/gtest.h>

namespace gantry {
namespace {

constexpr double kGB = 1e9;

NodeClass eight_gpus(std::string name, GpuTypeId type) {
  NodeClass c;
  c.name = std::move(name);
  c.capacity = {64'000, 1024ll << 30, 8};
  c.gpu_type = type;
  c.island_size = 8;
  c.island_link = IslandLink::kNVSwitch;
  c.island_bytes_per_s = 300 * kGB;
  c.pcie_bytes_per_s = 32 * kGB;
  c.nic_bytes_per_s = 100 * kGB;
  return c;
}

// Node 0: 8 Slow GPUs (relative compute 0.5); nodes 1, 2: 8 Ref GPUs (1.0) each; one rack,
// InfiniBand α = 5 us, NVSwitch α = 2 us, storage never binding.
Cluster cluster() {
  Topology t;
  const GpuTypeId ref = t.gpus.add({"Ref", 80ll << 30, 1.0, 300 * kGB, 32 * kGB, "test"});
  const GpuTypeId slow = t.gpus.add({"Slow", 80ll << 30, 0.5, 300 * kGB, 32 * kGB, "test"});
  t.classes = {eight_gpus("ref8", ref), eight_gpus("slow8", slow)};
  t.nodes = {{"n0", 1, 0}, {"n1", 0, 0}, {"n2", 0, 0}};
  t.racks = {"r0"};
  t.fabric = {FabricKind::kInfiniBand, 5e-6, 1.0};
  t.intra_latency = {2e-6, 4e-6};
  t.storage.bytes_per_s = 1000 * kGB;
  return Cluster(std::move(t));
}

// 4 one-GPU Workers as specified, 200 ms of compute per step on Ref, no gradients: compute =
// 0.2 s / r · 4 / n, and the ring's latency 2(n − 1)·α alone (step_time.cpp charges it even
// with S = 0, although step_time.hpp says the all-reduce is then 0).
JobSpec job(std::string gpu_type) {
  JobSpec j;
  j.gpu_type = std::move(gpu_type);
  j.roles.push_back({RoleKind::kWorker, 4, {8000, 64ll << 30, 1}});
  j.work.steps = 1000;
  j.work.step_compute_ref = Duration(200'000);
  return j;
}

// On Ref (the first model of the catalog): 2 Workers on node 1: 0.2 · 4/2 = 0.4 s + 2 · 2 us;
// 8: 0.1 s + 14 · 2 us; 16 (nodes 1 and 2 full): 0.05 s + 30 · 5 us (InfiniBand); 17 do not fit
// the Ref nodes: 0. Asking for Slow: 8 Workers on node 0: 0.2 / 0.5 · 4/8 = 0.2 s + 14 · 2 us.
TEST(StepTimeThroughput, StrongScalingOnACompactPlacement) {
  const Cluster c = cluster();
  const StepTimeThroughput model;
  EXPECT_DOUBLE_EQ(model.steps_per_second(c, job(""), 2), 1 / 0.400004);
  EXPECT_DOUBLE_EQ(model.steps_per_second(c, job(""), 8), 1 / 0.100028);
  EXPECT_DOUBLE_EQ(model.steps_per_second(c, job(""), 16), 1 / 0.05015);
  EXPECT_EQ(model.steps_per_second(c, job(""), 17), 0);
  EXPECT_DOUBLE_EQ(model.steps_per_second(c, job("Slow"), 8), 1 / 0.200028);
  EXPECT_EQ(model.steps_per_second(c, job("H100"), 8), 0) << "no node has it";
}

// With S = 1 GB the ring counts: 8 Workers on node 1: all-reduce 2·7/8 · 1e9/300e9 s + 14 · 2 us
// = 5861 us (sim/step_time_test.cpp, OneNodeNvSwitch); step 100 ms + 5.861 ms = 105.861 ms.
TEST(StepTimeThroughput, TheRingSlowsTheStep) {
  const Cluster c = cluster();
  JobSpec j = job("");
  j.work.gradient_bytes = 1'000'000'000;
  EXPECT_DOUBLE_EQ(StepTimeThroughput().steps_per_second(c, j, 8), 1 / 0.105861);
}

}  // namespace
}  // namespace gantry
