#include "sim/scenario_loader.hpp"

#include <algorithm>
#include <limits>
#include <optional>

#include "engine/config/config_fields.hpp"
#include "engine/config/quote.hpp"
#include "engine/policy/plugin_registry.hpp"
#include "sim/admission_loader.hpp"
#include "sim/fault_loader.hpp"
#include "sim/node_pool_loader.hpp"
#include "sim/scenario_values.hpp"
#include "sim/workload_loader.hpp"

namespace gantry {

namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
// Pod start-up is seconds to minutes; a day is surely a typo.
constexpr Duration kMaxPodStartup = days(1);
constexpr Duration kMaxRestartDelay = days(7);
constexpr const char* kDefaultStart = "2026-01-01T00:00:00Z";

// Said where a Scenario still has the block experiments had before they became a kind.
constexpr std::string_view kExperimentMoved =
    "an experiment is a file of its own kind: write kind: Experiment, move the fields of "
    "spec.experiment up into spec, and replace their kind: Fragmentation by type: Fragmentation "
    "(see scenarios/openb-fragmentation.yaml)";

// spec.policy.elasticity: {policy: a name or a list of names (none | scale-out-idle |
// shrink-to-admit | goodput), and with goodput interval (a duration, default 5m) and minGain
// (GPU-seconds, default 0)}.
ElasticityConfig read_elasticity(const ConfigNode& node, ConfigErrors& errors) {
  const ConfigFields m(node, {"policy", "interval", "minGain"}, errors);
  ElasticityConfig e;
  const auto read_one = [&](const ConfigNode& n) {
    const std::string name = n.as_name();
    const std::optional<ElasticPolicy> p = parse_elastic_policy(name);
    if (!p)
      n.fail("unknown elasticity policy " + quote_for_message(name) +
             "; known: none, scale-out-idle, shrink-to-admit, goodput");
    return *p;
  };
  const bool policy_ok = m.read_required("policy", [&](const ConfigNode& n) {
    if (!n.is_sequence()) {
      e.add(read_one(n));
      return;
    }
    const std::vector<ConfigNode> items = n.as_sequence();
    if (items.empty()) n.fail("expected at least one policy (or none)");
    for (const ConfigNode& item : items) {
      const ElasticPolicy p = read_one(item);
      if (p == ElasticPolicy::kNone)
        item.fail("none turns elasticity off; it goes alone, not in a list");
      if (e.has(p)) item.fail(std::string(to_string(p)) + " is listed twice");
      e.add(p);
    }
  });
  m.read("interval", [&](const ConfigNode& n) { e.interval = n.as_positive_duration(); });
  m.read("minGain", [&](const ConfigNode& n) { e.min_gain_gpu_seconds = n.as_double(0, 1e18); });
  // The goodput knobs mean nothing to the other policies: say so rather than ignore them.
  if (policy_ok && !e.has(ElasticPolicy::kGoodput))
    for (const char* key : {"interval", "minGain"})
      if (const std::optional<ConfigNode> n = m.optional(key))
        errors.add(*n, std::string(key) + " applies to policy goodput only, not " +
                           (e.policies.empty() ? std::string("none")
                                               : std::string(to_string(e.policies.front()))));
  return e;
}

// `declared`: the admission queues, for the check of the jobs' queues (none when the policy
// declares no admission; not known when the policy could not be read).
SchedulerConfig read_policy(const ConfigNode& node, const AdmissionContext& admission,
                            ConfigErrors& errors, DeclaredQueues& declared) {
  const ConfigFields m(node, {"queue", "queueing", "placement", "admission", "elasticity"}, errors);
  SchedulerConfig p;
  if (!m.valid()) declared.known = false;
  const bool order_read = m.read("queue", [&](const ConfigNode& n) {
    p.order =
        n.as_enum<QueueOrder>({{"Fifo", QueueOrder::kFifo}, {"Priority", QueueOrder::kPriority}});
  });
  m.read("queueing", [&](const ConfigNode& n) {
    p.queueing = n.as_enum<Queueing>(
        {{"BestEffortFIFO", Queueing::kBestEffortFifo}, {"StrictFIFO", Queueing::kStrictFifo}});
  });
  // Checked here so that a bad name is blamed on the file; --policy is checked by the CLI.
  m.read("placement", [&](const ConfigNode& n) {
    p.placement = n.as_name();
    const std::vector<std::string> known = placement_plugin_names();
    if (std::find(known.begin(), known.end(), p.placement) != known.end()) return;
    std::string list;
    for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
    n.fail("unknown placement policy " + quote_for_message(p.placement) + "; known: " + list);
  });
  if (const std::optional<ConfigNode> n = m.optional("admission")) {
    p.admission = read_admission(*n, admission, errors, declared);
    // Kueue orders each queue by priority, then by submission; a FIFO across priorities
    // would contradict it.
    if (order_read && p.order == QueueOrder::kFifo)
      errors.add(*m.optional("queue"),
                 "queue: Fifo does not go with spec.policy.admission: each admission queue "
                 "orders its jobs by priority, then by submission (as Kueue does); write queue: "
                 "Priority or leave it out");
    p.order = QueueOrder::kPriority;
  }
  if (const std::optional<ConfigNode> n = m.optional("elasticity"))
    p.elasticity = read_elasticity(*n, errors);
  return p;
}

// The topology plus one node per pool (its class, rack, labels and taints): what the checks of
// the workload look at for selectors and tolerations.
// Pools whose class or rack could not be read (an error already said so) add nothing.
Topology with_pool_capacity(const Topology& topology, const std::vector<NodePoolSpec>& pools) {
  Topology t = topology;
  for (const NodePoolSpec& p : pools)
    if (p.node_class >= 0 && static_cast<size_t>(p.node_class) < t.classes.size() && p.rack >= 0 &&
        static_cast<size_t>(p.rack) < t.racks.size())
      t.nodes.push_back(
          NodeInfo{p.name + "-*", p.node_class, p.rack, pool_node_labels(p), p.taints});
  return t;
}

// Nodes per class for the gang checks: the scenario's own plus every pool at its max size.
std::vector<int64_t> pool_nodes_of(const Topology& topology,
                                   const std::vector<NodePoolSpec>& pools) {
  std::vector<int64_t> nodes_of = nodes_per_class(topology);
  for (const NodePoolSpec& p : pools)
    if (p.node_class >= 0 && static_cast<size_t>(p.node_class) < nodes_of.size())
      nodes_of[static_cast<size_t>(p.node_class)] += p.max_nodes;
  return nodes_of;
}

SimParameters read_sim(const ConfigNode& node, ConfigErrors& errors) {
  const ConfigFields m(node, {"podStartup", "restartDelay", "serviceReportInterval"}, errors);
  SimParameters s;
  m.read("podStartup", [&](const ConfigNode& n) { s.pod_startup = n.as_duration(kMaxPodStartup); });
  m.read("restartDelay",
         [&](const ConfigNode& n) { s.restart_delay = n.as_duration(kMaxRestartDelay); });
  m.read("serviceReportInterval", [&](const ConfigNode& n) {
    s.service_report_interval = n.as_positive_duration();
    if (s.service_report_interval < seconds(1)) n.fail("expected at least 1s");
  });
  return s;
}

// Each trace load's rows, read once here so that a bad row is the scenario's error, found by
// `gantry validate`, and the variants of a sweep share them.
std::vector<RequestTrace> read_service_traces(const std::vector<ServiceSpec>& services,
                                              const RequestTraceLoader& requests,
                                              ConfigErrors& errors) {
  std::vector<RequestTrace> out(services.size());
  for (size_t i = 0; i < services.size(); ++i) {
    if (services[i].load.kind != LoadKind::kTrace) continue;
    if (!requests) {
      errors.add(InputError(services[i].load.trace_where, services[i].load.trace_field,
                            "this program cannot read request traces"));
      continue;
    }
    errors.attempt([&] { out[i] = requests(services[i].load); });
  }
  return out;
}

}  // namespace

