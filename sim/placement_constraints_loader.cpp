#include "sim/placement_constraints_loader.hpp"

#include <algorithm>

#include "engine/config/config_fields.hpp"

namespace gantry {

namespace {

TaintEffect read_effect(const ConfigNode& node) {
  return node.as_enum<TaintEffect>({{"NoSchedule", TaintEffect::kNoSchedule},
                                    {"PreferNoSchedule", TaintEffect::kPreferNoSchedule},
                                    {"NoExecute", TaintEffect::kNoExecute}});
}

}  // namespace

Labels read_labels(const ConfigNode& node, ConfigErrors& errors) {
  Labels labels;
  errors.attempt([&] {
    for (const ConfigEntry& e : node.as_entries())
      errors.attempt([&] { labels[e.key.as_name()] = e.value.as_name(); });
  });
  return labels;
}

std::vector<Taint> read_taints(const ConfigNode& node, ConfigErrors& errors) {
  std::vector<Taint> taints;
  errors.attempt([&] {
    for (const ConfigNode& item : node.as_sequence()) {
      const ConfigFields m(item, {"key", "value", "effect"}, errors);
      Taint t;
      m.read_required("key", [&](const ConfigNode& n) { t.key = n.as_name(); });
      m.read("value", [&](const ConfigNode& n) { t.value = n.as_string(); });
      m.read_required("effect", [&](const ConfigNode& n) { t.effect = read_effect(n); });
      taints.push_back(std::move(t));
    }
  });
  return taints;
}

std::vector<Toleration> read_tolerations(const ConfigNode& node, ConfigErrors& errors) {
  std::vector<Toleration> out;
  errors.attempt([&] {
    for (const ConfigNode& item : node.as_sequence()) {
      const ConfigFields m(item, {"key", "operator", "value", "effect"}, errors);
      Toleration t;
      const bool op_ok = !m.has("operator") || m.read("operator", [&](const ConfigNode& n) {
        t.op = n.as_enum<Toleration::Operator>(
            {{"Equal", Toleration::Operator::kEqual}, {"Exists", Toleration::Operator::kExists}});
      });
      m.read("key", [&](const ConfigNode& n) { t.key = n.as_name(); });
      if (m.valid() && op_ok && !m.has("key") && t.op == Toleration::Operator::kEqual)
        errors.add(item,
                   "a toleration without a key needs operator: Exists (it then tolerates "
                   "every taint)");
      m.read("value", [&](const ConfigNode& n) {
        if (op_ok && t.op == Toleration::Operator::kExists)
          n.fail("operator Exists takes no value");
        t.value = n.as_string();
      });
      m.read("effect", [&](const ConfigNode& n) {
        t.effect = read_effect(n);
        t.any_effect = false;
      });
      out.push_back(std::move(t));
    }
  });
  return out;
}

void check_some_node_admits(const ConfigNode& where, const Topology& topology,
                            const Labels& selector, const std::vector<Toleration>& tolerations) {
  const bool any =
      std::any_of(topology.nodes.begin(), topology.nodes.end(), [&](const NodeInfo& n) {
        return selector_matches(selector, n.labels) && tolerates_all(tolerations, n.taints);
      });
  if (!any)
    where.fail(
        "no node of spec.cluster matches this job's nodeSelector and tolerates its taints; "
        "the job could never run");
}

}  // namespace gantry
