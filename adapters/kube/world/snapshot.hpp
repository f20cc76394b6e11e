#pragma once
// `gantry snapshot`: a live cluster written as a Scenario that `gantry simulate` accepts, the
// start of a digital twin (a what-if begins from the cluster as it is).
//
// What it writes:
//   - GPU models the catalog does not know, as spec.cluster.gpuTypes (memory from the label
//     nvidia.com/gpu.memory, else 80Gi; other figures assumed, named in `source`);
//   - the fabric (InfiniBand) and storage bandwidth (100GB/s), which the API does not know,
//     marked as assumed;
//   - node classes: the nodes grouped as LiveCluster groups them (GPU model, capacity, NVLink
//     islands; live_cluster.hpp), with the labels and taints every node of the class shares;
//     the NIC figure (nic) comes from the node label gantry.dev/nic (kNicLabel) when every node
//     of the class has the same value and it reads as a bandwidth; else 100Gbps for a GPU class
//     (nothing for a CPU-only one), marked as assumed in a comment saying why (no label, a label
//     missing on some nodes, labels that differ, a value that is not a bandwidth).
//     The label's value: the node's network bandwidth, all NICs together, one direction, in the
//     units of engine/config/units.hpp parse_bandwidth, positive, spelled as a label value may
//     be (letters, digits, '-', '_', '.'; no '/'): "400Gbps" (bits) or "50GBps" (bytes) per
//     second, not "50GB/s". It is written into the scenario as it is;
//   - racks: one entry per (rack, class) with its node count ("<rack>" when the rack has one
//     class, "<rack>-<class>" otherwise); the scenario names its nodes "<rack>-nNNN", so a
//     comment lists which live node each name stands for;
//   - the pods running now (phase Running, on a usable node) and staying, by gang
//     (gang_assembly.hpp), as jobs submitted at the start. Pods being deleted
//     (metadata.deletionTimestamp set: Running until their containers stop) are leaving: left
//     out, and the header comment says how many. One role per replica type with the largest
//     request of its pods, written as it is (a pod without requests asks for cpu "0" and
//     memory 0, as a scheduler counts it: nothing is invented), the node's GPU model as
//     gpuType, and work (no gradient) of one 1-second step per second of the pod's
//     gantry.dev/simulate-duration (1 hour when it has none: the API does not know how long a
//     pod will run; say so in the what-if). No such pod: an empty job list, with a
//     comment that the workload is the user's to add (a scenario without one does not load);
//   - nodes that are not ready or cordoned are left out (the twin is the capacity usable now).
//
// A scenario holds at most kMaxClusterNodes (100,000) nodes (engine/config/limits.hpp): a
// cluster with more usable nodes is refused (GantryError naming the count, the limit and the
// source) rather than written as a scenario no Gantry would load.
//
// Pure: no I/O; `gantry snapshot` lists the objects with the client and prints the result.

#include <string>
#include <vector>

#include "adapters/kube/model/kube_node.hpp"
#include "adapters/kube/model/kube_pod.hpp"
#include "engine/core/time.hpp"

namespace gantry::kube {

struct SnapshotInput {
  std::vector<KubeNode> nodes;
  std::vector<KubePod> pods;
  Time now;
  std::string name = "snapshot";
  std::string source;  // e.g. the API server's URL, written in the header comment
};

// Throws GantryError when more than kMaxClusterNodes nodes are usable (check_snapshot_nodes).
std::string snapshot_scenario(const SnapshotInput& input);

// Throws GantryError "<source>: at least N usable nodes ...; a scenario holds at most 100000
// nodes ..." when `usable_nodes` passes kMaxClusterNodes. `gantry snapshot` calls it while it
// lists, so that a cluster far too large is refused before it is all read.
void check_snapshot_nodes(int64_t usable_nodes, const std::string& source);

}  // namespace gantry::kube
