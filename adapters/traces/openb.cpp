#include "adapters/traces/openb.hpp"

#include <algorithm>
#include <unordered_set>
#include <utility>

#include "adapters/traces/csv_reader.hpp"
#include "adapters/traces/trace_topology.hpp"

namespace gantry {

namespace {
constexpr const char* kUndisclosedOpenbType = "undisclosed internal GPU type of the openb trace";

const std::vector<TraceGpuModel>& openb_model_mapping() {
  // Every openb model is a catalog key of the same name.
  static const std::vector<TraceGpuModel> kMapping = [] {
    std::vector<TraceGpuModel> m;
    for (const std::string& name : openb_gpu_models()) m.push_back({name, name});
    return m;
  }();
  return kMapping;
}
}  // namespace

void add_openb_gpu_types(GpuCatalog& catalog) {
  catalog.add(v100_16g_gpu_type());
  catalog.add(v100_32g_gpu_type());
  catalog.add(p100_gpu_type());
  for (const char* name : {"G1", "G2", "G3"})
    catalog.add(undisclosed_gpu_type(name, kUndisclosedOpenbType));
}

const std::vector<std::string>& openb_gpu_models() {
  static const std::vector<std::string> kModels = {"A10",  "G1", "G2",      "G3",
                                                   "P100", "T4", "V100M16", "V100M32"};
  return kModels;
}

Topology load_openb_nodes(const std::string& path) {
  const std::string text = read_trace_file(path);
  return load_openb_nodes_text(text, path);
}

Topology load_openb_nodes_text(std::string_view text, const std::string& file_name) {
  CsvReader csv(text, file_name);
  csv.read_header({"sn", "cpu_milli", "memory_mib", "gpu", "model"});
  const int sn = csv.require_column("sn");
  const int cpu = csv.require_column("cpu_milli");
  const int mem = csv.require_column("memory_mib");
  const int gpu = csv.require_column("gpu");
  const int model = csv.require_column("model");

  GpuCatalog catalog = GpuCatalog::with_defaults();
  add_openb_gpu_types(catalog);
  TopologyBuilder builder(std::move(catalog), "openb");
  while (csv.next()) {
    const std::string name(csv.text(sn));
    if (name.empty()) csv.fail(sn, "node name must not be empty");
    if (builder.has_node(name)) csv.fail(sn, "duplicate node name " + CsvReader::quote(name));
    const int64_t cpu_milli = csv.integer(cpu, 0, kMaxCpuMilli);
    const int64_t memory_mib = csv.integer(mem, 0, kMaxMemoryMib);
    const auto gpus = static_cast<int32_t>(csv.integer(gpu, 0, kMaxGpusPerNode));
    GpuTypeId type = -1;
    if (gpus > 0) {
      if (csv.text(model).empty()) csv.fail(model, "a node with GPUs needs a GPU model");
      type = find_trace_gpu_model(csv, model, openb_model_mapping(), builder.catalog());
    } else if (!csv.text(model).empty()) {
      csv.fail(model,
               "must be empty on a node without GPUs, got " + CsvReader::quote(csv.text(model)));
    }
    builder.add_node(name, cpu_milli, memory_mib * kMiB, gpus, type, IslandLink::kPCIe);
  }
  return builder.finish();
}

std::vector<TracePod> load_openb_pods(const std::string& path) {
  const std::string text = read_trace_file(path);
  return load_openb_pods_text(text, path);
}

std::vector<TracePod> load_openb_pods_text(std::string_view text, const std::string& file_name) {
  CsvReader csv(text, file_name);
  csv.read_header({"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec", "qos",
                   "pod_phase", "creation_time", "deletion_time", "scheduled_time"});
  const int name_col = csv.require_column("name");
  const int cpu = csv.require_column("cpu_milli");
  const int mem = csv.require_column("memory_mib");
  const int num_gpu = csv.require_column("num_gpu");
  const int gpu_milli = csv.require_column("gpu_milli");
  const int gpu_spec = csv.find_column("gpu_spec");
  const int qos = csv.find_column("qos");
  const int phase = csv.find_column("pod_phase");
  const int created = csv.find_column("creation_time");
  const int deleted = csv.find_column("deletion_time");
  const int scheduled = csv.find_column("scheduled_time");

  std::vector<TracePod> pods;
  std::unordered_set<std::string> names;
  while (csv.next()) {
    TracePod pod;
    pod.name = csv.text(name_col);
    if (pod.name.empty()) csv.fail(name_col, "pod name must not be empty");
    if (!names.insert(pod.name).second)
      csv.fail(name_col, "duplicate pod name " + CsvReader::quote(pod.name));
    pod.cpu_milli = csv.integer(cpu, 0, kMaxCpuMilli);
    pod.memory_bytes = csv.integer(mem, 0, kMaxMemoryMib) * kMiB;
    pod.num_gpu = static_cast<int32_t>(csv.integer(num_gpu, 0, kMaxGpusPerNode));
    pod.gpu_milli = static_cast<int32_t>(csv.integer(gpu_milli, 0, 1000));
    if (pod.num_gpu == 0 && pod.gpu_milli != 0)
      csv.fail(gpu_milli, "a pod with num_gpu 0 takes no GPU; expected 0, got " +
                              CsvReader::quote(csv.text(gpu_milli)));
    if (pod.num_gpu == 1 && pod.gpu_milli == 0)
      csv.fail(gpu_milli, "a pod with num_gpu 1 needs 1 to 1000 milli-GPU, got '0'");
    if (pod.num_gpu > 1 && pod.gpu_milli != 1000)
      csv.fail(gpu_milli, "a pod with num_gpu " + std::to_string(pod.num_gpu) +
                              " takes whole GPUs; expected 1000, got " +
                              CsvReader::quote(csv.text(gpu_milli)));

    if (gpu_spec >= 0 && !csv.text(gpu_spec).empty()) {
      const std::string_view spec = csv.text(gpu_spec);
      size_t start = 0;
      while (true) {
        const size_t bar = spec.find('|', start);
        const std::string_view part = spec.substr(
            start, bar == std::string_view::npos ? std::string_view::npos : bar - start);
        if (part.empty())
          csv.fail(gpu_spec, "expected GPU model names separated by '|', got " +
                                 CsvReader::quote(spec) + " (an empty name)");
        if (std::find(pod.gpu_models.begin(), pod.gpu_models.end(), part) == pod.gpu_models.end())
          pod.gpu_models.emplace_back(part);
        if (bar == std::string_view::npos) break;
        start = bar + 1;
      }
    }
    if (qos >= 0) pod.qos = csv.text(qos);
    if (phase >= 0) pod.pod_phase = csv.text(phase);
    if (created >= 0) pod.creation_s = csv.integer(created, 0, kMaxTraceSeconds);
    if (deleted >= 0) pod.deletion_s = csv.integer(deleted, 0, kMaxTraceSeconds);
    if (scheduled >= 0)
      pod.scheduled_s =
          csv.text(scheduled).empty() ? -1 : csv.integer(scheduled, 0, kMaxTraceSeconds);
    pods.push_back(std::move(pod));
  }
  return pods;
}

}  // namespace gantry
