#include "engine/cluster/node_labels.hpp"

#include <algorithm>

namespace gantry {

const char* to_string(TaintEffect e) {
  switch (e) {
    case TaintEffect::kNoSchedule:
      return "NoSchedule";
    case TaintEffect::kPreferNoSchedule:
      return "PreferNoSchedule";
    case TaintEffect::kNoExecute:
      return "NoExecute";
  }
  return "?";
}

bool selector_matches(const Labels& selector, const Labels& node_labels) {
  return std::all_of(selector.begin(), selector.end(), [&](const auto& kv) {
    const auto it = node_labels.find(kv.first);
    return it != node_labels.end() && it->second == kv.second;
  });
}

bool tolerates(const Toleration& t, const Taint& taint) {
  if (!t.any_effect && t.effect != taint.effect) return false;
  if (t.op == Toleration::Operator::kExists) return t.key.empty() || t.key == taint.key;
  return t.key == taint.key && t.value == taint.value;
}

bool tolerates_all(const std::vector<Toleration>& tolerations, const std::vector<Taint>& taints) {
  return std::all_of(taints.begin(), taints.end(), [&](const Taint& taint) {
    if (taint.effect == TaintEffect::kPreferNoSchedule) return true;
    return std::any_of(tolerations.begin(), tolerations.end(),
                       [&](const Toleration& t) { return tolerates(t, taint); });
  });
}

}  // namespace gantry