ScenarioSpec read_scenario(const Envelope& envelope, const TraceLoaders& traces,
                           ConfigErrors& errors) {
  ScenarioSpec s;
  s.name = envelope.name;
  s.file = envelope.file;
  parse_rfc3339(kDefaultStart, s.start);
  if (!envelope.spec) return s;
  const ConfigFields m(*envelope.spec,
                       {"seed", "start", "horizon", "cluster", "workload", "policy", "sim",
                        "failures", "autoscaling"},
                       errors, {{"experiment", kExperimentMoved}});
  // An experiment in the old form: the rest would only repeat that it is not a scenario.
  if (!m.valid() || m.retired("experiment")) return s;
  m.read("seed",
         [&](const ConfigNode& n) { s.seed = static_cast<uint64_t>(n.as_int(0, kInt64Max)); });
  const bool start_ok =
      !m.has("start") || m.read("start", [&](const ConfigNode& n) { s.start = n.as_time(); });
  m.read("horizon", [&](const ConfigNode& n) {
    s.horizon = n.as_positive_duration();
    if (start_ok) offset_time(n, s.start, *s.horizon);
  });
  const size_t before = errors.size();
  if (auto n = m.required("cluster")) s.topology = read_cluster(*n, traces.topology, errors);
  const bool topology_ok = m.has("cluster") && errors.size() == before;
  // The policy before the workload, whatever their order in the file: the jobs' queues are
  // checked against the admission queues it declares.
  DeclaredQueues queues;
  if (auto n = m.optional("policy"))
    s.policy = read_policy(*n, AdmissionContext{s.topology, topology_ok}, errors, queues);
  // Node pools before the workload too: jobs are checked against the capacity the pools may
  // add (their classes at max size, their nodes' labels and taints), not only the nodes there
  // are at the start.
  if (auto n = m.optional("autoscaling"))
    s.autoscaling = read_autoscaling(*n, s.topology, topology_ok, errors);
  const Topology capacity = with_pool_capacity(s.topology, s.autoscaling.pools);
  if (auto n = m.required("workload")) {
    WorkloadContext ctx{capacity, s.start, topology_ok, queues};
    ctx.nodes_of = pool_nodes_of(s.topology, s.autoscaling.pools);
    s.workload = read_workload(*n, ctx, errors);
    if (!s.workload.services.empty() && !s.horizon && !m.has("horizon")) {
      errors.attempt([&] {
        n->fail(
            "a scenario with services needs spec.horizon: a service's load has no end, so "
            "the run would not either (add e.g. horizon: 24h)");
      });
    }
    s.service_traces = read_service_traces(s.workload.services, traces.requests, errors);
  }
  if (auto n = m.optional("sim")) s.sim = read_sim(*n, errors);
  if (auto n = m.optional("failures"))
    s.failures = read_failures(*n, s.topology, topology_ok, errors);
  return s;
}

ScenarioSpec load_scenario_text(const std::string& text, const std::string& file_name,
                                const TraceLoaders& traces) {
  return load_document<ScenarioSpec>(text, file_name, {"Scenario"},
                                     [&](const Envelope& envelope, ConfigErrors& errors) {
                                       return read_scenario(envelope, traces, errors);
                                     });
}

ScenarioSpec load_scenario_file(const std::string& path, const TraceLoaders& traces) {
  return load_scenario_text(read_text_file(path), path, traces);
}

}  // namespace gantry
