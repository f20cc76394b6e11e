#include "sim/placement_constraints_loader.hpp"

#include <algorithm>

namespace gantry {

namespace {

TaintEffect read_effect(const ConfigNode& node) {
  return node.as_enum<TaintEffect>({{"NoSchedule", TaintEffect::kNoSchedule},
                                    {"PreferNoSchedule", TaintEffect::kPreferNoSchedule},
                                    {"NoExecute", TaintEffect::kNoExecute}});
}

}  // namespace

Labels read_labels(const ConfigNode& node) {
  Labels labels;
  for (const ConfigEntry& e : node.as_entries()) labels[e.key.as_name()] = e.value.as_name();
  return labels;
}

std::vector<Taint> read_taints(const ConfigNode& node) {
  std::vector<Taint> taints;
  for (const ConfigNode& item : node.as_sequence()) {
    const ConfigMap m = item.as_map({"key", "value", "effect"});
    Taint t;
    t.key = m.required("key").as_name();
    if (auto v = m.optional("value")) t.value = v->as_string();
    t.effect = read_effect(m.required("effect"));
    taints.push_back(std::move(t));
  }
  return taints;
}

std::vector<Toleration> read_tolerations(const ConfigNode& node) {
  std::vector<Toleration> out;
  for (const ConfigNode& item : node.as_sequence()) {
    const ConfigMap m = item.as_map({"key", "operator", "value", "effect"});
    Toleration t;
    if (auto op = m.optional("operator"))
      t.op = op->as_enum<Toleration::Operator>(
          {{"Equal", Toleration::Operator::kEqual}, {"Exists", Toleration::Operator::kExists}});
    if (auto k = m.optional("key")) t.key = k->as_name();
    if (t.key.empty() && t.op == Toleration::Operator::kEqual)
      item.fail("a toleration without a key needs operator: Exists (it then tolerates every taint)");
    if (auto v = m.optional("value")) {
      if (t.op == Toleration::Operator::kExists) v->fail("operator Exists takes no value");
      t.value = v->as_string();
    }
    if (auto e = m.optional("effect")) {
      t.any_effect = false;
      t.effect = read_effect(*e);
    }
    out.push_back(std::move(t));
  }
  return out;
}

void check_some_node_admits(const ConfigNode& where, const Topology& topology,
                            const Labels& selector, const std::vector<Toleration>& tolerations) {
  const bool any = std::any_of(topology.nodes.begin(), topology.nodes.end(), [&](const NodeInfo& n) {
    return selector_matches(selector, n.labels) && tolerates_all(tolerations, n.taints);
  });
  if (!any)
    where.fail("no node of spec.cluster matches this job's nodeSelector and tolerates its taints; "
               "the job could never run");
}

}  // namespace gantry
