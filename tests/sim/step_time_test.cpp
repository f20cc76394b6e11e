// Step-time model tests. Every expected number is worked out by hand in the comment above the
// assertion, from the formulas in sim/step_time.hpp, then rounded to whole microseconds.

#include "sim/step_time.hpp"

#include <gtest/gtest.h>

namespace gantry {
namespace {

constexpr double kGB = 1e9;

// Node classes of the hand-built topology (indices into Topology::classes).
enum Class : int32_t {
  kNvSwitch8 = 0,   // 8 x Ref, one NVSwitch island 300 GB/s, PCIe 32 GB/s, NIC 100 GB/s
  kTwoIslands = 1,  // 8 x Ref, two NVLink islands of 4 at 100 GB/s, PCIe 32 GB/s, NIC 50 GB/s
  kPcie8 = 2,       // 8 x Ref, no NVLink (PCIe island), PCIe 16 GB/s, NIC 25 GB/s
  kCpu = 3,         // no GPUs, NIC 25 GB/s
  kSlow8 = 4,       // like kNvSwitch8 with the Slow GPU (relative compute 0.5)
  kFast8 = 5,       // like kNvSwitch8 with the Fast GPU (relative compute 2.0)
  kTcp8 = 6,        // like kNvSwitch8 with a 100 Gb/s NIC (12.5 GB/s)
};

NodeClass gpu_class(std::string name, GpuTypeId type, int island_size, IslandLink link,
                    double island_bw, double pcie_bw, double nic_bw) {
  NodeClass c;
  c.name = std::move(name);
  c.capacity = {64'000, 1024ll << 30, 8};
  c.gpu_type = type;
  c.island_size = island_size;
  c.island_link = link;
  c.island_bytes_per_s = island_bw;
  c.pcie_bytes_per_s = pcie_bw;
  c.nic_bytes_per_s = nic_bw;
  return c;
}

// Latencies: NVLink 2 us, PCIe 4 us, fabric 5 us (InfiniBand) unless a test changes it.
// Storage 1000 GB/s so that it never binds unless a test lowers it.
Topology base_topology() {
  Topology t;
  const GpuTypeId ref = t.gpus.add({"Ref", 80ll << 30, 1.0, 300 * kGB, 32 * kGB, "test"});
  const GpuTypeId slow = t.gpus.add({"Slow", 80ll << 30, 0.5, 300 * kGB, 32 * kGB, "test"});
  const GpuTypeId fast = t.gpus.add({"Fast", 80ll << 30, 2.0, 300 * kGB, 32 * kGB, "test"});
  t.classes.push_back(
      gpu_class("nvswitch8", ref, 8, IslandLink::kNVSwitch, 300 * kGB, 32 * kGB, 100 * kGB));
  t.classes.push_back(
      gpu_class("two-islands", ref, 4, IslandLink::kNVLink, 100 * kGB, 32 * kGB, 50 * kGB));
  t.classes.push_back(gpu_class("pcie8", ref, 8, IslandLink::kPCIe, 0, 16 * kGB, 25 * kGB));
  NodeClass cpu;
  cpu.name = "cpu";
  cpu.capacity = {64'000, 256ll << 30, 0};
  cpu.nic_bytes_per_s = 25 * kGB;
  t.classes.push_back(cpu);
  t.classes.push_back(
      gpu_class("slow8", slow, 8, IslandLink::kNVSwitch, 300 * kGB, 32 * kGB, 100 * kGB));
  t.classes.push_back(
      gpu_class("fast8", fast, 8, IslandLink::kNVSwitch, 300 * kGB, 32 * kGB, 100 * kGB));
  t.classes.push_back(
      gpu_class("tcp8", ref, 8, IslandLink::kNVSwitch, 300 * kGB, 32 * kGB, 12.5 * kGB));
  t.racks = {"r0", "r1"};
  t.fabric = {FabricKind::kInfiniBand, 5e-6, 1.0};
  t.intra_latency = {2e-6, 4e-6};
  t.storage.bytes_per_s = 1000 * kGB;
  return t;
}

NodeId add_node(Topology& t, Class c, RackId rack = 0) {
  t.nodes.push_back({"n" + std::to_string(t.nodes.size()), c, rack});
  return static_cast<NodeId>(t.nodes.size() - 1);
}

// A job of `pods` Worker replicas with `gpus_per_pod` GPUs each; S = 1 GB, compute 200 ms on
// the Ref GPU, no input.
JobSpec worker_job(int pods, int gpus_per_pod) {
  JobSpec j;
  j.name = "job";
  j.roles.push_back({RoleKind::kWorker, pods, {8000, 64ll << 30, gpus_per_pod}});
  j.work.steps = 1000;
  j.work.step_compute_ref = Duration(200'000);
  j.work.gradient_bytes = 1'000'000'000;
  return j;
}

TEST(StepTime, OneNodeNvSwitch) {
  Topology t = base_topology();
  const NodeId n0 = add_node(t, kNvSwitch8);
  const StepTime st = step_time(t, worker_job(1, 8), {{n0, 0xFF}});
  // n = 8, B = 300 GB/s, α = 2 us, S = 1 GB:
  // 2·7/8 · 1e9/300e9 s = 5.8333 ms = 5833.33 us; + 14·2 us = 28 us -> 5861.33 -> 5861 us.
  EXPECT_EQ(st.ring_size, 8);
  EXPECT_EQ(st.bottleneck, "NVSwitch");
  EXPECT_DOUBLE_EQ(st.bottleneck_bytes_per_s, 300 * kGB);
  EXPECT_DOUBLE_EQ(st.latency_s, 2e-6);
  EXPECT_EQ(st.allreduce, microseconds(5861));
  // Compute on the reference GPU: 200 ms / 1.0.
  EXPECT_EQ(st.compute, microseconds(200'000));
  EXPECT_EQ(st.input_stall, microseconds(0));
  EXPECT_EQ(st.total, microseconds(205'861));
}

TEST(StepTime, PodsOnOneNodeAreMergedIntoOneRing) {
  Topology t = base_topology();
  const NodeId n0 = add_node(t, kNvSwitch8);
  std::vector<PodPlacement> pods;
  for (int i = 0; i < 8; ++i) pods.push_back({n0, uint64_t{1} << i});
  const StepTime st = step_time(t, worker_job(8, 1), pods);
  // Eight 1-GPU pods on one NVSwitch node: the same ring as one 8-GPU pod (5861 us above).
  EXPECT_EQ(st.ring_size, 8);
  EXPECT_EQ(st.bottleneck, "NVSwitch");
  EXPECT_EQ(st.allreduce, microseconds(5861));
}

TEST(StepTime, OneNodeInsideOneNvLinkIsland) {
  Topology t = base_topology();
  const NodeId n0 = add_node(t, kTwoIslands);
  // GPUs 0-3 = island 0. n = 4, B = 100 GB/s, α = 2 us:
  // 2·3/4 · 1e9/100e9 s = 15 ms = 15000 us; + 6·2 us = 12 us -> 15012 us.
  const StepTime st = step_time(t, worker_job(1, 4), {{n0, 0x0F}});
  EXPECT_EQ(st.bottleneck, "NVLink");
  EXPECT_DOUBLE_EQ(st.bottleneck_bytes_per_s, 100 * kGB);
  EXPECT_EQ(st.allreduce, microseconds(15'012));
}

TEST(StepTime, OneNodeSpanningTwoIslandsUsesPcie) {
  Topology t = base_topology();
  const NodeId n0 = add_node(t, kTwoIslands);
  // GPUs 2-5 straddle islands 0 (0-3) and 1 (4-7). n = 4, B = PCIe 32 GB/s, α = 4 us:
  // 2·3/4 · 1e9/32e9 s = 46.875 ms = 46875 us; + 6·4 us = 24 us -> 46899 us.
  const StepTime st = step_time(t, worker_job(1, 4), {{n0, 0x3C}});
  EXPECT_EQ(st.ring_size, 4);
  EXPECT_EQ(st.bottleneck, "PCIe");
  EXPECT_DOUBLE_EQ(st.bottleneck_bytes_per_s, 32 * kGB);
  EXPECT_DOUBLE_EQ(st.latency_s, 4e-6);
  EXPECT_EQ(st.allreduce, microseconds(46'899));
}

TEST(StepTime, PcieOnlyNodeUsesPcieBandwidthAndLatency) {
  Topology t = base_topology();
  const NodeId n0 = add_node(t, kPcie8);
  // PCIe island: B = node PCIe 16 GB/s (island_bytes_per_s is 0 and must be ignored), α = 4 us:
  // 2·7/8 · 1e9/16e9 s = 109.375 ms = 109375 us; + 14·4 us = 56 us -> 109431 us.
  const StepTime st = step_time(t, worker_job(1, 8), {{n0, 0xFF}});
  EXPECT_EQ(st.bottleneck, "PCIe");
  EXPECT_DOUBLE_EQ(st.bottleneck_bytes_per_s, 16 * kGB);
  EXPECT_EQ(st.allreduce, microseconds(109'431));
}

TEST(StepTime, TwoNodesOverInfiniBand) {
  Topology t = base_topology();
  const NodeId n0 = add_node(t, kNvSwitch8);
  const NodeId n1 = add_node(t, kNvSwitch8);
  // n = 16, N = NIC 100 GB/s (one rack), I = NVSwitch 300 GB/s, B = 100 GB/s, α = 5 us:
  // 2·15/16 · 1e9/100e9 s = 18.75 ms = 18750 us; + 30·5 us = 150 us -> 18900 us.
  const StepTime st = step_time(t, worker_job(2, 8), {{n0, 0xFF}, {n1, 0xFF}});
  EXPECT_EQ(st.ring_size, 16);
  EXPECT_EQ(st.bottleneck, "InfiniBand");
  EXPECT_DOUBLE_EQ(st.bottleneck_bytes_per_s, 100 * kGB);
  EXPECT_DOUBLE_EQ(st.latency_s, 5e-6);
  EXPECT_EQ(st.allreduce, microseconds(18'900));
  EXPECT_EQ(st.total, microseconds(218'900));
}

TEST(StepTime, TwoNodesOverTcp) {
  Topology t = base_topology();
  t.fabric = {FabricKind::kTcp, 50e-6, 1.0};
  const NodeId n0 = add_node(t, kTcp8);
  const NodeId n1 = add_node(t, kTcp8);
  // n = 16, B = NIC 12.5 GB/s, α = 50 us:
  // 2·15/16 · 1e9/12.5e9 s = 150 ms = 150000 us; + 30·50 us = 1500 us -> 151500 us.
  const StepTime st = step_time(t, worker_job(2, 8), {{n0, 0xFF}, {n1, 0xFF}});
  EXPECT_EQ(st.bottleneck, "TCP");
  EXPECT_DOUBLE_EQ(st.bottleneck_bytes_per_s, 12.5 * kGB);
  EXPECT_EQ(st.allreduce, microseconds(151'500));
}

TEST(StepTime, RackCrossingDividesNicByOversubscription) {
  Topology t = base_topology();
  t.fabric.rack_oversubscription = 3.0;
  const NodeId n0 = add_node(t, kNvSwitch8, 0);
  const NodeId n1 = add_node(t, kNvSwitch8, 1);
  // N = 100e9 / 3 = 33.33 GB/s, α = 5 us:
  // 2·15/16 · 1e9/33.33e9 s = 1.875 · 3 / 100 s = 56.25 ms = 56250 us; + 150 us -> 56400 us.
  const StepTime st = step_time(t, worker_job(2, 8), {{n0, 0xFF}, {n1, 0xFF}});
  EXPECT_EQ(st.bottleneck, "InfiniBand, rack-crossing 3:1");
  EXPECT_NEAR(st.bottleneck_bytes_per_s, 100 * kGB / 3, 1.0);
  EXPECT_EQ(st.allreduce, microseconds(56'400));
}

TEST(StepTime, OversubscriptionIgnoredInsideOneRack) {
  Topology t = base_topology();
  t.fabric.rack_oversubscription = 3.0;
  const NodeId n0 = add_node(t, kNvSwitch8, 1);
  const NodeId n1 = add_node(t, kNvSwitch8, 1);
  // Same rack: no division; same as TwoNodesOverInfiniBand -> 18900 us.
  const StepTime st = step_time(t, worker_job(2, 8), {{n0, 0xFF}, {n1, 0xFF}});
  EXPECT_EQ(st.bottleneck, "InfiniBand");
  EXPECT_EQ(st.allreduce, microseconds(18'900));
}

TEST(StepTime, FractionalOversubscriptionLabel) {
  Topology t = base_topology();
  t.fabric.rack_oversubscription = 1.5;
  const NodeId n0 = add_node(t, kNvSwitch8, 0);
  const NodeId n1 = add_node(t, kNvSwitch8, 1);
  // N = 100e9 / 1.5 = 66.67 GB/s: 1.875e9 · 1.5 / 100e9 s = 28.125 ms = 28125 us; + 150 us
  // -> 28275 us.
  const StepTime st = step_time(t, worker_job(2, 8), {{n0, 0xFF}, {n1, 0xFF}});
  EXPECT_EQ(st.bottleneck, "InfiniBand, rack-crossing 1.5:1");
  EXPECT_EQ(st.allreduce, microseconds(28'275));
}

TEST(StepTime, IntraNodeLinkCanBoundAMultiNodeRing) {
  Topology t = base_topology();
  const NodeId n0 = add_node(t, kTwoIslands);
  const NodeId n1 = add_node(t, kTwoIslands);
  // All 8 GPUs per node: two islands, so the in-node hop is PCIe 32 GB/s < NIC 50 GB/s.
  // B = 32 GB/s, α = fabric 5 us: 2·15/16 · 1e9/32e9 s = 58.59375 ms = 58593.75 us;
  // + 30·5 us = 150 us -> 58743.75 -> 58744 us.
  const StepTime st = step_time(t, worker_job(2, 8), {{n0, 0xFF}, {n1, 0xFF}});
  EXPECT_EQ(st.bottleneck, "PCIe");
  EXPECT_DOUBLE_EQ(st.bottleneck_bytes_per_s, 32 * kGB);
  EXPECT_DOUBLE_EQ(st.latency_s, 5e-6);
  EXPECT_EQ(st.allreduce, microseconds(58'744));
}

TEST(StepTime, NodeWithOneJobGpuHasNoIntraNodeHop) {
  Topology t = base_topology();
  const NodeId n0 = add_node(t, kPcie8);
  const NodeId n1 = add_node(t, kPcie8);
  // One GPU per node: only the NIC (25 GB/s) counts, not PCIe (16 GB/s). n = 2, α = 5 us:
  // 2·1/2 · 1e9/25e9 s = 40 ms = 40000 us; + 2·5 us = 10 us -> 40010 us.
  // (Were PCIe counted: 1e9/16e9 s = 62500 us + 10 -> 62510 us.)
  const StepTime st = step_time(t, worker_job(2, 1), {{n0, 0x1}, {n1, 0x1}});
  EXPECT_EQ(st.bottleneck, "InfiniBand");
  EXPECT_DOUBLE_EQ(st.bottleneck_bytes_per_s, 25 * kGB);
  EXPECT_EQ(st.allreduce, microseconds(40'010));
}

// Strong scaling: the spec asks for 4 pods × 8 GPUs = 32; placed on 16 (partial admission), a
// step computes for 200 ms · 32 / 16 = 400 ms; on 64 (a scale-out), 200 ms · 32 / 64 = 100 ms.
TEST(StepTime, ComputeScalesWithTheGpusPlacedAgainstTheSpec) {
  Topology t = base_topology();
  std::vector<PodPlacement> pods;
  for (int i = 0; i < 8; ++i) pods.push_back({add_node(t, kNvSwitch8), 0xFF});
  const JobSpec job = worker_job(4, 8);
  EXPECT_EQ(step_time(t, job, {pods.begin(), pods.begin() + 2}).compute, microseconds(400'000));
  EXPECT_EQ(step_time(t, job, {pods.begin(), pods.begin() + 4}).compute, microseconds(200'000));
  EXPECT_EQ(step_time(t, job, pods).compute, microseconds(100'000));
}

TEST(StepTime, SlowestGpuTypeSetsCompute) {
  Topology t = base_topology();
  const NodeId slow = add_node(t, kSlow8);
  const NodeId fast = add_node(t, kFast8);
  // Fast alone: 200 ms / 2.0 = 100 ms.
  EXPECT_EQ(step_time(t, worker_job(1, 8), {{fast, 0xFF}}).compute, microseconds(100'000));
  // Slow alone: 200 ms / 0.5 = 400 ms.
  EXPECT_EQ(step_time(t, worker_job(1, 8), {{slow, 0xFF}}).compute, microseconds(400'000));
  // Mixed: the slow GPUs set the pace, 400 ms.
  const StepTime mixed = step_time(t, worker_job(2, 8), {{fast, 0xFF}, {slow, 0xFF}});
  EXPECT_EQ(mixed.compute, microseconds(400'000));
  // Ring over both nodes as in TwoNodesOverInfiniBand: 18900 us; total 418900 us.
  EXPECT_EQ(mixed.total, microseconds(418'900));
}

TEST(StepTime, InputStallWhenStorageIsSlow) {
  Topology t = base_topology();
  t.storage.bytes_per_s = 2 * kGB;
  const NodeId n0 = add_node(t, kNvSwitch8);
  JobSpec job = worker_job(1, 1);
  job.work.input_bytes_per_step = 1'000'000'000;
  // Single GPU: no all-reduce. B_in = min(2 GB/s, NIC 100 GB/s) = 2 GB/s; read = 1e9/2e9 =
  // 500 ms; busy = 200 ms -> stall = 300 ms; total = 500 ms (input-bound).
  const StepTime st = step_time(t, job, {{n0, 0x1}});
  EXPECT_EQ(st.input_stall, microseconds(300'000));
  EXPECT_EQ(st.total, microseconds(500'000));
}

TEST(StepTime, NoInputStallWhenReadFitsUnderCompute) {
  Topology t = base_topology();
  t.storage.bytes_per_s = 2 * kGB;
  const NodeId n0 = add_node(t, kNvSwitch8);
  JobSpec job = worker_job(1, 1);
  job.work.input_bytes_per_step = 200'000'000;
  // read = 2e8/2e9 = 100 ms < 200 ms compute: prefetch hides it, stall 0.
  const StepTime st = step_time(t, job, {{n0, 0x1}});
  EXPECT_EQ(st.input_stall, microseconds(0));
  EXPECT_EQ(st.total, microseconds(200'000));
}

TEST(StepTime, InputBoundByTheJobsNics) {
  Topology t = base_topology();
  t.fabric = {FabricKind::kTcp, 50e-6, 1.0};
  const NodeId n0 = add_node(t, kTcp8);
  const NodeId n1 = add_node(t, kTcp8);
  JobSpec job = worker_job(2, 8);
  job.work.input_bytes_per_step = 10'000'000'000;
  // B_in = min(storage 1000 GB/s, 2 · 12.5 GB/s) = 25 GB/s; read = 10e9/25e9 = 400 ms.
  // busy = 200 ms + 151.5 ms (TwoNodesOverTcp) = 351.5 ms -> stall = 48.5 ms = 48500 us.
  const StepTime st = step_time(t, job, {{n0, 0xFF}, {n1, 0xFF}});
  EXPECT_EQ(st.allreduce, microseconds(151'500));
  EXPECT_EQ(st.input_stall, microseconds(48'500));
  EXPECT_EQ(st.total, microseconds(400'000));
}

TEST(StepTime, SingleGpuHasNoAllReduce) {
  Topology t = base_topology();
  const NodeId n0 = add_node(t, kNvSwitch8);
  const StepTime st = step_time(t, worker_job(1, 1), {{n0, 0x10}});
  EXPECT_EQ(st.ring_size, 1);
  EXPECT_EQ(st.allreduce, microseconds(0));
  EXPECT_EQ(st.bottleneck, "none");
  EXPECT_EQ(st.bottleneck_bytes_per_s, 0.0);
  EXPECT_EQ(st.latency_s, 0.0);
  EXPECT_EQ(st.total, microseconds(200'000));
}

TEST(StepTime, CpuOnlyPodIsNotInTheRing) {
  Topology t = base_topology();
  t.fabric.rack_oversubscription = 3.0;
  t.storage.bytes_per_s = 0;                // not configured: unlimited
  const NodeId cpu = add_node(t, kCpu, 1);  // another rack: must not make the ring cross racks
  const NodeId n0 = add_node(t, kNvSwitch8, 0);
  const NodeId n1 = add_node(t, kNvSwitch8, 0);
  JobSpec job;
  job.name = "mpi";
  job.framework = Framework::kMPI;
  job.roles.push_back({RoleKind::kLauncher, 1, {1000, 2ll << 30, 0}});
  job.roles.push_back({RoleKind::kWorker, 2, {64'000, 512ll << 30, 8}});
  job.work.step_compute_ref = Duration(200'000);
  job.work.gradient_bytes = 1'000'000'000;
  job.work.input_bytes_per_step = 1'000'000'000'000;
  const StepTime st = step_time(t, job, {{cpu, 0}, {n0, 0xFF}, {n1, 0xFF}});
  // n = 16 (the launcher holds no GPU), one rack: 18900 us as in TwoNodesOverInfiniBand.
  EXPECT_EQ(st.ring_size, 16);
  EXPECT_EQ(st.bottleneck, "InfiniBand");
  EXPECT_EQ(st.allreduce, microseconds(18'900));
  // Storage unlimited, B_in = the GPU nodes' NICs only: 2 · 100 GB/s = 200 GB/s (the CPU
  // node's 25 GB/s is not counted); read = 1e12/200e9 = 5 s -> total 5 s, stall
  // 5 s − 218.9 ms = 4781100 us.
  EXPECT_EQ(st.input_stall, microseconds(4'781'100));
  EXPECT_EQ(st.total, seconds(5));
}

TEST(StepTime, ZeroGradientBytesLeavesOnlyLatency) {
  Topology t = base_topology();
  const NodeId n0 = add_node(t, kNvSwitch8);
  JobSpec job = worker_job(1, 8);
  job.work.gradient_bytes = 0;
  // 2·7 steps · 2 us = 28 us.
  EXPECT_EQ(step_time(t, job, {{n0, 0xFF}}).allreduce, microseconds(28));
}

TEST(JobRunTime, StepsTimesTotal) {
  StepTime st;
  st.total = microseconds(205'861);
  // 1000 · 205861 us = 205.861 s.
  EXPECT_EQ(job_run_time(st, 1000), microseconds(205'861'000));
  EXPECT_EQ(job_run_time(st, 0), microseconds(0));
  EXPECT_EQ(job_run_time(st, -5), microseconds(0));
}

TEST(JobRunTime, SaturatesInsteadOfOverflowing) {
  StepTime st;
  st.total = hours(1);
  // 3.6e9 us · 1e10 steps = 3.6e19 us > INT64_MAX (9.22e18).
  EXPECT_EQ(job_run_time(st, 10'000'000'000), Duration::max());
  // 3.6e9 · 2e9 = 7.2e18 < 9.22e18: fits exactly.
  EXPECT_EQ(job_run_time(st, 2'000'000'000), microseconds(7'200'000'000'000'000'000));
}

}  // namespace
}  // namespace gantry
