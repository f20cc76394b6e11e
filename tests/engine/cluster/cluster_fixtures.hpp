#pragma once
// Small hand-built clusters and requests for the Cluster tests.

#include <cstdint>

#include "engine/cluster/cluster.hpp"

namespace gantry::testing {

constexpr int64_t kGi = 1024LL * 1024 * 1024;

// Node 0 ("n0"): 4 A100s, 32 cores; node 1 ("n1"): 2 A100s, 16 cores; with `cpu_node`, node 2
// ("n2"): no GPUs, 64 cores.
inline Cluster a100_cluster(bool cpu_node) {
  Topology t;
  t.gpus = GpuCatalog::with_defaults();
  const GpuTypeId a100 = t.gpus.find("A100-80G");
  t.classes.push_back(NodeClass{"four", Resources{32'000, 256 * kGi, 4}, a100, 4});
  t.classes.push_back(NodeClass{"two", Resources{16'000, 128 * kGi, 2}, a100, 2});
  t.nodes = {NodeInfo{"n0", 0, 0}, NodeInfo{"n1", 1, 0}};
  if (cpu_node) {
    t.classes.push_back(NodeClass{"cpu", Resources{64'000, 256 * kGi, 0}, -1, 0});
    t.nodes.push_back(NodeInfo{"n2", 2, 0});
  }
  t.racks = {"r0"};
  return Cluster(std::move(t));
}

inline Resources share(int milli, int64_t cpu = 1'000) { return Resources{cpu, kGi, 0, milli}; }
inline Resources whole(int gpus, int64_t cpu = 1'000) { return Resources{cpu, kGi, gpus, 0}; }

}  // namespace gantry::testing
