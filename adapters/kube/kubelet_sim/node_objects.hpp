#pragma once
// The Node objects `gantry kubelet-sim` registers for a scenario's topology: what a kubelet
// with NVIDIA's device plugin and GPU feature discovery would report, plus Gantry's topology
// labels (adapters/kube/model/kube_node.hpp lists them), so the live world reads back the
// scenario's classes, racks, GPU models and islands.
//
// Thread-safety: pure functions.

#include <nlohmann/json.hpp>
#include <string>

#include "engine/cluster/topology.hpp"
#include "engine/core/time.hpp"

namespace gantry::kube {

// Node `n` of `topology` as a core/v1 Node: labels (kubernetes.io/hostname,
// nvidia.com/gpu.product, nvidia.com/gpu.count, nvidia.com/gpu.memory in MiB, gantry.dev/rack,
// gantry.dev/node-class, gantry.dev/nvlink-island, gantry.dev/nic when the class has a NIC, and
// the node's own labels), taints, capacity = allocatable (cpu, memory, nvidia.com/gpu, pods
// 110), a Ready condition at `now`.
nlohmann::json node_object(const Topology& topology, NodeId n, Time now);

// The gantry.dev/nic label of a NIC of `bytes_per_s`: bits per second in the largest unit
// that keeps it whole (200e9 B/s -> "1600Gbps", 125e9 -> "1Tbps", 1.5625e9 -> "12500Mbps"), a
// valid label value that a scenario's `nic` reads back as the same bandwidth.
std::string nic_label_value(double bytes_per_s);

// The node's spec.taints once the node lifecycle controller has seen it down (Ready Unknown)
// or up: `taints` (the node's spec.taints as the API server has them; null or an array)
// without node.kubernetes.io/not-ready and /unreachable, plus, for a node down,
// node.kubernetes.io/unreachable NoSchedule (TaintNodesByCondition) and NoExecute with its
// timeAdded `at` (the taint-based evictions); a lifecycle taint already there as wanted is
// kept as it is (its timeAdded too). The node's other taints pass through untouched.
nlohmann::json lifecycle_taints(const nlohmann::json& taints, bool down, Time at);

// The node's Lease in kube-node-lease (the kubelet's heartbeat since v1.17).
nlohmann::json node_lease(const std::string& node, Time now, const std::string& resource_version);

}  // namespace gantry::kube
