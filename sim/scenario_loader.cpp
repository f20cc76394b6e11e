#include "sim/scenario_loader.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

#include "engine/config/envelope.hpp"
#include "engine/config/resource_fields.hpp"
#include "engine/config/quote.hpp"
#include "engine/policy/plugin_registry.hpp"
#include "sim/fragmentation_spec_loader.hpp"
#include "sim/gang_fit.hpp"
#include "sim/placement_constraints_loader.hpp"

namespace gantry {

namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min();

// A node's GPUs are tracked in a 64-bit mask (Cluster::free_gpu_mask).
constexpr int64_t kMaxGpusPerNode = 64;

// Typo guards. Each keeps a slip of the keyboard ("nodes: 1000000000") from exhausting memory
// or overflowing the int64 sums in Cluster and JobSpec, while staying far above real systems:
// the largest GPU clusters reported publicly are around 100k GPUs (12.5k 8-GPU nodes).
constexpr int64_t kMaxNodes = 100'000;              // whole cluster
constexpr int64_t kMaxReplicas = 10'000;            // pods of one role
// Jobs of a whole workload, explicit and generated: each costs about 600 bytes while it runs
// plus its rows in results.db, so a million is about 1 GB; scale-100k.yaml has 100,000.
constexpr int64_t kMaxJobs = 1'000'000;
// Steps of one job: 10^12 one-microsecond steps are eleven days; more is surely a typo.
constexpr int64_t kMaxSteps = 1'000'000'000'000;
// relativeCompute (A100 = 1): the catalog spans 0.2 (T4) to 3.2 (H100); a factor of 1000
// either way covers any real part, and keeps step times within int64 microseconds.
constexpr double kMinRelativeCompute = 0.001;
constexpr double kMaxRelativeCompute = 1000;
// Latencies (fabric, NVLink, PCIe) are microseconds in practice; a second is surely a typo.
constexpr Duration kMaxLatency = seconds(1);
// Pod start-up is seconds to minutes; a day is surely a typo.
constexpr Duration kMaxPodStartup = days(1);

// Defaults, each with its source.
//
// Fabric latency α per ring step: the order of magnitude of small-message latencies that
// MPI and NCCL benchmarks report on each fabric (InfiniBand HDR/NDR: a few microseconds end to
// end; RoCEv2 adds switch and NIC processing; kernel TCP pays for the socket stack and
// interrupts, tens of microseconds).
constexpr Duration kInfiniBandLatency = microseconds(5);
constexpr Duration kRoceLatency = microseconds(10);
constexpr Duration kTcpLatency = microseconds(50);
// Intra-node α: NVLink peer-to-peer copies start in about 2 us; PCIe peer traffic crosses a
// PCIe switch or the CPU root complex and takes a few microseconds more.
constexpr Duration kNvlinkLatency = microseconds(2);
constexpr Duration kPcieLatency = microseconds(5);
constexpr const char* kDefaultStart = "2026-01-01T00:00:00Z";

double read_positive_bandwidth(const ConfigNode& n) {
  const double v = n.as_bandwidth();
  if (!(v > 0)) n.fail("a bandwidth must be greater than zero");
  return v;
}

Duration read_positive_duration(const ConfigNode& n) {
  const Duration d = n.as_duration();
  if (d <= Duration(0)) n.fail("expected a duration greater than zero");
  return d;
}

Duration read_latency(const ConfigNode& n) { return n.as_duration(kMaxLatency); }

const std::string kLatestText = format_rfc3339(kLatestTime);

// start + offset, refusing instants past the last one Gantry simulates.
Time offset_time(const ConfigNode& n, Time start, Duration offset) {
  const std::optional<Time> t = checked_add(start, offset);
  if (!t || *t > kLatestTime)
    n.fail("the offset puts the instant past " + kLatestText +
           ", the latest instant Gantry simulates");
  return *t;
}

// A span of seconds for messages: "475646 years", "3.2 days".
std::string describe_seconds(double s) {
  char buf[64];
  if (s >= 365.25 * 86400)
    std::snprintf(buf, sizeof buf, "%.0f years", s / (365.25 * 86400));
  else
    std::snprintf(buf, sizeof buf, "%.1f days", s / 86400);
  return buf;
}

// The fastest relative compute among the node classes a job may use (of `type`, or any with
// GPUs): no placement computes a step faster than step_compute_ref / this.
double fastest_compute(const Topology& topology, GpuTypeId type) {
  double best = 0;
  for (const NodeClass& c : topology.classes)
    if (c.gpu_type >= 0 && (type < 0 || c.gpu_type == type))
      best = std::max(best, topology.gpus.at(c.gpu_type).relative_compute);
  return best > 0 ? best : 1.0;  // CPU-only: the reference speed (sim/step_time.hpp)
}

// A job submitted at `submit` must be able to finish by kLatestTime: its compute alone
// (steps × step time on the fastest GPU it may get, a lower bound of its run time) must fit.
void check_job_ends_in_range(const ConfigNode& steps_node, Time submit, int64_t steps,
                             Duration step_compute, double relative_compute) {
  const double run_s = static_cast<double>(steps) * step_compute.seconds() / relative_compute;
  const double room_s = (kLatestTime - submit).seconds();
  char speed[32];
  std::snprintf(speed, sizeof speed, "%g", relative_compute);
  if (run_s > room_s)
    steps_node.fail("the job would compute for at least " + describe_seconds(run_s) + " (" +
                    std::to_string(steps) + " steps × stepCompute " +
                    format_duration(step_compute) + " on GPUs of relative compute " + speed +
                    ") and end after " + kLatestText + ", the latest instant Gantry simulates");
}

std::string known_types(const GpuCatalog& catalog) {
  std::string out;
  for (const GpuType& t : catalog.types()) out += (out.empty() ? "" : ", ") + t.name;
  return out;
}

GpuTypeId read_gpu_type(const ConfigNode& n, const GpuCatalog& catalog) {
  const std::string name = n.as_name();
  const GpuTypeId id = catalog.find(name);
  if (id < 0)
    n.fail("unknown GPU type " + quote_for_message(name) + "; known types: " +
           known_types(catalog) + " (add others under spec.cluster.gpuTypes)");
  return id;
}

// Whether one pod of `request` fits an empty node of some class (of GPU type `type` when the
// pod asks for GPUs and `type` >= 0). A pod that fits nowhere would wait forever.
bool fits_somewhere(const Topology& topology, const Resources& request, GpuTypeId type) {
  return std::any_of(topology.classes.begin(), topology.classes.end(), [&](const NodeClass& c) {
    if (request.gpus > 0 && type >= 0 && c.gpu_type != type) return false;
    return request.fits_in(c.capacity);
  });
}

void check_fits(const ConfigNode& where, const Topology& topology, const Resources& request,
                GpuTypeId type) {
  if (fits_somewhere(topology, request, type)) return;
  std::string message = "no node class can hold one pod of " + describe_request(request);
  if (type >= 0 && request.gpus > 0) message += " on GPU type " + topology.gpus.at(type).name;
  where.fail(message);
}

void check_gang_fits(const ConfigNode& where, const std::string& job, const Topology& topology,
                     const std::vector<int64_t>& nodes_of, const std::vector<RoleSpec>& roles,
                     GpuTypeId type) {
  const std::string misfit = gang_misfit(topology, nodes_of, roles, type);
  if (!misfit.empty())
    where.fail("job " + quote_for_message(job) + " can never start: it needs " + misfit);
}

// ---- cluster ----

void read_gpu_types(const ConfigNode& list, GpuCatalog& catalog) {
  std::map<std::string, int> seen;  // lower-cased: the catalog compares names that way
  for (const ConfigNode& item : list.as_sequence()) {
    const ConfigMap m = item.as_map({"name", "memory", "relativeCompute", "nvlink", "pcie", "source"});
    const ConfigNode name_node = m.required("name");
    const std::string name = name_node.as_name();
    std::string key = name;
    std::transform(key.begin(), key.end(), key.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (!seen.emplace(key, name_node.location().line).second)
      name_node.fail("GPU type " + quote_for_message(name) + " is listed twice");

    const GpuTypeId existing = catalog.find(name);
    GpuType type;
    if (existing >= 0) {
      type = catalog.at(existing);  // override only the figures given
    } else {
      // A new type has no catalog figures to fall back on.
      for (std::string_view required : {"memory", "relativeCompute", "pcie"})
        m.required(required);
      type.source = "scenario file " + item.file();
    }
    type.name = name;
    if (auto n = m.optional("memory")) type.memory_bytes = n->as_bytes(kMaxMemory);
    if (auto n = m.optional("relativeCompute"))
      type.relative_compute = n->as_double(kMinRelativeCompute, kMaxRelativeCompute);
    if (auto n = m.optional("nvlink")) type.nvlink_bytes_per_s = n->as_bandwidth();
    if (auto n = m.optional("pcie")) type.pcie_bytes_per_s = read_positive_bandwidth(*n);
    if (auto n = m.optional("source")) type.source = n->as_string();
    else if (existing >= 0) type.source += "; overridden in " + item.file();
    catalog.add(std::move(type));
  }
}

Fabric read_fabric(const ConfigNode& node) {
  const ConfigMap m = node.as_map({"kind", "latency", "rackOversubscription"});
  Fabric f;
  f.kind = m.required("kind").as_enum<FabricKind>(
      {{"InfiniBand", FabricKind::kInfiniBand}, {"RoCE", FabricKind::kRoCE}, {"TCP", FabricKind::kTcp}});
  Duration latency = f.kind == FabricKind::kInfiniBand ? kInfiniBandLatency
                     : f.kind == FabricKind::kRoCE     ? kRoceLatency
                                                       : kTcpLatency;
  if (auto n = m.optional("latency")) latency = read_latency(*n);
  f.latency_s = latency.seconds();
  if (auto n = m.optional("rackOversubscription")) f.rack_oversubscription = n->as_double(1, 1000);
  return f;
}

NodeClass read_node_class(const ConfigMap& m, const GpuCatalog& catalog) {
  NodeClass c;
  c.name = m.required("name").as_name();
  c.capacity.cpu_milli = read_cpu(m.required("cpu"));
  c.capacity.memory_bytes = read_memory(m.required("memory"));

  const std::optional<ConfigNode> gpu = m.optional("gpu");
  if (!gpu) {
    if (auto n = m.optional("pcieBandwidth"))
      n->fail("pcieBandwidth applies to GPU node classes; this class has no gpu block");
    // CPU-only pods do not all-reduce in the model, so the NIC figure is optional here.
    if (auto n = m.optional("nic")) c.nic_bytes_per_s = read_positive_bandwidth(*n);
    c.island_size = 0;
    return c;
  }

  const ConfigMap g = gpu->as_map({"type", "count", "islandSize", "link", "islandBandwidth"});
  c.gpu_type = read_gpu_type(g.required("type"), catalog);
  const GpuType& type = catalog.at(c.gpu_type);
  const ConfigNode count_node = g.required("count");
  c.capacity.gpus = static_cast<int32_t>(count_node.as_int(1, kMaxGpusPerNode));

  // Without `link`, a type with NVLink figures is taken to sit on an NVSwitch board (how SXM
  // parts ship), and one without on PCIe.
  c.island_link = type.nvlink_bytes_per_s > 0 ? IslandLink::kNVSwitch : IslandLink::kPCIe;
  if (auto n = g.optional("link"))
    c.island_link = n->as_enum<IslandLink>({{"NVSwitch", IslandLink::kNVSwitch},
                                            {"NVLink", IslandLink::kNVLink},
                                            {"PCIe", IslandLink::kPCIe}});
  const bool nvlink = c.island_link != IslandLink::kPCIe;

  c.island_size = nvlink ? c.capacity.gpus : 1;
  if (auto n = g.optional("islandSize")) {
    c.island_size = static_cast<int>(n->as_int(1, kMaxGpusPerNode));
    if (c.capacity.gpus % c.island_size != 0)
      n->fail("count (" + std::to_string(c.capacity.gpus) + ") must be a multiple of islandSize (" +
              std::to_string(c.island_size) + ")");
  }

  if (auto n = g.optional("islandBandwidth")) {
    c.island_bytes_per_s = read_positive_bandwidth(*n);
  } else {
    c.island_bytes_per_s = nvlink ? type.nvlink_bytes_per_s : type.pcie_bytes_per_s;
    if (!(c.island_bytes_per_s > 0))
      gpu->fail("GPU type " + type.name + " has no " + (nvlink ? "NVLink" : "PCIe") +
                " bandwidth in the catalog; set islandBandwidth" +
                (nvlink ? " or use link: PCIe" : ""));
  }

  c.pcie_bytes_per_s = type.pcie_bytes_per_s;
  if (auto n = m.optional("pcieBandwidth")) c.pcie_bytes_per_s = read_positive_bandwidth(*n);
  c.nic_bytes_per_s = read_positive_bandwidth(m.required("nic"));
  return c;
}

}  // namespace

// `cluster: {trace: {format, file}, nic: 100Gbps, memory: 512Gi, fabric: ..., storage: ...}`:
// the nodes of a public trace, with the figures traces do not record given here: `nic` for
// every node, `memory` for nodes whose trace gives none (the spot-GPU list). The trace's
// defaults stay where the scenario says nothing (adapters/traces/trace_topology.hpp).
Topology read_trace_cluster(const ConfigMap& m, const ClusterTraceLoader& traces) {
  for (std::string_view key : {"nodeClasses", "racks", "gpuTypes"})
    if (auto other = m.optional(key))
      other->fail("a cluster read from a trace takes its nodes from the trace; remove " +
                  std::string(key));
  const ConfigNode trace = m.required("trace");
  const TraceRef ref = read_trace_ref(trace, {"openb-nodes", "pai-machines", "spot-nodes"});
  if (!traces) trace.fail("this program cannot read cluster traces");
  Topology t = traces(ref);
  if (auto n = m.optional("fabric")) t.fabric = read_fabric(*n);
  if (auto n = m.optional("intraNodeLatency")) {
    const ConfigMap l = n->as_map({"nvlink", "pcie"});
    if (auto v = l.optional("nvlink")) t.intra_latency.nvlink_s = read_latency(*v).seconds();
    if (auto v = l.optional("pcie")) t.intra_latency.pcie_s = read_latency(*v).seconds();
  }
  if (auto n = m.optional("storage")) {
    const ConfigMap storage = n->as_map({"bandwidth"});
    t.storage.bytes_per_s = read_positive_bandwidth(storage.required("bandwidth"));
  }
  if (auto n = m.optional("nic")) {
    const double nic = read_positive_bandwidth(*n);
    for (NodeClass& c : t.classes) c.nic_bytes_per_s = nic;
  }
  if (auto n = m.optional("memory")) {
    const int64_t memory = read_memory(*n);
    for (NodeClass& c : t.classes)
      if (c.capacity.memory_bytes == 0) c.capacity.memory_bytes = memory;
  }
  return t;
}

Topology read_cluster(const ConfigNode& cluster, const ClusterTraceLoader& traces) {
  const ConfigMap m = cluster.as_map({"gpuTypes", "fabric", "intraNodeLatency", "storage",
                                      "nodeClasses", "racks", "trace", "nic", "memory"});
  if (m.has("trace")) return read_trace_cluster(m, traces);
  for (std::string_view key : {"nic", "memory"})
    if (auto n = m.optional(key))
      n->fail(std::string(key) + " applies to a cluster read from a trace; give each node class its own");
  Topology t;
  t.gpus = GpuCatalog::with_defaults();
  if (auto n = m.optional("gpuTypes")) read_gpu_types(*n, t.gpus);

  t.fabric = read_fabric(m.required("fabric"));

  t.intra_latency.nvlink_s = kNvlinkLatency.seconds();
  t.intra_latency.pcie_s = kPcieLatency.seconds();
  if (auto n = m.optional("intraNodeLatency")) {
    const ConfigMap l = n->as_map({"nvlink", "pcie"});
    if (auto v = l.optional("nvlink")) t.intra_latency.nvlink_s = read_latency(*v).seconds();
    if (auto v = l.optional("pcie")) t.intra_latency.pcie_s = read_latency(*v).seconds();
  }

  const ConfigMap storage = m.required("storage").as_map({"bandwidth"});
  t.storage.bytes_per_s = read_positive_bandwidth(storage.required("bandwidth"));

  std::map<std::string, int32_t, std::less<>> class_index;
  std::vector<Labels> class_labels;        // by class index, copied to each node of the class
  std::vector<std::vector<Taint>> class_taints;
  for (const ConfigNode& item : m.required("nodeClasses").as_sequence()) {
    const ConfigMap cm =
        item.as_map({"name", "cpu", "memory", "gpu", "pcieBandwidth", "nic", "labels", "taints"});
    NodeClass c = read_node_class(cm, t.gpus);
    class_labels.push_back(cm.optional("labels") ? read_labels(*cm.optional("labels")) : Labels{});
    class_taints.push_back(cm.optional("taints") ? read_taints(*cm.optional("taints"))
                                                 : std::vector<Taint>{});
    if (!class_index.emplace(c.name, static_cast<int32_t>(t.classes.size())).second)
      cm.required("name").fail("duplicate node class name " + quote_for_message(c.name));
    t.classes.push_back(std::move(c));
  }

  const ConfigNode racks = m.required("racks");
  std::set<std::string, std::less<>> rack_names;
  int64_t total_nodes = 0;
  for (const ConfigNode& item : racks.as_sequence()) {
    const ConfigMap r = item.as_map({"name", "class", "nodes"});
    const ConfigNode name_node = r.required("name");
    const std::string name = name_node.as_name();
    if (!rack_names.insert(name).second)
      name_node.fail("duplicate rack name " + quote_for_message(name));
    const ConfigNode class_node = r.required("class");
    const std::string class_name = class_node.as_name();
    const auto cls = class_index.find(class_name);
    if (cls == class_index.end()) {
      std::string known;
      for (const NodeClass& c : t.classes) known += (known.empty() ? "" : ", ") + c.name;
      class_node.fail("unknown node class " + quote_for_message(class_name) +
                      "; classes defined in spec.cluster.nodeClasses: " + known);
    }
    const ConfigNode nodes_node = r.required("nodes");
    const int64_t nodes = nodes_node.as_int(1, kMaxNodes);
    total_nodes += nodes;
    if (total_nodes > kMaxNodes)
      nodes_node.fail("the cluster would have more than " + std::to_string(kMaxNodes) +
                      " nodes; that is surely a typo");
    const auto rack = static_cast<RackId>(t.racks.size());
    t.racks.push_back(name);
    for (int64_t i = 0; i < nodes; ++i) {
      char suffix[32];
      std::snprintf(suffix, sizeof suffix, "-n%03lld", static_cast<long long>(i));
      t.nodes.push_back(NodeInfo{name + suffix, cls->second, rack,
                                 class_labels[static_cast<size_t>(cls->second)],
                                 class_taints[static_cast<size_t>(cls->second)]});
    }
  }
  if (t.racks.empty()) racks.fail("expected at least one rack");
  return t;
}

namespace {

// ---- workload ----

const std::initializer_list<EnumName<Framework>> kFrameworks = {
    {"PyTorch", Framework::kPyTorch}, {"TensorFlow", Framework::kTensorFlow}, {"MPI", Framework::kMPI}};

// The roles each framework's operator knows (Kubeflow PyTorchJob, TFJob, MPIJob).
std::vector<RoleKind> roles_of(Framework f) {
  switch (f) {
    case Framework::kPyTorch: return {RoleKind::kMaster, RoleKind::kWorker};
    case Framework::kTensorFlow:
      return {RoleKind::kPS, RoleKind::kChief, RoleKind::kWorker, RoleKind::kEvaluator};
    case Framework::kMPI: return {RoleKind::kLauncher, RoleKind::kWorker};
  }
  return {};
}

const char* framework_name(Framework f) {
  for (const auto& e : kFrameworks)
    if (e.value == f) return e.name.data();
  return "?";
}

// Roles the operators allow only once per job.
bool is_singleton(RoleKind r) {
  return r == RoleKind::kMaster || r == RoleKind::kChief || r == RoleKind::kLauncher;
}

struct WorkloadContext {
  const Topology& topology;
  Time start;
  std::vector<int64_t> nodes_of = nodes_per_class(topology);  // for gang_misfit
};

RoleSpec read_role(const ConfigNode& node, Framework framework, const WorkloadContext& ctx,
                   GpuTypeId gpu_type) {
  const ConfigMap m = node.as_map({"kind", "replicas", "resources"});
  RoleSpec role;
  const ConfigNode kind_node = m.required("kind");
  role.kind = kind_node.as_enum<RoleKind>({{"PS", RoleKind::kPS},
                                           {"Chief", RoleKind::kChief},
                                           {"Worker", RoleKind::kWorker},
                                           {"Evaluator", RoleKind::kEvaluator},
                                           {"Master", RoleKind::kMaster},
                                           {"Launcher", RoleKind::kLauncher}});
  const std::vector<RoleKind> allowed = roles_of(framework);
  if (std::find(allowed.begin(), allowed.end(), role.kind) == allowed.end()) {
    std::string names;
    for (RoleKind r : allowed) names += (names.empty() ? "" : ", ") + std::string(to_string(r));
    kind_node.fail("role " + std::string(to_string(role.kind)) + " is not used by " +
                   framework_name(framework) + " jobs; expected one of: " + names);
  }
  if (auto n = m.optional("replicas")) {
    role.replicas = static_cast<int>(n->as_int(1, kMaxReplicas));
    if (is_singleton(role.kind) && role.replicas != 1)
      n->fail(std::string("a job has exactly one ") + to_string(role.kind) + "; expected replicas: 1");
  }
  const ConfigNode resources_node = m.required("resources");
  const ConfigMap r = resources_node.as_map({"cpu", "memory", "gpu"});
  role.per_replica.cpu_milli = read_cpu(r.required("cpu"));
  role.per_replica.memory_bytes = read_memory(r.required("memory"));
  if (auto n = r.optional("gpu"))
    role.per_replica.gpus = static_cast<int32_t>(n->as_int(0, kMaxGpusPerNode));
  check_fits(resources_node, ctx.topology, role.per_replica, gpu_type);
  return role;
}

TrainingWork read_work(const ConfigNode& node) {
  const ConfigMap m =
      node.as_map({"steps", "stepCompute", "gradientSize", "inputPerStep", "checkpointEvery"});
  TrainingWork w;
  w.steps = m.required("steps").as_int(1, kMaxSteps);
  w.step_compute_ref = read_positive_duration(m.required("stepCompute"));
  w.gradient_bytes = m.required("gradientSize").as_bytes();
  if (auto n = m.optional("inputPerStep")) w.input_bytes_per_step = n->as_bytes();
  if (auto n = m.optional("checkpointEvery")) w.checkpoint_every = read_positive_duration(*n);
  return w;
}

// The canonical catalog name for a `gpuType:` field, checked to exist on some node.
GpuTypeId read_job_gpu_type(const ConfigNode& n, const Topology& topology) {
  const GpuTypeId id = read_gpu_type(n, topology.gpus);
  const bool present = std::any_of(topology.classes.begin(), topology.classes.end(),
                                   [&](const NodeClass& c) { return c.gpu_type == id; });
  if (!present)
    n.fail("no node class in spec.cluster has GPU type " + topology.gpus.at(id).name);
  return id;
}

// A value read from a map, with the node of its name for later cross-checks (duplicates).
template <typename T>
struct Named {
  T value;
  ConfigNode name;
};

Named<JobSpec> read_job(const ConfigNode& node, const WorkloadContext& ctx) {
  const ConfigMap m = node.as_map(
      {"name", "submit", "framework", "priority", "tenant", "gpuType", "roles", "work",
       "nodeSelector", "tolerations"});
  JobSpec job;
  const ConfigNode name = m.required("name");
  job.name = name.as_name();
  const ConfigNode submit = m.required("submit");
  job.submit = offset_time(submit, ctx.start, submit.as_duration());
  job.framework = m.required("framework").as_enum<Framework>(kFrameworks);
  if (auto n = m.optional("priority")) job.priority = static_cast<int>(n->as_int(kInt32Min, kInt32Max));
  if (auto n = m.optional("tenant")) job.tenant = n->as_name();
  GpuTypeId gpu_type = -1;
  if (auto n = m.optional("gpuType")) {
    gpu_type = read_job_gpu_type(*n, ctx.topology);
    job.gpu_type = ctx.topology.gpus.at(gpu_type).name;
  }
  const ConfigNode roles = m.required("roles");
  std::set<RoleKind> seen;
  for (const ConfigNode& item : roles.as_sequence()) {
    RoleSpec role = read_role(item, job.framework, ctx, gpu_type);
    if (!seen.insert(role.kind).second)
      item.fail(std::string("role ") + to_string(role.kind) +
                " is listed twice; use replicas for more pods");
    job.roles.push_back(role);
  }
  if (job.roles.empty()) roles.fail("a job needs at least one role");
  if (auto n = m.optional("nodeSelector")) job.node_selector = read_labels(*n);
  if (auto n = m.optional("tolerations")) job.tolerations = read_tolerations(*n);
  check_some_node_admits(m.optional("nodeSelector") ? *m.optional("nodeSelector") : name,
                         ctx.topology, job.node_selector, job.tolerations);
  check_gang_fits(roles, job.name, ctx.topology, ctx.nodes_of, job.roles, gpu_type);
  const ConfigNode work = m.required("work");
  job.work = read_work(work);
  check_job_ends_in_range(
      work.as_map({"steps", "stepCompute", "gradientSize", "inputPerStep", "checkpointEvery"})
          .required("steps"),
      job.submit, job.work.steps, job.work.step_compute_ref,
      fastest_compute(ctx.topology, gpu_type));
  return {std::move(job), name};
}

IntRange read_steps(const ConfigNode& node) {
  if (node.is_map()) {
    const ConfigMap m = node.as_map({"min", "max"});
    IntRange r{m.required("min").as_int(1, kMaxSteps), 0};
    const ConfigNode max_node = m.required("max");
    r.max = max_node.as_int(1, kMaxSteps);
    if (r.max < r.min) max_node.fail("max (" + std::to_string(r.max) + ") is below min (" +
                                     std::to_string(r.min) + ")");
    return r;
  }
  if (!node.is_scalar())
    node.fail("expected " + describe_integer(1, kMaxSteps) + " or {min: ..., max: ...}");
  const int64_t v = node.as_int(1, kMaxSteps);
  return IntRange{v, v};
}

// `last_arrival`: an estimate of the generator's last submit time, for the duration check.
JobClass read_job_class(const ConfigNode& node, const WorkloadContext& ctx, Time last_arrival) {
  const ConfigMap m = node.as_map({"weight", "gpus", "gpusPerPod", "framework", "steps",
                                   "stepCompute", "gradientSize", "inputPerStep", "cpuPerGpu",
                                   "memoryPerGpu", "priority", "tenant", "gpuType"});
  JobClass c;
  const ConfigNode weight = m.required("weight");
  c.weight = weight.as_double(0, 1e12);
  if (!(c.weight > 0)) weight.fail("a weight must be greater than zero");
  c.gpus = static_cast<int>(m.required("gpus").as_int(1, kMaxGpusPerNode * kMaxReplicas));
  if (auto n = m.optional("gpusPerPod")) {
    c.gpus_per_pod = static_cast<int>(n->as_int(1, kMaxGpusPerNode));
    if (c.gpus % c.gpus_per_pod != 0)
      n->fail("gpus (" + std::to_string(c.gpus) + ") must be a multiple of gpusPerPod (" +
              std::to_string(c.gpus_per_pod) + ")");
  } else if (c.gpus > kMaxReplicas) {
    m.required("gpus").fail("with one GPU per pod that is more than " +
                            std::to_string(kMaxReplicas) + " pods; set gpusPerPod");
  }
  if (auto n = m.optional("framework")) c.framework = n->as_enum<Framework>(kFrameworks);
  const ConfigNode steps_node = m.required("steps");
  c.steps = read_steps(steps_node);
  c.step_compute_ref = read_positive_duration(m.required("stepCompute"));
  c.gradient_bytes = m.required("gradientSize").as_bytes();
  if (auto n = m.optional("inputPerStep")) c.input_bytes_per_step = n->as_bytes();
  if (auto n = m.optional("cpuPerGpu")) c.cpu_milli_per_gpu = read_cpu(*n);
  if (auto n = m.optional("memoryPerGpu")) c.memory_bytes_per_gpu = read_memory(*n);
  if (auto n = m.optional("priority")) c.priority = static_cast<int>(n->as_int(kInt32Min, kInt32Max));
  if (auto n = m.optional("tenant")) c.tenant = n->as_name();
  GpuTypeId gpu_type = -1;
  if (auto n = m.optional("gpuType")) {
    gpu_type = read_job_gpu_type(*n, ctx.topology);
    c.gpu_type = ctx.topology.gpus.at(gpu_type).name;
  }
  // Both factors are capped (kMaxCpuMilli, kMaxMemory, 64 GPUs), so the products fit int64.
  const Resources pod{c.cpu_milli_per_gpu * c.gpus_per_pod,
                      c.memory_bytes_per_gpu * c.gpus_per_pod, c.gpus_per_pod};
  check_fits(node, ctx.topology, pod, gpu_type);
  const std::vector<RoleSpec> roles{RoleSpec{RoleKind::kWorker, c.gpus / c.gpus_per_pod, pod}};
  const std::string misfit = gang_misfit(ctx.topology, ctx.nodes_of, roles, gpu_type);
  if (!misfit.empty())
    m.required("gpus").fail("jobs of this class can never start: they need " + misfit);
  check_job_ends_in_range(steps_node, last_arrival, c.steps.max, c.step_compute_ref,
                          fastest_compute(ctx.topology, gpu_type));
  return c;
}

Named<PoissonGeneratorSpec> read_generator(const ConfigNode& node, const WorkloadContext& ctx) {
  const ConfigMap m = node.as_map({"kind", "name", "count", "meanInterarrival", "start", "mix"});
  enum class GeneratorKind { kPoisson };
  m.required("kind").as_enum<GeneratorKind>({{"Poisson", GeneratorKind::kPoisson}});
  PoissonGeneratorSpec g;
  const ConfigNode name = m.required("name");
  g.name = name.as_name();
  g.count = m.required("count").as_int(1, kMaxJobs);
  const ConfigNode mean_node = m.required("meanInterarrival");
  g.mean_interarrival = read_positive_duration(mean_node);
  Time first = ctx.start;
  if (auto n = m.optional("start")) {
    g.start = n->as_duration();
    first = offset_time(*n, ctx.start, g.start);
  }
  // Arrivals are random; their expected span is count × mean. Asking for it to end before
  // kLatestTime keeps almost every draw in range; a later draw is clamped there by the
  // generator and the job reported as never started (workload_generator.hpp).
  const double span_s = static_cast<double>(g.count) * g.mean_interarrival.seconds();
  if (span_s > (kLatestTime - first).seconds())
    mean_node.fail("the " + std::to_string(g.count) + " arrivals would span about " +
                   describe_seconds(span_s) + " (count × meanInterarrival) and go past " +
                   kLatestText + ", the latest instant Gantry simulates");
  const Time last_arrival = first + Duration::from_seconds(span_s);
  const ConfigNode mix = m.required("mix");
  for (const ConfigNode& item : mix.as_sequence())
    g.mix.push_back(read_job_class(item, ctx, last_arrival));
  if (g.mix.empty()) mix.fail("a generator needs at least one entry in its mix");
  return {std::move(g), name};
}

// Generated jobs are named "<generator>-<index>"; an explicit job named like that would make
// two jobs share a name.
bool looks_generated_by(const std::string& job, const std::string& generator) {
  if (job.size() <= generator.size() + 1 || job.compare(0, generator.size(), generator) != 0 ||
      job[generator.size()] != '-')
    return false;
  return std::all_of(job.begin() + static_cast<std::ptrdiff_t>(generator.size()) + 1, job.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

WorkloadSpec read_workload(const ConfigNode& node, const WorkloadContext& ctx) {
  const ConfigMap m = node.as_map({"jobs", "generators"});
  WorkloadSpec w;
  std::map<std::string, int, std::less<>> job_lines;
  std::vector<ConfigNode> job_name_nodes;
  if (auto jobs = m.optional("jobs")) {
    for (const ConfigNode& item : jobs->as_sequence()) {
      auto [job, name_node] = read_job(item, ctx);
      const auto [it, inserted] = job_lines.emplace(job.name, name_node.location().line);
      if (!inserted)
        name_node.fail("duplicate job name " + quote_for_message(job.name) +
                       " (first used at line " + std::to_string(it->second) + ")");
      job_name_nodes.push_back(name_node);
      w.jobs.push_back(std::move(job));
    }
  }
  if (auto generators = m.optional("generators")) {
    std::map<std::string, int, std::less<>> generator_lines;
    for (const ConfigNode& item : generators->as_sequence()) {
      auto [g, name_node] = read_generator(item, ctx);
      const auto [it, inserted] = generator_lines.emplace(g.name, name_node.location().line);
      if (!inserted)
        name_node.fail("duplicate generator name " + quote_for_message(g.name) +
                       " (first used at line " + std::to_string(it->second) + ")");
      w.generators.push_back(std::move(g));
    }
    // Each job name is split once at its last '-' and looked up among the generators, so a
    // file of many jobs and many generators costs O(jobs · log generators), not their product.
    for (size_t j = 0; j < w.jobs.size(); ++j) {
      const std::string& job = w.jobs[j].name;
      // Only the last '-' can be followed by digits alone.
      const size_t dash = job.rfind('-');
      if (dash == std::string::npos) continue;
      const auto g = generator_lines.find(std::string_view(job).substr(0, dash));
      if (g == generator_lines.end() || !looks_generated_by(job, g->first)) continue;
      job_name_nodes[j].fail("job name " + quote_for_message(job) +
                             " clashes with the jobs of generator " + quote_for_message(g->first) +
                             ", named " + g->first + "-<index>");
    }
  }
  if (w.jobs.empty() && w.generators.empty())
    node.fail("the workload has no jobs and no generators");
  int64_t total = static_cast<int64_t>(w.jobs.size());
  for (const PoissonGeneratorSpec& g : w.generators) total += g.count;
  if (total > kMaxJobs)
    node.fail("the workload has " + std::to_string(total) +
              " jobs (explicit and generated); at most " + std::to_string(kMaxJobs) +
              " are simulated at once");
  return w;
}

SchedulerConfig read_policy(const ConfigNode& node) {
  const ConfigMap m = node.as_map({"queue", "queueing", "placement"});
  SchedulerConfig p;
  if (auto n = m.optional("queue"))
    p.order = n->as_enum<QueueOrder>({{"Fifo", QueueOrder::kFifo}, {"Priority", QueueOrder::kPriority}});
  if (auto n = m.optional("queueing"))
    p.queueing = n->as_enum<Queueing>(
        {{"BestEffortFIFO", Queueing::kBestEffortFifo}, {"StrictFIFO", Queueing::kStrictFifo}});
  // Checked here so that a bad name is blamed on the file; --policy is checked by the CLI.
  if (auto n = m.optional("placement")) {
    p.placement = n->as_name();
    const std::vector<std::string> known = placement_plugin_names();
    if (std::find(known.begin(), known.end(), p.placement) == known.end()) {
      std::string list;
      for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
      n->fail("unknown placement policy " + quote_for_message(p.placement) + "; known: " + list);
    }
  }
  return p;
}

SimParameters read_sim(const ConfigNode& node) {
  const ConfigMap m = node.as_map({"podStartup"});
  SimParameters s;
  if (auto n = m.optional("podStartup")) s.pod_startup = n->as_duration(kMaxPodStartup);
  return s;
}

ScenarioSpec read_scenario(const ConfigNode& document, const ClusterTraceLoader& traces) {
  const Envelope envelope = read_envelope(document, "Scenario");
  const ConfigMap m = envelope.spec->as_map(
      {"seed", "start", "horizon", "cluster", "workload", "policy", "sim", "experiment"});
  ScenarioSpec s;
  s.name = envelope.name;
  s.file = document.file();
  if (auto n = m.optional("seed")) s.seed = static_cast<uint64_t>(n->as_int(0, kInt64Max));
  parse_rfc3339(kDefaultStart, s.start);
  if (auto n = m.optional("start")) s.start = n->as_time();
  if (auto n = m.optional("horizon")) {
    s.horizon = read_positive_duration(*n);
    offset_time(*n, s.start, *s.horizon);
  }
  if (auto n = m.optional("experiment")) {
    // The experiment brings its own cluster and pods from trace files.
    for (std::string_view key : {"cluster", "workload", "horizon", "policy", "sim"})
      if (auto other = m.optional(key))
        other->fail("a scenario with an experiment takes its cluster, pods and policies from "
                    "spec.experiment; remove " + std::string(key));
    s.experiment = read_fragmentation_experiment(*n);
    return s;
  }
  s.topology = read_cluster(m.required("cluster"), traces);
  s.workload = read_workload(m.required("workload"), WorkloadContext{s.topology, s.start});
  if (auto n = m.optional("policy")) s.policy = read_policy(*n);
  if (auto n = m.optional("sim")) s.sim = read_sim(*n);
  return s;
}

}  // namespace

ScenarioSpec load_scenario_text(const std::string& text, const std::string& file_name,
                                const ClusterTraceLoader& traces) {
  return read_scenario(parse_yaml_document(text, file_name), traces);
}

ScenarioSpec load_scenario_file(const std::string& path, const ClusterTraceLoader& traces) {
  return load_scenario_text(read_text_file(path), path, traces);
}

}  // namespace gantry
