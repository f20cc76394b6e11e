#pragma once
// Importer for the node list of Alibaba's spot-GPU trace (cluster-trace-v2026-spot-gpu;
// Duan et al., "GFS", ASPLOS'26). Data and terms: scenarios/data/README.md.
//
// ## node_info_df.csv
//
// Header row required; columns in any order, no others:
//   gpu_model         GPU model; empty iff gpu_capacity_num is 0. One of A100-SXM4-80GB,
//                     A800-SXM4-80GB, H800, A10, GPU-series-1, GPU-series-2 (case-sensitive)
//   gpu_capacity_num  GPUs on the node, 0..64
//   cpu_num           vCPUs, 0..10^6
//   node_name         node name, non-empty, unique in the file
// The trace gives no memory size: node memory capacity is 0 (unknown) and must be set by the
// caller before pods that request memory can fit.
//
// ## Mapping to Topology (see trace_topology.hpp for what every imported topology shares)
//
//   gpu_model       catalog type  island link
//   A100-SXM4-80GB  "A100-80G"    NVSwitch (SXM4 parts ship on NVSwitch boards)
//   A800-SXM4-80GB  "A800-80G"    NVSwitch; a800_gpu_type()
//   H800            "H800"        NVSwitch (the catalog's H800 is the SXM5 part)
//   A10             "A10"         PCIe
//   GPU-series-1/2  same name     PCIe; undisclosed_gpu_type()
// The rule is the scenario loader's: a type with an NVLink figure sits on an NVSwitch board.
// One rack "spot-gpu". Errors: FileError if the file cannot be read; InputError
// "file:line:col: column: message" otherwise.

#include <string>
#include <string_view>

#include "engine/cluster/topology.hpp"

namespace gantry {

Topology load_spot_nodes(const std::string& path);
// Parses node-list text; `file_name` only labels errors.
Topology load_spot_nodes_text(std::string_view text, const std::string& file_name);

}  // namespace gantry
