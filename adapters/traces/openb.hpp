#pragma once
// Importer for Alibaba's GPU-sharing trace "openb" (cluster-trace-gpu-v2023; Weng et al.,
// "Beware of Fragmentation", USENIX ATC'23). Data and terms: scenarios/data/README.md.
//
// ## Node lists (openb_node_list_*.csv)
//
// Header row required; columns in any order, no others:
//   sn          node name, non-empty, unique in the file
//   cpu_milli   CPU in milli-cores, 0..10^9
//   memory_mib  memory in MiB (2^20 bytes), 0..2^26 (64 TiB)
//   gpu         GPUs on the node, 0..64 (the cluster model tracks GPUs in a 64-bit mask)
//   model       GPU model; empty iff gpu is 0. One of G1 G2 G3 P100 T4 V100M16 V100M32 A10,
//               compared case-sensitively, exactly as the trace writes them.
//
// Mapping to Topology (see trace_topology.hpp for what every imported topology shares):
//   - catalog: GpuCatalog::with_defaults() plus add_openb_gpu_types(); every trace model is a
//     catalog key of the same name, so a pod's gpu_spec names can be looked up directly;
//   - one rack "openb"; GPU islands of all the node's GPUs over PCIe (the trace does not
//     disclose interconnects, and the FGD experiment does not model communication).
//
// ## Pod lists (openb_pod_list_*.csv)
//
// Header row required; columns in any order, no others. Required:
//   name         pod name, non-empty, unique in the file
//   cpu_milli    CPU request in milli-cores, 0..10^9
//   memory_mib   memory request in MiB, 0..2^26
//   num_gpu      GPUs requested, 0..64
//   gpu_milli    milli-GPU requested on each of those GPUs, 0..1000; 0 iff num_gpu is 0,
//                1000 when num_gpu > 1 (a multi-GPU pod takes whole GPUs). Every row of every
//                published list obeys these rules, so they are enforced, not relaxed.
// Optional (the 11-column lists have them; the multigpu lists have only the five above):
//   gpu_spec        allowed GPU models separated by '|' ("V100M16|V100M32"); empty = any.
//                   Each name must be non-empty; names are kept as written (not checked
//                   against a catalog) and repeats are dropped, first occurrence kept.
//   qos             QoS class as written (LS, BE, Burstable, Guaranteed in the trace)
//   pod_phase       phase at trace time as written (Running, Pending, Succeeded, Failed)
//   creation_time   seconds from the trace start, 0..10^12
//   deletion_time   seconds from the trace start, 0..10^12
//   scheduled_time  seconds from the trace start, 0..10^12; empty for pods never scheduled
//                   (the trace's Pending pods), read as -1
//
// ## Errors
//
// Files that cannot be read throw FileError. Malformed content throws InputError
// "file:line:col: column: message" (CsvReader positions: 1-based, column = byte where the
// field starts). Missing required columns: "file:1: column: missing column ...".

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/cluster/topology.hpp"

namespace gantry {

// One pod of an openb pod list, in the trace's units converted to Gantry's.
struct TracePod {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_bytes = 0;             // memory_mib * 2^20
  int32_t num_gpu = 0;                  // 0, 1, 2, 4, 8 in the published lists
  int32_t gpu_milli = 0;                // per-GPU milli: 1..1000; 0 when num_gpu == 0
  std::vector<std::string> gpu_models;  // from gpu_spec; empty = any model
  std::string qos;                      // empty when the file has no qos column
  std::string pod_phase;                // empty when the file has no pod_phase column
  // Seconds from the trace start; 0 when the file lacks the column. scheduled_s is -1 for a
  // pod the trace never scheduled (empty scheduled_time).
  int64_t creation_s = 0, deletion_s = 0, scheduled_s = 0;

  bool operator==(const TracePod&) const = default;
};

// Adds the openb GPU models the default catalog lacks (V100M16, V100M32, P100, G1, G2, G3;
// T4 and A10 are already there). Figures and sources in trace_topology.hpp.
void add_openb_gpu_types(GpuCatalog& catalog);

// The GPU model names openb node lists may use, in catalog-key spelling.
const std::vector<std::string>& openb_gpu_models();

// Reads a node list file. Throws FileError or InputError.
Topology load_openb_nodes(const std::string& path);
// Parses node-list text; `file_name` only labels errors.
Topology load_openb_nodes_text(std::string_view text, const std::string& file_name);

// Reads a pod list file (11- or 5-column form), pods in file order.
std::vector<TracePod> load_openb_pods(const std::string& path);
std::vector<TracePod> load_openb_pods_text(std::string_view text, const std::string& file_name);

}  // namespace gantry
