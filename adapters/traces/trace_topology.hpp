#pragma once
// What the node-list importers share: GPU types the public traces name but the default catalog
// lacks, and a builder that turns node rows into a Topology.
//
// Shape of every imported Topology (the traces describe nodes, nothing else):
//   - one NodeClass per distinct (GPU type, GPU count, CPU, memory, island link), in order of
//     first appearance; class names are "<gpu type>x<gpus>-<cpu_milli>m-<memory MiB>Mi" or
//     "cpu-only-<cpu_milli>m-<memory MiB>Mi" (memory omitted when the trace has none; a
//     "-NVSwitch" suffix on classes with NVSwitch islands);
//   - nodes in file order, all in one rack named after the trace;
//   - GPU nodes form one island of all their GPUs. kPCIe islands use the type's PCIe figure
//     for island_bytes_per_s and pcie_bytes_per_s; kNVSwitch islands use its NVLink figure
//     inside the island;
//   - nic_bytes_per_s = 0 and storage = 0: no trace gives network or storage figures, so these
//     are unmodelled until a scenario sets them (the step-time model treats a zero link it
//     needs as infinitely slow, so multi-node jobs need a NIC figure first);
//   - fabric TCP with the scenario loader's TCP latency, intra-node latencies likewise
//     (same figures and sources as sim/cluster_loader.cpp).

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_set>
#include <vector>

#include "engine/cluster/topology.hpp"

namespace gantry {

// Limits on trace values. They keep every product in range (memory in bytes, times in
// microseconds) and reject garbage early; real traces stay far below them.
inline constexpr int64_t kMiB = 1024ll * 1024;
inline constexpr int64_t kMaxCpuMilli = 1'000'000'000;  // a million cores, as sim/ allows
inline constexpr int64_t kMaxCpuCores = kMaxCpuMilli / 1000;
inline constexpr int64_t kMaxMemoryMib = 1ll << 26;  // 64 TiB, as sim/ allows
inline constexpr int64_t kMaxGpusPerNode = 64;       // Cluster tracks GPUs in a 64-bit mask
inline constexpr int64_t kMaxTraceSeconds = 1'000'000'000'000;  // ~31,700 years; fits Time in us

// GPU types of the public traces, each with its source. Names are the catalog keys.
GpuType v100_16g_gpu_type();  // "V100M16": V100 figures, 16 GiB
GpuType v100_32g_gpu_type();  // "V100M32": V100 figures, 32 GiB
GpuType p100_gpu_type();      // "P100": 16 GiB, FP16 21.2 TFLOPS (SXM2 datasheet)
GpuType a800_gpu_type();      // "A800-80G": A100 compute, NVLink 400 GB/s
// A type whose model the trace does not disclose: relative compute 1.0, memory 0 (unknown),
// no NVLink, PCIe Gen3 x16 assumed. `source` says which trace and why.
GpuType undisclosed_gpu_type(std::string name, std::string source);

class CsvReader;

// A GPU model name as a trace spells it, and the catalog key it maps to.
struct TraceGpuModel {
  std::string_view trace_name;
  std::string_view catalog_name;
};
// The catalog id of the model in field `col` of the current record. The trace name must match
// one of `models` exactly (case-sensitively, unlike GpuCatalog::find); otherwise InputError at
// the field, listing the known names. Every catalog_name must be in `catalog` (asserted).
GpuTypeId find_trace_gpu_model(const CsvReader& csv, int col,
                               const std::vector<TraceGpuModel>& models, const GpuCatalog& catalog);

class TopologyBuilder {
 public:
  // Starts from `catalog` (the caller adds the trace's types first); all nodes go to one rack
  // named `rack`.
  TopologyBuilder(GpuCatalog catalog, std::string rack);

  const GpuCatalog& catalog() const { return topology_.gpus; }
  bool has_node(const std::string& name) const { return names_.count(name) > 0; }

  // Appends a node. gpu_type is -1 iff gpus == 0. `name` must not be taken (has_node).
  // memory_bytes < 0 means the trace gives no memory: capacity 0, and the class name omits it.
  void add_node(const std::string& name, int64_t cpu_milli, int64_t memory_bytes, int32_t gpus,
                GpuTypeId gpu_type, IslandLink link);

  // The finished topology; the builder is spent.
  Topology finish() { return std::move(topology_); }

 private:
  using ClassKey = std::tuple<GpuTypeId, int32_t, int64_t, int64_t, IslandLink>;
  Topology topology_;
  std::map<ClassKey, int32_t> class_index_;
  std::unordered_set<std::string> names_;
};

}  // namespace gantry
