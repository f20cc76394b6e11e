#pragma once
// The Kubernetes subset of node metadata the policies need in both worlds: labels that a pod's
// nodeSelector must match, and taints that keep pods off a node unless they tolerate them
// (https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/).
//
// Matching follows Kubernetes:
//   - nodeSelector: every key must be a label of the node with exactly that value;
//   - a toleration matches a taint when the keys are equal (or the toleration's key is empty
//     with operator Exists: it tolerates everything), the operator is Exists or the values are
//     equal (Equal), and the effects are equal or the toleration's effect is empty (all);
//   - a pod may be placed on a node when every taint with effect NoSchedule or NoExecute is
//     tolerated; PreferNoSchedule taints never forbid a node (a preference, not a filter).

#include <map>
#include <string>
#include <vector>

namespace gantry {

using Labels = std::map<std::string, std::string>;

enum class TaintEffect { kNoSchedule, kPreferNoSchedule, kNoExecute };
const char* to_string(TaintEffect e);

struct Taint {
  std::string key;
  std::string value;
  TaintEffect effect = TaintEffect::kNoSchedule;
  bool operator==(const Taint&) const = default;
};

struct Toleration {
  enum class Operator { kEqual, kExists };
  std::string key;  // empty with kExists: tolerates every taint
  Operator op = Operator::kEqual;
  std::string value;
  bool any_effect = true;  // Kubernetes' empty effect
  TaintEffect effect = TaintEffect::kNoSchedule;
  bool operator==(const Toleration&) const = default;
};

// Does `selector` hold for a node with these labels? An empty selector matches every node.
bool selector_matches(const Labels& selector, const Labels& node_labels);
bool tolerates(const Toleration& toleration, const Taint& taint);
// May a pod with these tolerations be placed on a node with these taints?
bool tolerates_all(const std::vector<Toleration>& tolerations, const std::vector<Taint>& taints);

}  // namespace gantry
