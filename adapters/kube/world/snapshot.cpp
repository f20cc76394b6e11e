#include "adapters/kube/world/snapshot.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "adapters/kube/model/gpu_product.hpp"
#include "adapters/kube/model/quantity.hpp"
#include "adapters/kube/world/gang_assembly.hpp"
#include "adapters/kube/world/live_cluster.hpp"
#include "engine/config/limits.hpp"
#include "engine/config/units.hpp"
#include "engine/core/errors.hpp"

namespace gantry::kube {

namespace {

constexpr Duration kUnknownRunTime = Duration(3'600'000'000);  // 1 h

const char* role_text(RoleKind r) { return to_string(r); }

// Labels every node of a class shares (the host name is never shared in spirit: dropped).
Labels shared_labels(const std::vector<const KubeNode*>& nodes) {
  if (nodes.empty()) return {};
  Labels out = nodes.front()->labels;
  out.erase("kubernetes.io/hostname");
  for (const KubeNode* n : nodes) {
    for (auto it = out.begin(); it != out.end();) {
      const auto there = n->labels.find(it->first);
      it = there == n->labels.end() || there->second != it->second ? out.erase(it) : std::next(it);
    }
  }
  return out;
}

std::vector<Taint> shared_taints(const std::vector<const KubeNode*>& nodes) {
  if (nodes.empty()) return {};
  std::vector<Taint> out = nodes.front()->taints;
  std::erase_if(out, [&](const Taint& t) {
    return std::any_of(nodes.begin(), nodes.end(), [&](const KubeNode* n) {
      return std::find(n->taints.begin(), n->taints.end(), t) == n->taints.end();
    });
  });
  return out;
}

// A node class's NIC figure from its nodes' gantry.dev/nic labels (snapshot.hpp): the value
// they all have, or why it is assumed.
struct NicFigure {
  std::string value;
  std::string why_assumed;  // "" when value is the label's
};

NicFigure nic_of(const std::vector<const KubeNode*>& members) {
  std::set<std::string> values;
  int unlabelled = 0;
  for (const KubeNode* n : members) {  // in name order
    const auto it = n->labels.find(std::string(kNicLabel));
    if (it == n->labels.end()) {
      ++unlabelled;
      continue;
    }
    const Result<double> bandwidth = parse_bandwidth(it->second);
    if (!bandwidth || bandwidth.value() <= 0)
      return {{},
              fmt::format("label {} '{}' on {} is not a bandwidth such as 400Gbps", kNicLabel,
                          it->second, n->name)};
    values.insert(it->second);
  }
  if (values.empty()) return {{}, fmt::format("label the nodes {}", kNicLabel)};
  if (unlabelled > 0)
    return {
        {},
        fmt::format("label {} missing on {} of {} nodes", kNicLabel, unlabelled, members.size())};
  if (values.size() > 1)
    return {{},
            fmt::format("the nodes' labels {} differ ({})", kNicLabel, fmt::join(values, ", "))};
  return {*values.begin(), {}};
}

// The usable nodes as the live world models them (LiveCluster groups them into classes and
// racks), and the groups the scenario is written from.
struct Model {
  std::vector<const KubeNode*> nodes;  // ready and schedulable, in name order
  std::unique_ptr<LiveCluster> live;
  size_t default_types = 0;  // GPU models of the default catalog; later ones are the cluster's
  std::map<std::string, NodeId> id_of;
  std::map<int32_t, std::vector<const KubeNode*>> by_class;
  std::map<std::pair<RackId, int32_t>, std::vector<std::string>> by_rack_class;
};

Model model_of(const SnapshotInput& input) {
  Model m;
  for (const KubeNode& n : input.nodes)
    if (n.ready && !n.unschedulable) m.nodes.push_back(&n);
  std::sort(m.nodes.begin(), m.nodes.end(),
            [](const KubeNode* a, const KubeNode* b) { return a->name < b->name; });
  Topology empty;
  empty.gpus = GpuCatalog::with_defaults();
  m.default_types = empty.gpus.size();
  m.live = std::make_unique<LiveCluster>(std::move(empty));
  for (const KubeNode* n : m.nodes)
    if (const Result<NodeId> id = m.live->upsert_node(*n)) m.id_of[n->name] = id.value();
  const Cluster& c = m.live->cluster();
  for (const KubeNode* n : m.nodes) {
    const auto id = m.id_of.find(n->name);
    if (id == m.id_of.end()) continue;
    const int32_t cls = c.node_info(id->second).node_class;
    m.by_class[cls].push_back(n);
    m.by_rack_class[{c.rack_of(id->second), cls}].push_back(n->name);
  }
  return m;
}

void write_gpu_types(YAML::Emitter& y, const Model& m) {
  const Topology& t = m.live->cluster().topology();
  const size_t default_types = m.default_types;
  const std::vector<const KubeNode*>& nodes = m.nodes;
  if (t.gpus.size() > default_types) {
    y << YAML::Key << "gpuTypes" << YAML::Value << YAML::BeginSeq;
    for (size_t i = default_types; i < t.gpus.size(); ++i) {
      const GpuType& g = t.gpus.at(static_cast<GpuTypeId>(i));
      // NVIDIA's feature discovery labels a node's GPU memory in MiB (nvidia.com/gpu.memory).
      std::string memory = "80Gi";
      for (const KubeNode* n : nodes) {
        const auto product = n->labels.find(std::string(kGpuProductLabel));
        const auto mib = n->labels.find("nvidia.com/gpu.memory");
        if (product != n->labels.end() && product->second == g.name && mib != n->labels.end())
          memory = mib->second + "Mi";
      }
      y << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << g.name << YAML::Key
        << "memory" << YAML::Value << memory << YAML::Key << "relativeCompute" << YAML::Value
        << g.relative_compute << YAML::Key << "pcie" << YAML::Value << "32GB/s" << YAML::Key
        << "source" << YAML::Value << g.source << YAML::EndMap;
    }
    y << YAML::EndSeq;
  }
}

void write_node_classes(YAML::Emitter& y, const Model& m) {
  const Topology& t = m.live->cluster().topology();
  const auto& by_class = m.by_class;
  y << YAML::Key << "nodeClasses" << YAML::Value << YAML::BeginSeq;
  for (const auto& [cls, members] : by_class) {
    const NodeClass& nc = t.classes[static_cast<size_t>(cls)];
    y << YAML::BeginMap;
    y << YAML::Key << "name" << YAML::Value << nc.name;
    y << YAML::Key << "cpu" << YAML::Value << YAML::DoubleQuoted
      << format_cpu_quantity(nc.capacity.cpu_milli);
    y << YAML::Key << "memory" << YAML::Value << format_bytes_exact(nc.capacity.memory_bytes);
    if (nc.capacity.gpus > 0) {
      y << YAML::Key << "gpu" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "type"
        << YAML::Value << t.gpus.at(nc.gpu_type).name << YAML::Key << "count" << YAML::Value
        << nc.capacity.gpus << YAML::Key << "islandSize" << YAML::Value << nc.island_size
        << YAML::Key << "link" << YAML::Value << to_string(nc.island_link) << YAML::EndMap;
      const NicFigure nic = nic_of(members);
      y << YAML::Key << "nic" << YAML::Value << (nic.why_assumed.empty() ? nic.value : "100Gbps");
      if (!nic.why_assumed.empty()) y << YAML::Comment("assumed: " + nic.why_assumed);
    } else if (const NicFigure nic = nic_of(members); nic.why_assumed.empty()) {
      y << YAML::Key << "nic" << YAML::Value << nic.value;  // optional for CPU-only nodes
    }
    const Labels labels = shared_labels(members);
    if (!labels.empty()) {
      y << YAML::Key << "labels" << YAML::Value << YAML::BeginMap;
      for (const auto& [k, v] : labels)
        y << YAML::Key << k << YAML::Value << YAML::DoubleQuoted << v;
      y << YAML::EndMap;
    }
    const std::vector<Taint> taints = shared_taints(members);
    if (!taints.empty()) {
      y << YAML::Key << "taints" << YAML::Value << YAML::BeginSeq;
      for (const Taint& tt : taints) {
        y << YAML::Flow << YAML::BeginMap << YAML::Key << "key" << YAML::Value << tt.key;
        if (!tt.value.empty()) y << YAML::Key << "value" << YAML::Value << tt.value;
        y << YAML::Key << "effect" << YAML::Value << to_string(tt.effect) << YAML::EndMap;
      }
      y << YAML::EndSeq;
    }
    y << YAML::EndMap;
  }
  y << YAML::EndSeq;
}

void write_racks(YAML::Emitter& y, const Model& m) {
  const Topology& t = m.live->cluster().topology();
  const auto& by_rack_class = m.by_rack_class;
  // Racks: per rack, per class; how many classes each rack has decides the entry's name.
  std::map<RackId, int> classes_in_rack;
  for (const auto& [key, names] : by_rack_class) ++classes_in_rack[key.first];
  y << YAML::Key << "racks" << YAML::Value << YAML::BeginSeq;
  for (const auto& [key, names] : by_rack_class) {
    const std::string& rack = t.racks[static_cast<size_t>(key.first)];
    const std::string& cls = t.classes[static_cast<size_t>(key.second)].name;
    const std::string name = classes_in_rack[key.first] == 1 ? rack : rack + "-" + cls;
    std::string map;
    for (size_t i = 0; i < names.size(); ++i) {
      map += (map.empty() ? "" : ", ") + name + fmt::format("-n{:03d}", i) + " = " + names[i];
    }
    y << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << name << YAML::Key
      << "class" << YAML::Value << cls << YAML::Key << "nodes" << YAML::Value
      << static_cast<int>(names.size()) << YAML::EndMap << YAML::Comment(map);
  }
  y << YAML::EndSeq;
}

// One job for the pods of one gang that run now.
void write_job(YAML::Emitter& y, const Model& m, const std::string& gang,
               const std::vector<const KubePod*>& pods, Time now) {
  const Cluster& c = m.live->cluster();
  const Topology& t = c.topology();
  const auto& id_of = m.id_of;
  Gang g;
  g.key = gang;
  for (const KubePod* p : pods) g.pods[p->name] = *p;
  const JobSpec spec = gang_job_spec(g, now);
  std::map<RoleKind, std::pair<int, Resources>> roles;
  for (const RoleSpec& r : spec.roles) {
    auto& [replicas, req] = roles[r.kind];
    replicas += r.replicas;  // gang_job_spec merges runs of one kind and request
    req = Resources{std::max(req.cpu_milli, r.per_replica.cpu_milli),
                    std::max(req.memory_bytes, r.per_replica.memory_bytes),
                    std::max(req.gpus, r.per_replica.gpus),
                    std::max(req.gpu_milli, r.per_replica.gpu_milli)};
  }
  std::optional<Duration> known;
  for (const KubePod* p : pods)
    if (p->simulate_duration) known = std::max(known.value_or(Duration(0)), *p->simulate_duration);
  const Duration run = known.value_or(kUnknownRunTime);
  const NodeId first = id_of.at(pods.front()->node_name);
  const GpuTypeId gpu = c.gpu_type_of(first);
  y << YAML::BeginMap;
  std::string name = gang;
  std::replace(name.begin(), name.end(), '/', '-');
  y << YAML::Key << "name" << YAML::Value << name;
  y << YAML::Key << "submit" << YAML::Value << "0s";
  y << YAML::Key << "framework" << YAML::Value << "PyTorch";
  if (spec.priority != 0) y << YAML::Key << "priority" << YAML::Value << spec.priority;
  y << YAML::Key << "tenant" << YAML::Value << spec.tenant;
  const bool uses_gpu = std::any_of(roles.begin(), roles.end(),
                                    [](const auto& r) { return r.second.second.needs_gpu(); });
  if (uses_gpu && gpu >= 0) y << YAML::Key << "gpuType" << YAML::Value << t.gpus.at(gpu).name;
  y << YAML::Key << "roles" << YAML::Value << YAML::BeginSeq;
  for (const auto& [kind, rr] : roles) {
    const auto& [replicas, req] = rr;
    y << YAML::Flow << YAML::BeginMap << YAML::Key << "kind" << YAML::Value << role_text(kind)
      << YAML::Key << "replicas" << YAML::Value << replicas << YAML::Key << "resources"
      << YAML::Value << YAML::BeginMap << YAML::Key << "cpu" << YAML::Value << YAML::DoubleQuoted
      << format_cpu_quantity(req.cpu_milli) << YAML::Key << "memory" << YAML::Value
      << format_bytes_exact(req.memory_bytes);
    if (req.gpus > 0) y << YAML::Key << "gpu" << YAML::Value << req.gpus;
    if (req.gpu_milli > 0)
      y << YAML::Key << "gpu" << YAML::Value << YAML::DoubleQuoted
        << std::to_string(req.gpu_milli / 1000.0).substr(0, 5);
    y << YAML::EndMap << YAML::EndMap;
  }
  y << YAML::EndSeq;
  const int64_t steps = std::max<int64_t>(1, run.micros() / 1'000'000);
  y << YAML::Key << "work" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "steps"
    << YAML::Value << steps << YAML::Key << "stepCompute" << YAML::Value << "1s" << YAML::Key
    << "gradientSize" << YAML::Value << "0B" << YAML::EndMap;
  if (!known) y << YAML::Comment("run time unknown: 1h assumed");
  y << YAML::EndMap;
}

}  // namespace

void check_snapshot_nodes(int64_t usable_nodes, const std::string& source) {
  if (usable_nodes <= kMaxClusterNodes) return;
  throw GantryError(fmt::format(
      "{}: at least {} usable nodes (ready and schedulable); a scenario holds at most {} nodes "
      "(spec.cluster), so this cluster cannot be written as one",
      source.empty() ? "the cluster" : source, usable_nodes, kMaxClusterNodes));
}

std::string snapshot_scenario(const SnapshotInput& input) {
  check_snapshot_nodes(std::count_if(input.nodes.begin(), input.nodes.end(),
                                     [](const KubeNode& n) { return n.ready && !n.unschedulable; }),
                       input.source);
  const Model m = model_of(input);
  // The pods running now and staying, by gang; pods being deleted are leaving.
  std::map<std::string, std::vector<const KubePod*>> gangs;
  int terminating = 0;
  for (const KubePod& p : input.pods) {
    if (p.phase != "Running" || p.node_name.empty() || m.id_of.count(p.node_name) == 0) continue;
    if (p.deleting) {
      ++terminating;
      continue;
    }
    gangs[gang_key(p)].push_back(&p);
  }
  YAML::Emitter y;
  y << YAML::Comment("Snapshot of " +
                     (input.source.empty() ? "a Kubernetes cluster" : input.source) + " at " +
                     format_rfc3339(input.now) + " (gantry snapshot)");
  if (terminating > 0)
    y << YAML::Newline
      << YAML::Comment(
             fmt::format("{} terminating pod{} left out (metadata.deletionTimestamp set: leaving)",
                         terminating, terminating == 1 ? "" : "s"));
  y << YAML::BeginMap;
  y << YAML::Key << "apiVersion" << YAML::Value << "gantry.dev/v1";
  y << YAML::Key << "kind" << YAML::Value << "Scenario";
  y << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap << YAML::Key << "name"
    << YAML::Value << input.name << YAML::EndMap;
  y << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "start" << YAML::Value << format_rfc3339(input.now);
  y << YAML::Key << "cluster" << YAML::Value << YAML::BeginMap;
  write_gpu_types(y, m);
  y << YAML::Key << "fabric" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "kind"
    << YAML::Value << "InfiniBand" << YAML::EndMap << YAML::Comment("assumed: not in the API");
  y << YAML::Key << "storage" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
    << "bandwidth" << YAML::Value << "100GB/s" << YAML::EndMap
    << YAML::Comment("assumed: not in the API");
  write_node_classes(y, m);
  write_racks(y, m);
  y << YAML::EndMap;  // cluster

  y << YAML::Key << "workload" << YAML::Value << YAML::BeginMap << YAML::Key << "jobs"
    << YAML::Value << YAML::BeginSeq;
  for (const auto& [gang, pods] : gangs) write_job(y, m, gang, pods, input.now);
  y << YAML::EndSeq;
  // A scenario needs a workload: an idle cluster's snapshot is the what-if's cluster only.
  if (gangs.empty())
    y << YAML::Comment("no pods run now: add jobs, generators or services to simulate");
  y << YAML::EndMap;  // workload
  y << YAML::Key << "policy" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
    << "placement" << YAML::Value << "binpack" << YAML::EndMap;
  y << YAML::EndMap;  // spec
  y << YAML::EndMap;
  return std::string(y.c_str()) + "\n";
}

}  // namespace gantry::kube
