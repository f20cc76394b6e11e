#include "sim/fault_loader.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "engine/config/config_fields.hpp"
#include "engine/config/quote.hpp"
#include "engine/config/units.hpp"

namespace gantry {

namespace {

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool precedes(const ConfigNode& a, const ConfigNode& b) {
  const SourceLocation x = a.location();
  const SourceLocation y = b.location();
  return x.line != y.line ? x.line < y.line : x.column < y.column;
}

// Of two keys that must not both be given, the error goes to the one written second.
void refuse_both(const ConfigNode& a, const ConfigNode& b, const std::string& message,
                 ConfigErrors& errors) {
  errors.add(precedes(a, b) ? b : a, message);
}

// Names for "known ...: a, b, c" lists in messages; long lists are cut.
std::string some_names(const std::vector<std::string>& names) {
  constexpr size_t kShown = 10;
  std::string out;
  for (size_t i = 0; i < names.size() && i < kShown; ++i)
    out += (out.empty() ? "" : ", ") + names[i];
  if (names.size() > kShown) out += ", ... (" + std::to_string(names.size()) + " in all)";
  return out;
}

struct FailuresContext {
  const Topology& topology;
  bool topology_ok;
  std::map<std::string, NodeId, std::less<>> nodes;  // by name; filled when topology_ok
};

const char* default_cause(FailureComponent c) {
  switch (c) {
    case FailureComponent::kGpu:
      return "GPU";
    case FailureComponent::kNode:
      return "node";
    case FailureComponent::kRack:
      return "rack";
  }
  return "";
}

// The GPU models of the cluster's nodes, in catalog order. The catalog also knows models no
// node has (the built-in ones), and a process for such a model would break nothing.
std::vector<std::string> node_gpu_models(const Topology& topology) {
  std::vector<bool> used(topology.gpus.size(), false);
  for (const NodeInfo& node : topology.nodes) {
    const NodeClass& c = topology.classes[static_cast<size_t>(node.node_class)];
    if (c.gpu_type >= 0 && c.capacity.gpus > 0) used[static_cast<size_t>(c.gpu_type)] = true;
  }
  std::vector<std::string> models;
  for (size_t t = 0; t < used.size(); ++t)
    if (used[t]) models.push_back(topology.gpus.types()[t].name);
  return models;
}

// node_gpu_models() for a message: "A100-80G, H100-80G", or "none".
std::string node_gpu_models_text(const Topology& topology) {
  const std::vector<std::string> models = node_gpu_models(topology);
  return models.empty() ? std::string("none") : some_names(models);
}

bool some_node_has(const FailuresContext& ctx, std::string_view model) {
  const std::vector<std::string> models = node_gpu_models(ctx.topology);
  return std::any_of(models.begin(), models.end(),
                     [&](const std::string& m) { return gpu_model_matches(model, m); });
}

std::string read_gpu_model(const ConfigNode& n, const FailuresContext& ctx) {
  const std::string name = n.as_name();
  if (!ctx.topology_ok || some_node_has(ctx, name)) return name;
  n.fail("no GPU type of the cluster is " + quote_for_message(name) +
         " or a variant of it (known types: " + node_gpu_models_text(ctx.topology) + ")");
}

void read_time_to_failure(const ConfigNode& node, TimeToFailure& out, ConfigErrors& errors) {
  const ConfigFields f(node, {"distribution", "mtbf", "shape", "scale"}, errors);
  if (!f.valid()) return;
  std::optional<TimeToFailure::Kind> kind;
  f.read_required("distribution", [&](const ConfigNode& n) {
    kind = n.as_enum<TimeToFailure::Kind>({{"exponential", TimeToFailure::Kind::kExponential},
                                           {"weibull", TimeToFailure::Kind::kWeibull}});
  });
  if (!kind) return;  // which fields it takes is not known
  out.kind = *kind;
  if (*kind == TimeToFailure::Kind::kExponential) {
    for (const std::string_view key : {"shape", "scale"})
      f.read(key, [&](const ConfigNode& n) {
        n.fail("an exponential time to failure does not take " + std::string(key) +
               " (a Weibull's); give its mean as mtbf");
      });
    f.read_required("mtbf", [&](const ConfigNode& n) { out.mtbf = n.as_positive_duration(); });
    return;
  }
  const bool shape_ok = f.read_required("shape", [&](const ConfigNode& n) {
    out.shape = n.as_double(kMinWeibullShape, kMaxWeibullShape);
  });
  const std::optional<ConfigNode> scale = f.optional("scale");
  const std::optional<ConfigNode> mtbf = f.optional("mtbf");
  if (scale && mtbf)
    refuse_both(*scale, *mtbf,
                "give a Weibull's scale or its mean (mtbf), not both: one follows from the other "
                "and the shape",
                errors);
  if (!scale && !mtbf) f.missing("scale", " (or mtbf, the mean)");
  f.read("scale", [&](const ConfigNode& n) { out.scale = n.as_positive_duration(); });
  f.read("mtbf", [&](const ConfigNode& n) {
    const Duration mean = n.as_positive_duration();
    if (!shape_ok || scale) return;
    out.scale = weibull_scale_for_mean(out.shape, mean);
    if (out.scale < Duration(1))
      n.fail("with shape " + f.optional("shape")->as_string() + " a mean of " +
             quote_for_message(n.as_string()) + " gives a scale under a microsecond");
  });
}

RepairTime read_repair(const ConfigNode& node, ConfigErrors& errors) {
  RepairTime r;
  if (node.is_scalar()) {
    r.mean = node.as_positive_duration();
    return r;
  }
  const ConfigFields f(node, {"distribution", "duration", "mean"}, errors);
  if (!f.valid()) return r;
  std::optional<RepairTime::Kind> kind;
  f.read_required("distribution", [&](const ConfigNode& n) {
    kind = n.as_enum<RepairTime::Kind>(
        {{"fixed", RepairTime::Kind::kFixed}, {"exponential", RepairTime::Kind::kExponential}});
  });
  if (!kind) return r;
  r.kind = *kind;
  const bool fixed = *kind == RepairTime::Kind::kFixed;
  const std::string_view takes = fixed ? "duration" : "mean";
  const std::string_view refused = fixed ? "mean" : "duration";
  f.read(refused, [&](const ConfigNode& n) {
    n.fail(std::string(fixed ? "a fixed" : "an exponential") + " repair time does not take " +
           std::string(refused) + "; give " + std::string(takes));
  });
  f.read_required(takes, [&](const ConfigNode& n) { r.mean = n.as_positive_duration(); });
  return r;
}

std::optional<FailureProcessSpec> read_process(const ConfigNode& node, const FailuresContext& ctx,
                                               ConfigErrors& errors) {
  const size_t before = errors.size();
  const ConfigFields f(node, {"component", "gpuModel", "mtbf", "timeToFailure", "repair", "cause"},
                       errors);
  if (!f.valid()) return std::nullopt;
  FailureProcessSpec p;
  f.read_required("component", [&](const ConfigNode& n) {
    p.component = n.as_enum<FailureComponent>({{"gpu", FailureComponent::kGpu},
                                               {"node", FailureComponent::kNode},
                                               {"rack", FailureComponent::kRack}});
  });
  p.cause = default_cause(p.component);
  f.read("gpuModel", [&](const ConfigNode& n) { p.gpu_model = read_gpu_model(n, ctx); });
  const std::optional<ConfigNode> mtbf = f.optional("mtbf");
  const std::optional<ConfigNode> ttf = f.optional("timeToFailure");
  if (mtbf && ttf)
    refuse_both(*mtbf, *ttf,
                "give mtbf or timeToFailure, not both (mtbf: X is short for timeToFailure: "
                "{distribution: exponential, mtbf: X})",
                errors);
  if (!mtbf && !ttf) f.missing("mtbf", " (or timeToFailure)");
  f.read("mtbf", [&](const ConfigNode& n) {
    p.time_to_failure.kind = TimeToFailure::Kind::kExponential;
    p.time_to_failure.mtbf = n.as_positive_duration();
  });
  if (ttf) errors.attempt([&] { read_time_to_failure(*ttf, p.time_to_failure, errors); });
  f.read_required("repair", [&](const ConfigNode& n) { p.repair = read_repair(n, errors); });
  f.read("cause", [&](const ConfigNode& n) { p.cause = n.as_name(); });
  if (errors.size() != before) return std::nullopt;
  return p;
}

// The nodes of `nodes: [a, b]`, in file order.
std::vector<NodeId> read_node_list(const ConfigNode& list, const FailuresContext& ctx,
                                   ConfigErrors& errors) {
  const std::vector<ConfigNode> items = list.as_sequence();
  if (items.empty()) list.fail("expected `all` or at least one node name");
  std::vector<NodeId> out;
  std::map<std::string, int, std::less<>> lines;  // name -> line of its first mention
  for (const ConfigNode& item : items)
    errors.attempt([&] {
      const std::string name = item.as_name();
      const auto [it, inserted] = lines.emplace(name, item.location().line);
      if (!inserted)
        item.fail("node " + quote_for_message(name) + " is listed twice (first at line " +
                  std::to_string(it->second) + ")");
      if (!ctx.topology_ok) return;
      const auto node = ctx.nodes.find(name);
      if (node == ctx.nodes.end())
        item.fail("no node named " + quote_for_message(name) + " in the cluster");
      out.push_back(node->second);
    });
  return out;
}

std::optional<MaintenanceSpec> read_maintenance(const ConfigNode& node, const FailuresContext& ctx,
                                                ConfigErrors& errors) {
  const size_t before = errors.size();
  const ConfigFields f(
      node, {"nodes", "rack", "start", "every", "deadline", "duration", "concurrent", "cause"},
      errors);
  if (!f.valid()) return std::nullopt;
  MaintenanceSpec m;
  const std::optional<ConfigNode> nodes = f.optional("nodes");
  const std::optional<ConfigNode> rack = f.optional("rack");
  if (nodes && rack) refuse_both(*nodes, *rack, "give nodes or rack, not both", errors);
  if (!nodes && !rack) f.missing("nodes", " (all, a list of node names, or rack: NAME)");
  f.read("nodes", [&](const ConfigNode& n) {
    if (n.is_sequence()) {
      m.target = MaintenanceSpec::Target::kNodes;
      m.nodes = read_node_list(n, ctx, errors);
      return;
    }
    if (!n.is_scalar() || n.as_string() != "all")
      n.fail("expected `all` or a list of node names, got " +
             (n.is_scalar() ? quote_for_message(n.as_string()) : std::string("a map")));
    m.target = MaintenanceSpec::Target::kAll;
  });
  f.read("rack", [&](const ConfigNode& n) {
    m.target = MaintenanceSpec::Target::kRack;
    const std::string name = n.as_name();
    if (!ctx.topology_ok) return;
    const std::vector<std::string>& racks = ctx.topology.racks;
    const auto it = std::find(racks.begin(), racks.end(), name);
    if (it == racks.end())
      n.fail("no rack named " + quote_for_message(name) +
             " in the cluster (racks: " + some_names(racks) + ")");
    m.rack = static_cast<RackId>(it - racks.begin());
  });
  f.read("start", [&](const ConfigNode& n) { m.start = n.as_duration(); });
  const bool every_ok =
      f.read("every", [&](const ConfigNode& n) { m.every = n.as_positive_duration(); });
  f.read("deadline", [&](const ConfigNode& n) { m.deadline = n.as_duration(); });
  f.read_required("duration", [&](const ConfigNode& n) { m.duration = n.as_positive_duration(); });
  f.read("concurrent", [&](const ConfigNode& n) {
    m.concurrent = static_cast<int>(n.as_int(1, std::numeric_limits<int32_t>::max()));
  });
  f.read("cause", [&](const ConfigNode& n) { m.cause = n.as_name(); });
  if (errors.size() != before) return std::nullopt;
  if (every_ok && ctx.topology_ok) {
    int64_t count = 0;
    switch (m.target) {
      case MaintenanceSpec::Target::kAll:
        count = static_cast<int64_t>(ctx.topology.nodes.size());
        break;
      case MaintenanceSpec::Target::kRack:
        count = std::count_if(ctx.topology.nodes.begin(), ctx.topology.nodes.end(),
                              [&](const NodeInfo& info) { return info.rack == m.rack; });
        break;
      case MaintenanceSpec::Target::kNodes:
        count = static_cast<int64_t>(m.nodes.size());
        break;
    }
    const int64_t batches = m.concurrent > 0 ? (count + m.concurrent - 1) / m.concurrent : 1;
    const std::optional<Duration> round =
        checked_mul(saturating_add(m.deadline, m.duration), batches);
    if (!round || *round > *m.every) {
      const ConfigNode every = *f.optional("every");
      errors.add(every, "a round drains " + std::to_string(count) + " node(s) in " +
                            std::to_string(batches) + " batch(es) of deadline + duration = " +
                            format_duration_exact(m.deadline + m.duration) + " each, " +
                            (round ? format_duration_exact(*round) : std::string("far too long")) +
                            " in all, longer than every (" + every.as_string() +
                            "): the next round would start before this one ends");
      return std::nullopt;
    }
  }
  return m;
}

// The items of an optional list field, at most `max` of them; nullopt when unreadable.
std::optional<std::vector<ConfigNode>> read_list(const ConfigFields& f, std::string_view key,
                                                 int64_t max, std::string_view what) {
  std::optional<std::vector<ConfigNode>> items;
  f.read(key, [&](const ConfigNode& list) {
    std::vector<ConfigNode> v = list.as_sequence();
    if (static_cast<int64_t>(v.size()) > max)
      list.fail(std::to_string(v.size()) + " " + std::string(what) + "; at most " +
                std::to_string(max) + " are simulated");
    items = std::move(v);
  });
  return items;
}

}  // namespace

FaultSpec read_failures(const ConfigNode& node, const Topology& topology, bool topology_ok,
                        ConfigErrors& errors) {
  FaultSpec out;
  const ConfigFields f(node, {"preset", "processes", "maintenance"}, errors);
  if (!f.valid()) return out;
  FailuresContext ctx{topology, topology_ok, {}};
  if (topology_ok)
    for (size_t n = 0; n < topology.nodes.size(); ++n)
      ctx.nodes.emplace(topology.nodes[n].name, static_cast<NodeId>(n));

  std::vector<FailureProcessSpec> preset;
  f.read("preset", [&](const ConfigNode& n) {
    if (!n.as_enum<bool>({{"none", false}, {"llama3", true}})) return;
    // The paper's rates are H100 rates (HBM3 faults among them): carrying them over to other
    // GPUs is the user's modelling choice, made by writing the processes out, not a silent
    // default; and a preset that applies to no node would model no failure at all.
    if (ctx.topology_ok && !some_node_has(ctx, kLlama3GpuModel))
      n.fail("the llama3 preset models the failures of the Llama 3 paper's " +
             std::string(kLlama3GpuModel) + " GPUs and applies to " + std::string(kLlama3GpuModel) +
             " nodes only; no node of this cluster has one (its GPU types: " +
             node_gpu_models_text(ctx.topology) +
             "). To use its rates for other GPUs, write its two processes under `processes:` "
             "without gpuModel (scenarios/scale-1m.yaml does)");
    preset = llama3_h100_processes();
  });
  std::vector<FailureProcessSpec> own;
  if (const auto items = read_list(f, "processes", kMaxFailureProcesses, "processes"))
    for (const ConfigNode& item : *items)
      if (std::optional<FailureProcessSpec> p = read_process(item, ctx, errors))
        own.push_back(std::move(*p));
  for (FailureProcessSpec& p : preset) {
    const bool replaced = std::any_of(own.begin(), own.end(), [&](const FailureProcessSpec& q) {
      return q.component == p.component && iequals(q.gpu_model, p.gpu_model);
    });
    if (!replaced) out.processes.push_back(std::move(p));
  }
  for (FailureProcessSpec& p : own) out.processes.push_back(std::move(p));

  if (const auto items = read_list(f, "maintenance", kMaxMaintenanceEntries, "maintenance entries"))
    for (const ConfigNode& item : *items)
      if (std::optional<MaintenanceSpec> m = read_maintenance(item, ctx, errors))
        out.maintenance.push_back(std::move(*m));
  return out;
}

}  // namespace gantry
