#pragma once
// Small hand-built clusters and jobs for the policy tests.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/cluster/cluster.hpp"
#include "engine/cluster/job.hpp"

namespace gantry::testing {

inline constexpr int64_t kGi = 1024LL * 1024 * 1024;

struct NodeDef {
  int rack = 0;
  int gpus = 8;
  std::string gpu_type = "A100-80G";  // empty: a CPU-only node
  int island_size = 8;
  int64_t cpu_milli = 96'000;
  int64_t memory_bytes = 1024 * kGi;
};

// One node class per node, so every node can differ; racks "r0".."rN".
inline Topology make_topology(const std::vector<NodeDef>& defs) {
  Topology t;
  t.gpus = GpuCatalog::with_defaults();
  int racks = 0;
  for (size_t i = 0; i < defs.size(); ++i) {
    const NodeDef& d = defs[i];
    NodeClass c;
    c.name = "class" + std::to_string(i);
    c.capacity = Resources{d.cpu_milli, d.memory_bytes, d.gpus};
    c.gpu_type = d.gpu_type.empty() ? -1 : t.gpus.find(d.gpu_type);
    c.island_size = d.gpus > 0 ? d.island_size : 0;
    t.classes.push_back(c);
    t.nodes.push_back(NodeInfo{"node" + std::to_string(i), static_cast<int32_t>(i), d.rack});
    racks = std::max(racks, d.rack + 1);
  }
  for (int r = 0; r < racks; ++r) t.racks.push_back("r" + std::to_string(r));
  return t;
}

// `count` identical 8-GPU A100 nodes in rack 0.
inline Cluster uniform_cluster(int count, int gpus = 8) {
  std::vector<NodeDef> defs(static_cast<size_t>(count));
  for (auto& d : defs) d.gpus = gpus;
  return Cluster(make_topology(defs));
}

inline Resources gpu_pod(int gpus, int64_t cpu_milli = 4'000) {
  return Resources{cpu_milli, 16 * kGi, gpus};
}

// A job of `pods` workers with `gpus_per_pod` GPUs each.
inline JobSpec worker_job(int pods, int gpus_per_pod, int64_t submit_s = 0, int priority = 0,
                          std::string gpu_type = "") {
  JobSpec j;
  j.name = "job";
  j.priority = priority;
  j.gpu_type = std::move(gpu_type);
  j.submit = Time::from_micros(submit_s * 1'000'000);
  j.roles.push_back(RoleSpec{RoleKind::kWorker, pods, gpu_pod(gpus_per_pod)});
  return j;
}

// A fresh owner for load a test puts on the cluster by hand, as if another job ran there
// (workload ids from 1,000,000 on, which no test's jobs use).
inline AllocationOwner background_owner() {
  static int32_t next = 1'000'000;
  return AllocationOwner{next++, 0};
}

// Takes `request` on node n for a background owner, which it returns; fails the test if the
// request does not fit.
inline AllocationOwner take(Cluster& c, NodeId n, const Resources& request, uint64_t gpu_mask) {
  const AllocationOwner owner = background_owner();
  const Status s = c.allocate(n, request, gpu_mask, owner);
  EXPECT_TRUE(s) << s.message();
  return owner;
}

// Occupies GPUs [0, gpus) of node n (and a little CPU), as if another job ran there.
inline AllocationOwner occupy(Cluster& c, NodeId n, int gpus) {
  return take(c, n, Resources{1'000, kGi, gpus}, c.lowest_free_gpus(n, gpus));
}

inline int allocated_gpus(const Cluster& c) { return c.total_gpus() - c.free_gpus(); }

}  // namespace gantry::testing
