#pragma once
// Reading a Scenario's `cluster:` block into a Topology (the shape a future `kind: Cluster`
// file's spec will have). Either described node class by node class:
//
//   gpuTypes: [{name, memory, relativeCompute, nvlink, pcie, source}]  # add or override entries
//                                       # of GpuCatalog::with_defaults(); new ones need memory,
//                                       # relativeCompute and pcie
//   fabric: {kind: InfiniBand|RoCE|TCP, latency, rackOversubscription}   # required; >= 1
//   intraNodeLatency: {nvlink, pcie}
//   storage: {bandwidth}                 # required, > 0
//   nodeClasses: [{name, cpu, memory, gpu: {type, count, islandSize, link, islandBandwidth},
//                  pcieBandwidth, nic, labels, taints}]  # nic required with a gpu block
//   racks: [{name, class, nodes}]        # nodes "<rack>-n000", "<rack>-n001", ...
//   racks: {count, nodesPerRack, class}  # the compact form: racks r001, r002, ...; also as
//                                        # items of the list beside explicit racks, numbered
//                                        # on across them (the same Topology either way)
//
// or read from a public trace's node list, with the figures traces do not record given here:
//
//   trace: {format: openb-nodes|pai-machines|spot-nodes, file: PATH}
//   nic: 100Gbps                         # every node
//   memory: 512Gi                        # nodes whose trace gives none (the spot-GPU list)
//   fabric, intraNodeLatency, storage    # optional; the trace's defaults otherwise
//
// Defaults, with their sources, are constants at the top of cluster_loader.cpp: fabric latency
// by kind (InfiniBand 5us, RoCE 10us, TCP 50us), intra-node latency (NVLink 2us, PCIe 5us). A
// GPU block without `link` is NVSwitch when the GPU type has an NVLink figure and PCIe
// otherwise; islandSize defaults to count (NVSwitch/NVLink) or 1 (PCIe); islandBandwidth to
// the type's NVLink (or PCIe) figure; pcieBandwidth to the type's. CPU and memory are read as
// engine/config/resource_fields.hpp says.
//
// Errors: every problem is recorded in `errors` (engine/config/config_errors.hpp) and reading
// goes on; a check that depends on a value that could not be read is skipped rather than
// reported again (a rack naming a class whose own name is wrong, say). The Topology is then
// incomplete and must not be simulated.

#include <functional>

#include "engine/cluster/topology.hpp"
#include "engine/config/config_errors.hpp"
#include "engine/config/reader.hpp"
#include "sim/fragmentation_spec.hpp"
#include "sim/trace_loaders.hpp"

namespace gantry {

// `traces`: reads the cluster of `cluster.trace` (a node list of a public trace; sim/
// trace_loaders.hpp). Without one, a cluster that names a trace is an error.
Topology read_cluster(const ConfigNode& cluster, const ClusterTraceLoader& traces,
                      ConfigErrors& errors);

}  // namespace gantry
