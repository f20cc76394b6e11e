#pragma once
// Small hand-built clusters and jobs for simulation tests, so each test can work its numbers
// out by hand.

#include "engine/cluster/topology.hpp"
#include "sim/scenario_spec.hpp"

namespace gantry::testing {

inline const Time kT0 = Time::from_micros(1'767'225'600'000'000);  // 2026-01-01T00:00:00Z

// `nodes` DGX-like nodes in one rack: 8 A100-80G on one NVSwitch island at 300 GB/s,
// NIC 200 GB/s (1600 Gb/s), InfiniBand with α = 5 µs, NVLink α = 2 µs, no oversubscription.
inline Topology dgx_rack(int nodes) {
  Topology t;
  t.gpus = GpuCatalog::with_defaults();
  NodeClass c;
  c.name = "dgx";
  c.capacity = Resources{128'000, 1ll << 40, 8};
  c.gpu_type = t.gpus.find("A100-80G");
  c.island_size = 8;
  c.island_link = IslandLink::kNVSwitch;
  c.island_bytes_per_s = 300e9;
  c.pcie_bytes_per_s = 32e9;
  c.nic_bytes_per_s = 200e9;
  t.classes.push_back(c);
  t.racks.push_back("r1");
  for (int i = 0; i < nodes; ++i) t.nodes.push_back(NodeInfo{"r1-n00" + std::to_string(i), 0, 0});
  t.fabric = Fabric{FabricKind::kInfiniBand, 5e-6, 1.0};
  t.intra_latency = IntraNodeLatency{2e-6, 5e-6};
  t.storage = Storage{1e12};
  return t;
}

inline JobSpec training_job(std::string name, Framework fw, std::vector<RoleSpec> roles,
                            Duration submit, int64_t steps, Duration compute,
                            int64_t gradient_bytes) {
  JobSpec j;
  j.name = std::move(name);
  j.framework = fw;
  j.roles = std::move(roles);
  j.submit = kT0 + submit;
  j.work.steps = steps;
  j.work.step_compute_ref = compute;
  j.work.gradient_bytes = gradient_bytes;
  return j;
}

inline RoleSpec role(RoleKind kind, int replicas, int gpus) {
  return RoleSpec{kind, replicas, Resources{8'000, 64ll << 30, gpus}};
}

inline ScenarioSpec scenario_with(Topology topo, std::vector<JobSpec> jobs) {
  ScenarioSpec s;
  s.name = "test";
  s.start = kT0;
  s.topology = std::move(topo);
  s.workload.jobs = std::move(jobs);
  return s;
}

// A Poisson stream of `count` jobs on 4 DGX nodes, half of 2 GPUs (one per pod), half of 16
// (8 per pod), 100 to `max_steps` steps each.
inline ScenarioSpec two_size_poisson(uint64_t seed, int64_t count, Duration mean_interarrival,
                                     int64_t max_steps) {
  ScenarioSpec s = scenario_with(dgx_rack(4), {});
  s.seed = seed;
  PoissonGeneratorSpec g;
  g.name = "p";
  g.count = count;
  g.mean_interarrival = mean_interarrival;
  JobClass small;
  small.gpus = 2;
  small.gpus_per_pod = 1;
  small.steps = {100, max_steps};
  small.gradient_bytes = 100'000'000;
  JobClass big = small;
  big.gpus = 16;
  big.gpus_per_pod = 8;
  g.mix = {small, big};
  s.workload.generators.push_back(g);
  return s;
}

}  // namespace gantry::testing
