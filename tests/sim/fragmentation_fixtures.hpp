#pragma once
// Small clusters and pods for the fragmentation experiment's tests, so their numbers can be
// worked out by hand.

#include <string>

#include "engine/cluster/job.hpp"
#include "engine/cluster/topology.hpp"

namespace gantry::testing {

// `nodes` nodes of two T4s each (PCIe), 8 cores and 64 GiB.
inline Topology two_gpu_node(int nodes = 1) {
  Topology t;
  t.gpus = GpuCatalog::with_defaults();
  NodeClass c;
  c.name = "t4x2";
  c.capacity = Resources{8'000, 64ll << 30, 2};
  c.gpu_type = t.gpus.find("T4");
  c.island_size = 2;
  c.island_link = IslandLink::kPCIe;
  c.island_bytes_per_s = 16e9;
  c.pcie_bytes_per_s = 16e9;
  t.classes.push_back(c);
  t.racks.push_back("r");
  for (int i = 0; i < nodes; ++i) t.nodes.push_back(NodeInfo{"n" + std::to_string(i), 0, 0});
  return t;
}

// A one-pod job of 1 core, 1 GiB and the GPU request (gpus, gpu_milli).
inline JobSpec pod(std::string name, int gpus, int gpu_milli) {
  JobSpec j;
  j.name = std::move(name);
  j.roles.push_back(RoleSpec{RoleKind::kWorker, 1, Resources{1'000, 1ll << 30, gpus, gpu_milli}});
  return j;
}

}  // namespace gantry::testing
