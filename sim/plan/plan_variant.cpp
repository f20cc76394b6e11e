#include "sim/plan/plan_variant.hpp"

#include <fmt/format.h>

#include <map>

#include "engine/config/config_errors.hpp"
#include "engine/config/envelope.hpp"
#include "engine/config/quote.hpp"
#include "sim/scenario_loader.hpp"
#include "sim/sweep/document_path.hpp"
#include "sim/sweep/load_growth.hpp"

namespace gantry {

namespace {

const std::vector<PathStep>& racks_path() {
  static const std::vector<PathStep> path = *parse_path("spec.cluster.racks");
  return path;
}

std::string flow(const YAML::Node& node) {
  YAML::Emitter out;
  out << YAML::Flow << node;
  return out.c_str();
}

// JSON string syntax is valid YAML double-quoted syntax: names are quoted safely.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

ScenarioSpec load_with_racks(const std::string& text, const std::string& file,
                             const std::string& racks, const TraceLoaders& traces) {
  ConfigNode document = parse_yaml_document(text, file);
  YAML::Node root;
  root.reset(document.yaml());
  set_at_path(root, racks_path(), YAML::Load(racks));
  ConfigErrors errors;
  ScenarioSpec s;
  if (std::optional<Envelope> envelope = read_envelope(document, {"Scenario"}, errors))
    s = read_scenario(*envelope, traces, errors);
  errors.throw_if_any({file});
  return s;
}

}  // namespace

PlanVariants::PlanVariants(const PlanSpec& plan, const TraceLoaders& traces)
    : plan_(&plan), traces_(traces), base_text_(read_text_file(plan.base)) {
  const ScenarioSpec base = load_scenario_text(base_text_, plan.base, traces);
  ConfigErrors errors;
  const ConfigNode document = parse_yaml_document(base_text_, plan.base);
  const YAML::Node racks = value_at_path(document.yaml(), racks_path());
  if (!racks.IsDefined() || !racks.IsSequence()) {
    errors.add(InputError(plan.base_where, "spec.base",
                          fmt::format("a plan sizes racks, and {} has no spec.cluster.racks (its "
                                      "cluster is read from a trace?); describe it with "
                                      "nodeClasses and racks",
                                      plan.base_as_written)));
    errors.throw_if_any();
  }
  std::map<std::string, size_t> pool_of;
  for (size_t i = 0; i < plan.pools.size(); ++i) pool_of[plan.pools[i].node_class] = i;
  nodes_per_rack_.assign(plan.pools.size(), 0);
  names_.assign(plan.pools.size(), {});
  for (const YAML::Node& rack : racks) {
    const std::string cls = rack["class"].Scalar();
    const auto it = pool_of.find(cls);
    if (it == pool_of.end()) {
      kept_racks_.push_back(flow(rack));
      continue;
    }
    names_[it->second].push_back(rack["name"].Scalar());
    nodes_per_rack_[it->second] =
        std::max(nodes_per_rack_[it->second], rack["nodes"].as<int64_t>());
  }
  for (size_t i = 0; i < plan.pools.size(); ++i) {
    const PlanPool& pool = plan.pools[i];
    std::vector<std::string> classes;
    bool known = false;
    for (const NodeClass& c : base.topology.classes) {
      classes.push_back(c.name);
      known = known || c.name == pool.node_class;
    }
    if (!known) {
      errors.add(
          InputError(pool.where, pool.field + ".class",
                     fmt::format("{} declares no node class '{}' (its classes: {})",
                                 plan.base_as_written, pool.node_class, fmt::join(classes, ", "))));
      continue;
    }
    if (pool.nodes_per_rack > 0) nodes_per_rack_[i] = pool.nodes_per_rack;
    if (nodes_per_rack_[i] == 0)
      errors.add(InputError(pool.where, pool.field,
                            fmt::format("{} has no rack of class '{}' to take its size from; "
                                        "give nodesPerRack",
                                        plan.base_as_written, pool.node_class)));
  }
  errors.throw_if_any();

  slos_ = plan.slos;
  for (const ServiceSpec& service : base.workload.services) {
    if (service.slo.p99_latency <= Duration(0)) continue;
    const std::string metric = "service." + service.name + ".p99";
    bool stated = false;
    for (const PlanSlo& s : plan.slos) stated = stated || s.metric == metric;
    if (!stated)
      slos_.push_back(PlanSlo{
          .metric = metric,
          .limit = service.slo.p99_latency.seconds(),
          .at_most = true,
          .text = fmt::format("{}s (the service's slo.p99)", service.slo.p99_latency.seconds()),
          .from_service = true,
          .where = plan.base_where,
          .field = "spec.base"});
  }

  if (slos_.empty())
    throw InputError(plan.base_where, "spec.slo",
                     fmt::format("nothing to plan for: give spec.slo (e.g. {{wait.p95: 1h}}), or "
                                 "an slo to a service of {}",
                                 plan.base_as_written));

  // The largest configuration at the largest growth must be a scenario; so must the smallest.
  double largest_growth = 0;
  for (double g : plan.growth) largest_growth = std::max(largest_growth, g);
  std::vector<int64_t> top, bottom;
  int64_t bottom_nodes = 0;
  for (const PlanPool& p : plan.pools) {
    top.push_back(p.max);
    bottom.push_back(p.min);
    bottom_nodes += p.min;
  }
  try {
    const ScenarioSpec s = scenario(largest_growth, top);
    const int64_t jobs = scenario_job_count(s);
    if (jobs > kMaxScenarioJobs)
      throw InputError({}, "",
                       fmt::format("growth {} makes {} jobs; a scenario has at most {}",
                                   largest_growth, jobs, kMaxScenarioJobs));
    if (bottom_nodes > 0 || !kept_racks_.empty()) scenario(largest_growth, bottom);
  } catch (const InputError& e) {
    throw InputError(plan.pools.front().where, "spec.pools",
                     fmt::format("the plan's configurations are not valid scenarios of {}: {}",
                                 plan.base_as_written, e.what()));
  }
}

std::string PlanVariants::racks_yaml(const std::vector<int64_t>& sizes) const {
  std::vector<std::string> racks = kept_racks_;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int64_t per_rack = nodes_per_rack_[i];
    for (int64_t left = sizes[i], k = 0; left > 0; left -= per_rack, ++k) {
      const std::string name = static_cast<size_t>(k) < names_[i].size()
                                   ? names_[i][static_cast<size_t>(k)]
                                   : fmt::format("{}-{}", plan_->pools[i].node_class, k + 1);
      racks.push_back(fmt::format("{{name: {}, class: {}, nodes: {}}}", quoted(name),
                                  quoted(plan_->pools[i].node_class), std::min(left, per_rack)));
    }
  }
  return fmt::format("[{}]", fmt::join(racks, ", "));
}

ScenarioSpec PlanVariants::scenario(double growth, const std::vector<int64_t>& sizes) const {
  ScenarioSpec s = load_with_racks(base_text_, plan_->base, racks_yaml(sizes), traces_);
  grow_load(s, growth);
  return s;
}

double PlanVariants::cost_per_hour(const std::vector<int64_t>& sizes) const {
  double cost = 0;
  for (size_t i = 0; i < sizes.size(); ++i)
    cost += static_cast<double>(sizes[i]) * plan_->pools[i].price_per_node_hour;
  return cost;
}

}  // namespace gantry
