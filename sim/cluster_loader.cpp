#include "sim/cluster_loader.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "engine/config/config_fields.hpp"
#include "engine/config/limits.hpp"
#include "engine/config/quote.hpp"
#include "engine/config/resource_fields.hpp"
#include "sim/fragmentation_spec_loader.hpp"
#include "sim/placement_constraints_loader.hpp"
#include "sim/scenario_values.hpp"

namespace gantry {

namespace {

constexpr int64_t kMaxNodes = kMaxClusterNodes;  // engine/config/limits.hpp
// relativeCompute (A100 = 1): the catalog spans 0.2 (T4) to 3.2 (H100); a factor of 1000
// either way covers any real part, and keeps step times within int64 microseconds.
constexpr double kMinRelativeCompute = 0.001;
constexpr double kMaxRelativeCompute = 1000;
// Latencies (fabric, NVLink, PCIe) are microseconds in practice; a second is surely a typo.
constexpr Duration kMaxLatency = seconds(1);

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

Duration read_latency(const ConfigNode& n) { return n.as_duration(kMaxLatency); }

void read_gpu_types(const ConfigNode& list, GpuCatalog& catalog, ConfigErrors& errors) {
  std::set<std::string> seen;  // lower-cased: the catalog compares names that way
  errors.attempt([&] {
    for (const ConfigNode& item : list.as_sequence()) {
      const ConfigFields m(item, {"name", "memory", "relativeCompute", "nvlink", "pcie", "source"},
                           errors);
      std::optional<std::string> name;
      m.read_required("name", [&](const ConfigNode& n) {
        std::string key = n.as_name();
        std::transform(key.begin(), key.end(), key.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (!seen.insert(key).second)
          n.fail("GPU type " + quote_for_message(n.as_name()) + " is listed twice");
        name = n.as_name();
      });
      const GpuTypeId existing = name ? catalog.find(*name) : -1;
      GpuType type;
      if (existing >= 0) {
        type = catalog.at(existing);  // override only the figures given
      } else if (name) {
        // A new type has no catalog figures to fall back on.
        for (std::string_view required : {"memory", "relativeCompute", "pcie"})
          m.required(required);
        type.source = "scenario file " + item.file();
      }
      m.read("memory", [&](const ConfigNode& n) { type.memory_bytes = n.as_bytes(kMaxMemory); });
      m.read("relativeCompute", [&](const ConfigNode& n) {
        type.relative_compute = n.as_double(kMinRelativeCompute, kMaxRelativeCompute);
      });
      m.read("nvlink", [&](const ConfigNode& n) { type.nvlink_bytes_per_s = n.as_bandwidth(); });
      m.read("pcie",
             [&](const ConfigNode& n) { type.pcie_bytes_per_s = read_positive_bandwidth(n); });
      if (!m.read("source", [&](const ConfigNode& n) { type.source = n.as_string(); }) &&
          existing >= 0)
        type.source += "; overridden in " + item.file();
      if (!name) continue;  // nothing to file it under; its error is recorded
      type.name = *name;
      catalog.add(std::move(type));
    }
  });
}

Fabric read_fabric(const ConfigNode& node, ConfigErrors& errors) {
  const ConfigFields m(node, {"kind", "latency", "rackOversubscription"}, errors);
  Fabric f;
  m.read_required("kind", [&](const ConfigNode& n) {
    f.kind = n.as_enum<FabricKind>({{"InfiniBand", FabricKind::kInfiniBand},
                                    {"RoCE", FabricKind::kRoCE},
                                    {"TCP", FabricKind::kTcp}});
  });
  Duration latency = f.kind == FabricKind::kInfiniBand ? kInfiniBandLatency
                     : f.kind == FabricKind::kRoCE     ? kRoceLatency
                                                       : kTcpLatency;
  m.read("latency", [&](const ConfigNode& n) { latency = read_latency(n); });
  f.latency_s = latency.seconds();
  m.read("rackOversubscription",
         [&](const ConfigNode& n) { f.rack_oversubscription = n.as_double(1, 1000); });
  return f;
}

void read_intra_node_latency(const ConfigNode& node, IntraNodeLatency& l, ConfigErrors& errors) {
  const ConfigFields m(node, {"nvlink", "pcie"}, errors);
  m.read("nvlink", [&](const ConfigNode& n) { l.nvlink_s = read_latency(n).seconds(); });
  m.read("pcie", [&](const ConfigNode& n) { l.pcie_s = read_latency(n).seconds(); });
}

void read_storage(const ConfigNode& node, Storage& s, ConfigErrors& errors) {
  const ConfigFields m(node, {"bandwidth"}, errors);
  m.read_required("bandwidth",
                  [&](const ConfigNode& n) { s.bytes_per_s = read_positive_bandwidth(n); });
}

// The GPU block of a node class. `catalog_ok`: spec.cluster.gpuTypes was read without error,
// so a type's missing figure is the type's fault, not a consequence of an earlier error.
void read_gpu_block(const ConfigNode& gpu, NodeClass& c, const GpuCatalog& catalog, bool catalog_ok,
                    ConfigErrors& errors) {
  const ConfigFields g(gpu, {"type", "count", "islandSize", "link", "islandBandwidth"}, errors);
  const bool type_ok =
      g.read_required("type", [&](const ConfigNode& n) { c.gpu_type = read_gpu_type(n, catalog); });
  const bool count_ok = g.read_required("count", [&](const ConfigNode& n) {
    c.capacity.gpus = static_cast<int32_t>(n.as_int(1, kMaxGpusPerNode));
  });
  const GpuType* type = type_ok ? &catalog.at(c.gpu_type) : nullptr;

  // Without `link`, a type with NVLink figures is taken to sit on an NVSwitch board (how SXM
  // parts ship), and one without on PCIe.
  c.island_link = type && type->nvlink_bytes_per_s > 0 ? IslandLink::kNVSwitch : IslandLink::kPCIe;
  g.read("link", [&](const ConfigNode& n) {
    c.island_link = n.as_enum<IslandLink>({{"NVSwitch", IslandLink::kNVSwitch},
                                           {"NVLink", IslandLink::kNVLink},
                                           {"PCIe", IslandLink::kPCIe}});
  });
  const bool nvlink = c.island_link != IslandLink::kPCIe;

  c.island_size = nvlink ? c.capacity.gpus : 1;
  g.read("islandSize", [&](const ConfigNode& n) {
    c.island_size = static_cast<int>(n.as_int(1, kMaxGpusPerNode));
    if (count_ok && c.capacity.gpus % c.island_size != 0)
      n.fail("count (" + std::to_string(c.capacity.gpus) + ") must be a multiple of islandSize (" +
             std::to_string(c.island_size) + ")");
  });

  if (g.has("islandBandwidth")) {
    g.read("islandBandwidth",
           [&](const ConfigNode& n) { c.island_bytes_per_s = read_positive_bandwidth(n); });
  } else if (type) {
    c.island_bytes_per_s = nvlink ? type->nvlink_bytes_per_s : type->pcie_bytes_per_s;
    if (!(c.island_bytes_per_s > 0) && catalog_ok)
      errors.add(gpu, "GPU type " + type->name + " has no " + (nvlink ? "NVLink" : "PCIe") +
                          " bandwidth in the catalog; set islandBandwidth" +
                          (nvlink ? " or use link: PCIe" : ""));
  }
  if (type) c.pcie_bytes_per_s = type->pcie_bytes_per_s;
}

NodeClass read_node_class(const ConfigFields& m, const GpuCatalog& catalog, bool catalog_ok,
                          ConfigErrors& errors) {
  NodeClass c;
  m.read_required("name", [&](const ConfigNode& n) { c.name = n.as_name(); });
  m.read_required("cpu", [&](const ConfigNode& n) { c.capacity.cpu_milli = read_cpu(n); });
  m.read_required("memory", [&](const ConfigNode& n) { c.capacity.memory_bytes = read_memory(n); });

  const std::optional<ConfigNode> gpu = m.optional("gpu");
  if (!gpu) {
    m.read("pcieBandwidth", [](const ConfigNode& n) {
      n.fail("pcieBandwidth applies to GPU node classes; this class has no gpu block");
    });
    // CPU-only pods do not all-reduce in the model, so the NIC figure is optional here.
    m.read("nic", [&](const ConfigNode& n) { c.nic_bytes_per_s = read_positive_bandwidth(n); });
    c.island_size = 0;
    return c;
  }
  read_gpu_block(*gpu, c, catalog, catalog_ok, errors);
  m.read("pcieBandwidth",
         [&](const ConfigNode& n) { c.pcie_bytes_per_s = read_positive_bandwidth(n); });
  m.read_required("nic",
                  [&](const ConfigNode& n) { c.nic_bytes_per_s = read_positive_bandwidth(n); });
  return c;
}

// A node class with what its nodes copy.
struct ClassEntry {
  NodeClass node_class;
  Labels labels;
  std::vector<Taint> taints;
};

// The node classes by name. `names_ok` ends false when a class's name could not be read, so
// that a rack naming it is not reported as well.
std::vector<ClassEntry> read_node_classes(const ConfigNode& list, const GpuCatalog& catalog,
                                          bool catalog_ok, bool& names_ok, ConfigErrors& errors) {
  std::vector<ClassEntry> out;
  std::set<std::string, std::less<>> names;
  errors.attempt([&] {
    for (const ConfigNode& item : list.as_sequence()) {
      const ConfigFields cm(
          item, {"name", "cpu", "memory", "gpu", "pcieBandwidth", "nic", "labels", "taints"},
          errors);
      ClassEntry e{read_node_class(cm, catalog, catalog_ok, errors), {}, {}};
      if (auto n = cm.optional("labels")) e.labels = read_labels(*n, errors);
      if (auto n = cm.optional("taints")) e.taints = read_taints(*n, errors);
      if (e.node_class.name.empty()) {
        names_ok = false;
        continue;
      }
      if (!names.insert(e.node_class.name).second) {
        errors.add(*cm.optional("name"),
                   "duplicate node class name " + quote_for_message(e.node_class.name));
        continue;
      }
      out.push_back(std::move(e));
    }
  });
  return out;
}

// A rack item of the compact form: it has a `count` (the explicit form never has).
bool names_compact_group(const ConfigNode& item) {
  if (!item.is_map()) return false;
  for (const ConfigEntry& e : item.as_entries())
    if (e.name == "count") return true;
  return false;
}

// `racks:` in its explicit form, a list of {name, class, nodes}, or compact: {count,
// nodesPerRack, class} alone or as items of the list, racks named r001, r002, ... in order
// across the compact items (more digits past r999). Both load to the same Topology as the
// racks written out one by one.
void read_racks(const ConfigNode& list, const std::vector<ClassEntry>& classes, bool names_ok,
                Topology& t, ConfigErrors& errors) {
  std::map<std::string, size_t, std::less<>> class_index;
  for (size_t i = 0; i < classes.size(); ++i) class_index.emplace(classes[i].node_class.name, i);
  std::set<std::string, std::less<>> rack_names;
  int64_t total_nodes = 0;
  int64_t generated = 0;  // racks named by the compact form so far
  const auto read_class = [&](const ConfigFields& r) {
    std::optional<size_t> cls;
    r.read_required("class", [&](const ConfigNode& n) {
      const std::string class_name = n.as_name();
      if (const auto it = class_index.find(class_name); it != class_index.end()) cls = it->second;
      if (cls || !names_ok) return;
      std::string known;
      for (const ClassEntry& c : classes) known += (known.empty() ? "" : ", ") + c.node_class.name;
      n.fail("unknown node class " + quote_for_message(class_name) +
             "; classes defined in spec.cluster.nodeClasses: " + known);
    });
    return cls;
  };
  // Adds `racks` racks of `per_rack` nodes each to the count, failing at `n` past the limit.
  const auto count_nodes = [&](const ConfigNode& n, int64_t racks, int64_t per_rack) {
    total_nodes += racks * per_rack;
    if (total_nodes > kMaxNodes)
      n.fail("the cluster would have more than " + std::to_string(kMaxNodes) +
             " nodes; that is surely a typo");
  };
  const auto add_rack = [&](const std::string& name, size_t cls, int64_t nodes) {
    const auto rack = static_cast<RackId>(t.racks.size());
    t.racks.push_back(name);
    const ClassEntry& c = classes[cls];
    for (int64_t i = 0; i < nodes; ++i) {
      char suffix[32];
      std::snprintf(suffix, sizeof suffix, "-n%03lld", static_cast<long long>(i));
      t.nodes.push_back(
          NodeInfo{name + suffix, static_cast<int32_t>(cls), rack, c.labels, c.taints});
    }
  };
  const auto read_explicit = [&](const ConfigNode& item) {
    const ConfigFields r(item, {"name", "class", "nodes"}, errors);
    std::string name;
    r.read_required("name", [&](const ConfigNode& n) {
      if (!rack_names.insert(n.as_name()).second)
        n.fail("duplicate rack name " + quote_for_message(n.as_name()));
      name = n.as_name();
    });
    const std::optional<size_t> cls = read_class(r);
    int64_t nodes = 0;
    r.read_required("nodes", [&](const ConfigNode& n) {
      // 0: a rack for node pools to fill (spec.autoscaling).
      nodes = n.as_int(0, kMaxNodes);
      count_nodes(n, 1, nodes);
    });
    if (name.empty() || !cls || total_nodes > kMaxNodes) return;
    add_rack(name, *cls, nodes);
  };
  const auto read_compact = [&](const ConfigNode& item) {
    const ConfigFields r(item, {"count", "nodesPerRack", "class"}, errors);
    int64_t count = 0, per_rack = -1;
    r.read_required("count", [&](const ConfigNode& n) { count = n.as_int(1, kMaxNodes); });
    r.read_required("nodesPerRack", [&](const ConfigNode& n) {
      per_rack = n.as_int(0, kMaxNodes);
      if (count > 0) count_nodes(n, count, per_rack);
    });
    const std::optional<size_t> cls = read_class(r);
    if (count == 0 || per_rack < 0 || !cls || total_nodes > kMaxNodes) return;
    for (int64_t i = 0; i < count; ++i) {
      char name[32];
      std::snprintf(name, sizeof name, "r%03lld", static_cast<long long>(++generated));
      if (!rack_names.insert(name).second) {
        r.required("count")->fail(std::string("names rack ") + name +
                                  ", which the list names already; racks of the compact form "
                                  "are named r001, r002, ... in order");
      }
      add_rack(name, *cls, per_rack);
    }
  };
  errors.attempt([&] {
    if (list.is_map()) {
      read_compact(list);
      return;
    }
    const std::vector<ConfigNode> items = list.as_sequence();
    if (items.empty()) list.fail("expected at least one rack");
    for (const ConfigNode& item : items) {
      errors.attempt([&] {
        if (names_compact_group(item))
          read_compact(item);
        else
          read_explicit(item);
      });
    }
  });
}

// `cluster: {trace: {format, file}, nic: 100Gbps, memory: 512Gi, fabric: ..., storage: ...}`:
// the trace's defaults stay where the scenario says nothing (adapters/traces/trace_topology.hpp).
Topology read_trace_cluster(const ConfigFields& m, const ClusterTraceLoader& traces,
                            ConfigErrors& errors) {
  for (std::string_view key : {"nodeClasses", "racks", "gpuTypes"})
    m.read(key, [&](const ConfigNode& n) {
      n.fail("a cluster read from a trace takes its nodes from the trace; remove " +
             std::string(key));
    });
  Topology t;
  const ConfigNode trace = *m.optional("trace");
  std::optional<TraceRef> ref =
      read_trace_ref(trace, {"openb-nodes", "pai-machines", "spot-nodes"}, errors);
  if (ref && !traces) errors.add(trace, "this program cannot read cluster traces");
  if (ref && traces) errors.attempt([&] { t = traces(*ref); });
  if (auto n = m.optional("fabric")) t.fabric = read_fabric(*n, errors);
  if (auto n = m.optional("intraNodeLatency")) read_intra_node_latency(*n, t.intra_latency, errors);
  if (auto n = m.optional("storage")) read_storage(*n, t.storage, errors);
  m.read("nic", [&](const ConfigNode& n) {
    const double nic = read_positive_bandwidth(n);
    for (NodeClass& c : t.classes) c.nic_bytes_per_s = nic;
  });
  m.read("memory", [&](const ConfigNode& n) {
    const int64_t memory = read_memory(n);
    for (NodeClass& c : t.classes)
      if (c.capacity.memory_bytes == 0) c.capacity.memory_bytes = memory;
  });
  return t;
}

}  // namespace

Topology read_cluster(const ConfigNode& cluster, const ClusterTraceLoader& traces,
                      ConfigErrors& errors) {
  const ConfigFields m(cluster,
                       {"gpuTypes", "fabric", "intraNodeLatency", "storage", "nodeClasses", "racks",
                        "trace", "nic", "memory"},
                       errors);
  if (!m.valid()) return Topology{};
  if (m.has("trace")) return read_trace_cluster(m, traces, errors);
  for (std::string_view key : {"nic", "memory"})
    m.read(key, [&](const ConfigNode& n) {
      n.fail(std::string(key) +
             " applies to a cluster read from a trace; give each node class its own");
    });
  Topology t;
  t.gpus = GpuCatalog::with_defaults();
  const size_t before = errors.size();
  if (auto n = m.optional("gpuTypes")) read_gpu_types(*n, t.gpus, errors);
  const bool catalog_ok = errors.size() == before;

  if (auto n = m.required("fabric")) t.fabric = read_fabric(*n, errors);
  t.intra_latency.nvlink_s = kNvlinkLatency.seconds();
  t.intra_latency.pcie_s = kPcieLatency.seconds();
  if (auto n = m.optional("intraNodeLatency")) read_intra_node_latency(*n, t.intra_latency, errors);
  if (auto n = m.required("storage")) read_storage(*n, t.storage, errors);

  bool names_ok = true;
  std::vector<ClassEntry> classes;
  if (auto n = m.required("nodeClasses"))
    classes = read_node_classes(*n, t.gpus, catalog_ok, names_ok, errors);
  else
    names_ok = false;
  if (auto n = m.required("racks")) read_racks(*n, classes, names_ok, t, errors);
  for (ClassEntry& c : classes) t.classes.push_back(std::move(c.node_class));
  return t;
}

}  // namespace gantry
