#pragma once
// Importer for the machine list of Alibaba's PAI GPU cluster trace (cluster-trace-gpu-v2020;
// Weng et al., "MLaaS in the Wild", NSDI'22). Data and terms: scenarios/data/README.md.
//
// ## pai_machine_spec.csv
//
// The published file has no header row; its columns (pai_machine_spec.header upstream) are,
// in this order:
//   machine   machine name, non-empty, unique in the file
//   gpu_type  CPU (no GPU) or the GPU model: MISC, P100, T4, V100, V100M32 (case-sensitive)
//   cap_cpu   CPU cores, 0..10^6
//   cap_mem   memory in GB, 0..65536; read as GiB (2^30 bytes), as the binary sizes in the
//             file (384, 512) suggest
//   cap_gpu   GPUs, 0..64; 0 iff gpu_type is CPU
// A first row that spells exactly these five names is taken as a header and skipped.
//
// ## Mapping to Topology (see trace_topology.hpp for what every imported topology shares)
//
//   gpu_type  catalog type  why
//   MISC      "MISC"        older generations the trace groups together (its README names
//                           K40m, K80, M60): undisclosed_gpu_type()
//   P100      "P100"        p100_gpu_type()
//   T4        "T4"          the default catalog's T4
//   V100      "V100M16"     the trace lists V100M32 separately, so plain V100 is the 16 GB part
//   V100M32   "V100M32"     v100_32g_gpu_type()
// One rack "pai"; GPU islands of all the machine's GPUs over PCIe (the trace does not disclose
// interconnects). Errors: FileError if the file cannot be read; InputError
// "file:line:col: column: message" otherwise.

#include <string>
#include <string_view>

#include "engine/cluster/topology.hpp"

namespace gantry {

Topology load_pai_machines(const std::string& path);
// Parses machine-spec text; `file_name` only labels errors.
Topology load_pai_machines_text(std::string_view text, const std::string& file_name);

}  // namespace gantry
