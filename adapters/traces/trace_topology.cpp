#include "adapters/traces/trace_topology.hpp"

#include <cassert>

#include "adapters/traces/csv_reader.hpp"
#include "engine/core/units.hpp"

namespace gantry {

namespace {
constexpr double kGBps = 1e9;

// The same defaults as sim/cluster_loader.cpp, with the same sources: kernel TCP pays tens of
// microseconds per message for the socket stack; NVLink peer copies start in about 2 us, PCIe
// peer traffic crosses a switch or the root complex and takes a few more.
constexpr double kTcpLatencyS = 50e-6;
constexpr double kNvlinkLatencyS = 2e-6;
constexpr double kPcieLatencyS = 5e-6;

GpuType v100_with_memory(std::string name, int64_t memory_bytes, const char* variant) {
  const GpuCatalog defaults = GpuCatalog::with_defaults();
  GpuType t = defaults.at(defaults.find("V100"));
  t.name = std::move(name);
  t.memory_bytes = memory_bytes;
  t.source = std::string("NVIDIA V100 datasheet (") + variant +
             "): FP16 tensor 125 TFLOPS, NVLink 300 GB/s on SXM2, PCIe Gen3; the catalog's V100 "
             "figures with this memory size";
  return t;
}
}  // namespace

GpuType v100_16g_gpu_type() { return v100_with_memory("V100M16", 16 * kGiB, "16GB"); }
GpuType v100_32g_gpu_type() { return v100_with_memory("V100M32", 32 * kGiB, "32GB"); }

GpuType p100_gpu_type() {
  return {"P100",
          16 * kGiB,
          21.2 / 312.0,
          80 * kGBps,
          16 * kGBps,
          "NVIDIA Tesla P100 datasheet (SXM2): FP16 21.2 TFLOPS, 16GB HBM2, NVLink 160 GB/s, "
          "PCIe Gen3"};
}

GpuType a800_gpu_type() {
  return {"A800-80G",
          80 * kGiB,
          1.0,
          200 * kGBps,
          32 * kGBps,
          "NVIDIA A800 SXM4 80GB: A100 compute (BF16 dense 312 TFLOPS) with NVLink cut to "
          "400 GB/s, PCIe Gen4"};
}

GpuType undisclosed_gpu_type(std::string name, std::string source) {
  // Relative compute 1.0 and 16 GB/s are placeholders, not measurements: a scenario that
  // cares about speed on these GPUs should override them. PCIe Gen3 x16 matches the other
  // types of the traces' era (T4, P100, V100), and a non-zero figure keeps step times finite.
  return {std::move(name),
          0,
          1.0,
          0,
          16 * kGBps,
          std::move(source) + "; relative compute 1.0 and PCIe Gen3 x16 (16 GB/s) are assumed"};
}

GpuTypeId find_trace_gpu_model(const CsvReader& csv, int col,
                               const std::vector<TraceGpuModel>& models,
                               const GpuCatalog& catalog) {
  const std::string_view name = csv.text(col);
  for (const TraceGpuModel& m : models) {
    if (m.trace_name != name) continue;
    const GpuTypeId id = catalog.find(m.catalog_name);
    assert(id >= 0);
    return id;
  }
  std::string expected;
  for (const TraceGpuModel& m : models) {
    if (!expected.empty()) expected += ", ";
    expected += m.trace_name;
  }
  csv.fail(col, "unknown GPU model " + CsvReader::quote(name) + "; expected one of " + expected +
                    " (case matters)");
}

TopologyBuilder::TopologyBuilder(GpuCatalog catalog, std::string rack) {
  topology_.gpus = std::move(catalog);
  topology_.racks.push_back(std::move(rack));
  topology_.fabric.kind = FabricKind::kTcp;
  topology_.fabric.latency_s = kTcpLatencyS;
  topology_.fabric.rack_oversubscription = 1.0;
  topology_.intra_latency.nvlink_s = kNvlinkLatencyS;
  topology_.intra_latency.pcie_s = kPcieLatencyS;
  topology_.storage.bytes_per_s = 0;
}

void TopologyBuilder::add_node(const std::string& name, int64_t cpu_milli, int64_t memory_bytes,
                               int32_t gpus, GpuTypeId gpu_type, IslandLink link) {
  assert((gpus == 0) == (gpu_type < 0));
  assert(!has_node(name));
  if (gpus == 0) link = IslandLink::kPCIe;  // irrelevant without GPUs; keeps one class per shape
  const ClassKey key{gpu_type, gpus, cpu_milli, memory_bytes, link};
  auto [it, inserted] = class_index_.emplace(key, static_cast<int32_t>(topology_.classes.size()));
  if (inserted) {
    NodeClass c;
    c.capacity.cpu_milli = cpu_milli;
    c.capacity.memory_bytes = memory_bytes < 0 ? 0 : memory_bytes;
    c.capacity.gpus = gpus;
    c.gpu_type = gpu_type;
    std::string mem_part;
    if (memory_bytes >= 0) {
      // Memory in MiB as in the traces; round up so two sizes never share a name by truncation.
      mem_part = "-" + std::to_string((memory_bytes + kMiB - 1) / kMiB) + "Mi";
    }
    if (gpus > 0) {
      const GpuType& type = topology_.gpus.at(gpu_type);
      c.name = type.name + "x" + std::to_string(gpus);
      c.island_size = gpus;
      c.island_link = link;
      c.island_bytes_per_s =
          link == IslandLink::kPCIe ? type.pcie_bytes_per_s : type.nvlink_bytes_per_s;
      c.pcie_bytes_per_s = type.pcie_bytes_per_s;
    } else {
      c.name = "cpu-only";
      c.island_size = 0;
      c.island_link = IslandLink::kPCIe;
    }
    c.name += "-" + std::to_string(cpu_milli) + "m" + mem_part;
    if (link != IslandLink::kPCIe && gpus > 0) c.name += "-" + std::string(to_string(link));
    c.nic_bytes_per_s = 0;
    topology_.classes.push_back(std::move(c));
  }
  names_.insert(name);
  topology_.nodes.push_back(NodeInfo{name, it->second, 0});
}

}  // namespace gantry
