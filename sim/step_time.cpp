#include "sim/step_time.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstddef>
#include <limits>
#include <map>
#include <set>

namespace gantry {

namespace {

constexpr double kUnlimited = std::numeric_limits<double>::infinity();

struct Link {
  double bytes_per_s = 0;
  double latency_s = 0;
  std::string name;
};

// The link the ring uses between the job's GPUs `mask` on a node of class `nc`.
Link intra_node_link(const Topology& topo, const NodeClass& nc, uint64_t mask) {
  const int island_size = nc.island_size > 0 ? nc.island_size : 64;  // <= 0: one island
  int first_island = -1;
  bool one_island = true;
  for (int gpu = 0; gpu < 64; ++gpu) {
    if (((mask >> gpu) & 1u) == 0) continue;
    const int island = gpu / island_size;
    if (first_island < 0) first_island = island;
    if (island != first_island) one_island = false;
  }
  if (one_island && nc.island_link != IslandLink::kPCIe)
    return {nc.island_bytes_per_s, topo.intra_latency.nvlink_s, to_string(nc.island_link)};
  return {nc.pcie_bytes_per_s, topo.intra_latency.pcie_s, to_string(IslandLink::kPCIe)};
}

}  // namespace

StepTime step_time(const Topology& topo, const JobSpec& job,
                   const std::vector<PodPlacement>& pods) {
  StepTime st;

  // The job's GPUs per node (ordered map: iteration order never depends on addresses).
  std::map<NodeId, uint64_t> gpu_nodes;
  std::set<NodeId> all_nodes;
  for (const PodPlacement& p : pods) {
    assert(p.node >= 0 && static_cast<size_t>(p.node) < topo.nodes.size());
    all_nodes.insert(p.node);
    if (p.gpu_mask != 0) gpu_nodes[p.node] |= p.gpu_mask;
  }

  // Compute: the slowest GPU type sets the pace.
  double r_min = gpu_nodes.empty() ? 1.0 : kUnlimited;
  for (const auto& [node, mask] : gpu_nodes) {
    const NodeClass& nc = topo.class_of(node);
    assert(nc.gpu_type >= 0);
    // Release builds: a GPU pod on a node without a GPU type counts at the reference speed.
    const double r = nc.gpu_type >= 0 ? topo.gpus.at(nc.gpu_type).relative_compute : 1.0;
    r_min = std::min(r_min, r);
    st.ring_size += std::popcount(mask);
  }
  // Strong scaling: a step's global batch is sized for the job as specified, so a gang placed
  // with fewer GPUs (partial admission, a scale-in) computes each step for longer, one with more
  // (a scale-out) for shorter.
  int spec_ring = 0;
  for (const RoleSpec& role : job.roles)
    spec_ring += role.replicas * (role.per_replica.gpus > 0       ? role.per_replica.gpus
                                  : role.per_replica.shares_gpu() ? 1
                                                                  : 0);
  const double scale = st.ring_size > 0 && spec_ring > 0
                           ? static_cast<double>(spec_ring) / static_cast<double>(st.ring_size)
                           : 1.0;
  st.compute = Duration::from_seconds(job.work.step_compute_ref.seconds() / r_min * scale);

  // All-reduce.
  const int n = st.ring_size;
  if (n <= 1) {
    st.bottleneck = "none";
  } else {
    if (gpu_nodes.size() == 1) {
      const auto& [node, mask] = *gpu_nodes.begin();
      Link link = intra_node_link(topo, topo.class_of(node), mask);
      st.bottleneck_bytes_per_s = link.bytes_per_s;
      st.latency_s = link.latency_s;
      st.bottleneck = std::move(link.name);
    } else {
      double nic = kUnlimited;
      RackId first_rack = topo.nodes[static_cast<size_t>(gpu_nodes.begin()->first)].rack;
      bool crosses_racks = false;
      Link intra{kUnlimited, 0, ""};
      for (const auto& [node, mask] : gpu_nodes) {
        const NodeClass& nc = topo.class_of(node);
        nic = std::min(nic, nc.nic_bytes_per_s);
        if (topo.nodes[static_cast<size_t>(node)].rack != first_rack) crosses_racks = true;
        if (std::popcount(mask) >= 2) {
          Link link = intra_node_link(topo, nc, mask);
          if (link.bytes_per_s < intra.bytes_per_s) intra = std::move(link);
        }
      }
      std::string fabric_name = to_string(topo.fabric.kind);
      if (crosses_racks) {
        nic /= topo.fabric.rack_oversubscription;
        fabric_name += fmt::format(", rack-crossing {:g}:1", topo.fabric.rack_oversubscription);
      }
      // Ties go to the fabric: it is the link a platform team would upgrade first.
      if (intra.bytes_per_s < nic) {
        st.bottleneck_bytes_per_s = intra.bytes_per_s;
        st.bottleneck = std::move(intra.name);
      } else {
        st.bottleneck_bytes_per_s = nic;
        st.bottleneck = std::move(fabric_name);
      }
      st.latency_s = topo.fabric.latency_s;
    }
    const double steps = 2.0 * (n - 1);
    const double s = static_cast<double>(job.work.gradient_bytes);
    // S = 0 skips the bandwidth term so a zero bandwidth does not turn 0/0 into NaN.
    const double bandwidth_s = s == 0 ? 0.0 : steps / n * s / st.bottleneck_bytes_per_s;
    st.allreduce = Duration::from_seconds(bandwidth_s + steps * st.latency_s);
  }

  // Input stall: the part of the read that prefetch cannot hide behind compute + all-reduce.
  const Duration busy = saturating_add(st.compute, st.allreduce);
  if (job.work.input_bytes_per_step > 0) {
    // The GPU workers read the input; a job without GPUs reads through all its pods' nodes.
    double nic_sum = 0;
    if (gpu_nodes.empty()) {
      for (NodeId node : all_nodes) nic_sum += topo.class_of(node).nic_bytes_per_s;
    } else {
      for (const auto& entry : gpu_nodes) nic_sum += topo.class_of(entry.first).nic_bytes_per_s;
    }
    double b_in = kUnlimited;
    if (topo.storage.bytes_per_s > 0) b_in = std::min(b_in, topo.storage.bytes_per_s);
    if (nic_sum > 0) b_in = std::min(b_in, nic_sum);
    if (b_in != kUnlimited) {
      const double read_s = static_cast<double>(job.work.input_bytes_per_step) / b_in;
      st.input_stall = Duration::from_seconds(std::max(0.0, read_s - busy.seconds()));
    }
  }
  st.total = saturating_add(busy, st.input_stall);
  return st;
}

Duration job_run_time(const StepTime& step, int64_t steps) {
  if (steps <= 0 || step.total.micros() <= 0) return Duration(0);
  if (step.total.micros() > Duration::max().micros() / steps) return Duration::max();
  return step.total * steps;
}

}  // namespace gantry
