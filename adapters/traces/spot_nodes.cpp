#include "adapters/traces/spot_nodes.hpp"

#include <utility>
#include <vector>

#include "adapters/traces/csv_reader.hpp"
#include "adapters/traces/trace_topology.hpp"

namespace gantry {

namespace {
constexpr const char* kUndisclosedSpotType =
    "undisclosed GPU type of the spot-GPU trace (ASPLOS'26)";

const std::vector<TraceGpuModel>& spot_model_mapping() {
  static const std::vector<TraceGpuModel> kMapping = {{"A100-SXM4-80GB", "A100-80G"},
                                                      {"A800-SXM4-80GB", "A800-80G"},
                                                      {"H800", "H800"},
                                                      {"A10", "A10"},
                                                      {"GPU-series-1", "GPU-series-1"},
                                                      {"GPU-series-2", "GPU-series-2"}};
  return kMapping;
}
}  // namespace

Topology load_spot_nodes(const std::string& path) {
  const std::string text = read_trace_file(path);
  return load_spot_nodes_text(text, path);
}

Topology load_spot_nodes_text(std::string_view text, const std::string& file_name) {
  CsvReader csv(text, file_name);
  csv.read_header({"gpu_model", "gpu_capacity_num", "cpu_num", "node_name"});
  const int model = csv.require_column("gpu_model");
  const int gpu = csv.require_column("gpu_capacity_num");
  const int cpu = csv.require_column("cpu_num");
  const int node = csv.require_column("node_name");

  GpuCatalog catalog = GpuCatalog::with_defaults();
  catalog.add(a800_gpu_type());
  catalog.add(undisclosed_gpu_type("GPU-series-1", kUndisclosedSpotType));
  catalog.add(undisclosed_gpu_type("GPU-series-2", kUndisclosedSpotType));
  TopologyBuilder builder(std::move(catalog), "spot-gpu");
  while (csv.next()) {
    const std::string name(csv.text(node));
    if (name.empty()) csv.fail(node, "node name must not be empty");
    if (builder.has_node(name)) csv.fail(node, "duplicate node name " + CsvReader::quote(name));
    const int64_t vcpus = csv.integer(cpu, 0, kMaxCpuCores);
    const auto gpus = static_cast<int32_t>(csv.integer(gpu, 0, kMaxGpusPerNode));
    GpuTypeId type = -1;
    IslandLink link = IslandLink::kPCIe;
    if (gpus > 0) {
      if (csv.text(model).empty()) csv.fail(model, "a node with GPUs needs a GPU model");
      type = find_trace_gpu_model(csv, model, spot_model_mapping(), builder.catalog());
      if (builder.catalog().at(type).nvlink_bytes_per_s > 0) link = IslandLink::kNVSwitch;
    } else if (!csv.text(model).empty()) {
      csv.fail(model,
               "must be empty on a node without GPUs, got " + CsvReader::quote(csv.text(model)));
    }
    builder.add_node(name, vcpus * 1000, /*memory_bytes=*/-1, gpus, type, link);
  }
  return builder.finish();
}

}  // namespace gantry
