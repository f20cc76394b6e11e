#pragma once
// Hand-built clusters for the failure model's tests (sim/fault_*.hpp): only what the fault
// code reads (GPU models, node names, racks).

#include <string>

#include "engine/cluster/topology.hpp"
#include "engine/core/time.hpp"

namespace gantry::testing {

inline const Time kFaultT0 = Time::from_micros(1'767'225'600'000'000);  // 2026-01-01T00:00:00Z

// A class of nodes with `gpus` GPUs of `model` ("" for CPU-only); returns its index.
inline int32_t add_fault_class(Topology& t, const std::string& name, const std::string& model,
                               int gpus) {
  NodeClass c;
  c.name = name;
  c.capacity = Resources{64'000, 512ll << 30, gpus};
  c.gpu_type = model.empty() ? -1 : t.gpus.find(model);
  c.island_size = gpus;
  t.classes.push_back(c);
  return static_cast<int32_t>(t.classes.size() - 1);
}

// `racks` racks named "r0", "r1", ... of `per_rack` nodes of class `cls`, named
// "<rack>-n<i>" (i counted within the rack).
inline void add_fault_racks(Topology& t, int32_t cls, int racks, int per_rack) {
  for (int r = 0; r < racks; ++r) {
    const auto rack = static_cast<RackId>(t.racks.size());
    std::string name = "r";  // not "r" + ...: GCC 12's false -Wrestrict (GCC bug 105329)
    name += std::to_string(rack);
    t.racks.push_back(name);
    for (int i = 0; i < per_rack; ++i)
      t.nodes.push_back(NodeInfo{t.racks.back() + "-n" + std::to_string(i), cls, rack});
  }
}

// The Llama 3 cluster's shape: 2,048 nodes of 8 H100-80G, 64 racks of 32.
inline Topology llama3_cluster() {
  Topology t;
  t.gpus = GpuCatalog::with_defaults();
  add_fault_racks(t, add_fault_class(t, "h100", "H100-80G", 8), 64, 32);
  return t;
}

// Rack r0: nodes r0-n0, r0-n1 of 8 A100-80G; rack r1: r1-n0, r1-n1 of 8 H100-80G; rack r2:
// r2-n0 without GPUs. Node ids 0-4 in that order.
inline Topology mixed_cluster() {
  Topology t;
  t.gpus = GpuCatalog::with_defaults();
  add_fault_racks(t, add_fault_class(t, "a100", "A100-80G", 8), 1, 2);
  add_fault_racks(t, add_fault_class(t, "h100", "H100-80G", 8), 1, 2);
  add_fault_racks(t, add_fault_class(t, "cpu", "", 0), 1, 1);
  return t;
}

}  // namespace gantry::testing
