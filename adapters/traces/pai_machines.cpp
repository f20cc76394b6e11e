#include "adapters/traces/pai_machines.hpp"

#include <utility>
#include <vector>

#include "adapters/traces/csv_reader.hpp"
#include "adapters/traces/trace_topology.hpp"
#include "engine/core/units.hpp"

namespace gantry {

namespace {
constexpr int64_t kMaxMemoryGb = kMaxMemoryMib / 1024;

const std::vector<TraceGpuModel>& pai_model_mapping() {
  static const std::vector<TraceGpuModel> kMapping = {{"MISC", "MISC"},
                                                      {"P100", "P100"},
                                                      {"T4", "T4"},
                                                      {"V100", "V100M16"},
                                                      {"V100M32", "V100M32"}};
  return kMapping;
}

const std::vector<std::string>& pai_columns() {
  static const std::vector<std::string> kColumns = {"machine", "gpu_type", "cap_cpu", "cap_mem",
                                                    "cap_gpu"};
  return kColumns;
}

bool is_header_row(const CsvReader& csv) {
  for (size_t i = 0; i < pai_columns().size(); ++i)
    if (csv.text(static_cast<int>(i)) != pai_columns()[i]) return false;
  return true;
}
}  // namespace

Topology load_pai_machines(const std::string& path) {
  const std::string text = read_trace_file(path);
  return load_pai_machines_text(text, path);
}

Topology load_pai_machines_text(std::string_view text, const std::string& file_name) {
  CsvReader csv(text, file_name);
  csv.use_columns(pai_columns());
  constexpr int kMachine = 0, kGpuType = 1, kCpu = 2, kMem = 3, kGpu = 4;

  GpuCatalog catalog = GpuCatalog::with_defaults();
  // MISC groups older generations (K40m, K80, M60): no tensor cores and about 4.4 TFLOPS FP32
  // per GPU (NVIDIA Tesla K80 datasheet: 8.73 TFLOPS per two-GPU board; K40m 4.29; M60 4.8
  // per GPU), so 4.4 / 312 of the A100 reference, 12 GB (K80 per GPU, K40m), PCIe Gen3.
  catalog.add(GpuType{"MISC", 12ll << 30, 4.4 / 312.0, 0, 16e9,
                      "older GPU generations the PAI 2020 trace groups as MISC (K40m, K80, "
                      "M60): about 4.4 TFLOPS FP32 per GPU (Tesla K80/K40m/M60 datasheets), "
                      "12 GB, PCIe Gen3"});
  catalog.add(p100_gpu_type());
  catalog.add(v100_16g_gpu_type());
  catalog.add(v100_32g_gpu_type());
  TopologyBuilder builder(std::move(catalog), "pai");
  bool first = true;
  while (csv.next()) {
    if (std::exchange(first, false) && is_header_row(csv)) continue;
    const std::string name(csv.text(kMachine));
    if (name.empty()) csv.fail(kMachine, "machine name must not be empty");
    if (builder.has_node(name))
      csv.fail(kMachine, "duplicate machine name " + CsvReader::quote(name));
    const int64_t cores = csv.integer(kCpu, 0, kMaxCpuCores);
    const int64_t memory_gb = csv.integer(kMem, 0, kMaxMemoryGb);
    const auto gpus = static_cast<int32_t>(csv.integer(kGpu, 0, kMaxGpusPerNode));
    GpuTypeId type = -1;
    if (csv.text(kGpuType) == "CPU") {
      if (gpus != 0)
        csv.fail(kGpu, "a machine of gpu_type CPU has no GPU; expected 0, got " +
                           CsvReader::quote(csv.text(kGpu)));
    } else {
      type = find_trace_gpu_model(csv, kGpuType, pai_model_mapping(), builder.catalog());
      if (gpus == 0)
        csv.fail(kGpu, "a machine of gpu_type " + CsvReader::quote(csv.text(kGpuType)) +
                           " needs at least one GPU, got '0'");
    }
    builder.add_node(name, cores * 1000, memory_gb * kGiB, gpus, type, IslandLink::kPCIe);
  }
  return builder.finish();
}

}  // namespace gantry
