#pragma once
// The static shape of a cluster: node classes, nodes, racks, the fabric between nodes and the
// remote store. Nothing here changes while a simulation runs; allocation lives in Cluster.

#include <cstdint>
#include <string>
#include <vector>

#include "engine/cluster/gpu_type.hpp"
#include "engine/cluster/node_labels.hpp"
#include "engine/cluster/resources.hpp"

namespace gantry {

// How GPUs inside one island talk to each other.
enum class IslandLink {
  kNVSwitch,  // all-to-all NVLink through NVSwitch (DGX/HGX A100, H100)
  kNVLink,    // NVLink bridges/mesh without a switch (e.g. 4-GPU NVLink boards)
  kPCIe,      // no NVLink: peers talk through PCIe switches
};
const char* to_string(IslandLink link);

// A kind of node. Many nodes share one class.
struct NodeClass {
  std::string name;
  Resources capacity;       // cpu, memory and gpus of one node
  GpuTypeId gpu_type = -1;  // -1 for CPU-only nodes
  int island_size = 0;      // GPUs per NVLink/NVSwitch island; gpus % island_size == 0
  IslandLink island_link = IslandLink::kNVSwitch;
  double island_bytes_per_s = 0;  // per GPU, per direction, inside an island
  double pcie_bytes_per_s = 0;    // per direction, between islands of one node
  double nic_bytes_per_s = 0;     // node to fabric, all NICs together, per direction

  int islands() const { return island_size > 0 ? capacity.gpus / island_size : 0; }
};

enum class FabricKind {
  kInfiniBand,
  kRoCE,
  kTcp,
};
const char* to_string(FabricKind kind);

struct Fabric {
  FabricKind kind = FabricKind::kInfiniBand;
  // Per-message latency α of one ring step between nodes, in seconds.
  double latency_s = 0;
  // Rack uplink oversubscription (downlink:uplink); 1 = non-blocking. A ring that crosses racks
  // gets nic_bytes_per_s / rack_oversubscription.
  double rack_oversubscription = 1.0;
};

// Latency α of one ring step inside a node, by island link, in seconds.
struct IntraNodeLatency {
  double nvlink_s = 0;
  double pcie_s = 0;
};

struct Storage {
  double bytes_per_s = 0;  // aggregate bandwidth of the remote store
};

using NodeId = int32_t;
using RackId = int32_t;

struct NodeInfo {
  std::string name;
  int32_t node_class = 0;  // index into Topology::classes
  RackId rack = 0;
  Labels labels{};              // what a pod's nodeSelector matches (node_labels.hpp)
  std::vector<Taint> taints{};  // what a pod must tolerate to be placed here
};

struct Topology {
  GpuCatalog gpus;
  std::vector<NodeClass> classes;
  std::vector<NodeInfo> nodes;
  std::vector<std::string> racks;  // rack names, indexed by RackId
  Fabric fabric;
  IntraNodeLatency intra_latency;
  Storage storage;

  const NodeClass& class_of(NodeId n) const {
    return classes[static_cast<size_t>(nodes[static_cast<size_t>(n)].node_class)];
  }
  int total_gpus() const;
};

}  // namespace gantry
