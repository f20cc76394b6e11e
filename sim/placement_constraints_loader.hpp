#pragma once
// Scenario keys for Kubernetes placement constraints, read strictly (every error names the
// file, line, column and field, as the rest of the loader):
//
//   nodeClasses: [{..., labels: {pool: spot, zone: a},
//                       taints: [{key: spot, value: "true", effect: NoSchedule}]}]
//   jobs:        [{..., nodeSelector: {pool: spot},
//                       tolerations: [{key: spot, operator: Equal, value: "true", effect:
//                       NoSchedule}]}]
//
// Label keys and values are non-empty names; a taint's value may be empty. effect is NoSchedule,
// PreferNoSchedule or NoExecute (absent on a toleration: every effect); operator is Equal (the
// default) or Exists, which takes no value. Matching rules: engine/cluster/node_labels.hpp.
//
// The readers record every problem in `errors` (engine/config/config_errors.hpp) and return
// what they could read.

#include <vector>

#include "engine/cluster/node_labels.hpp"
#include "engine/cluster/topology.hpp"
#include "engine/config/config_errors.hpp"
#include "engine/config/reader.hpp"

namespace gantry {

Labels read_labels(const ConfigNode& node, ConfigErrors& errors);
std::vector<Taint> read_taints(const ConfigNode& node, ConfigErrors& errors);
std::vector<Toleration> read_tolerations(const ConfigNode& node, ConfigErrors& errors);

// A job whose constraints no node of the topology satisfies would wait forever: throws
// InputError at `where` (the job's nodeSelector, or its name when only taints keep it out).
void check_some_node_admits(const ConfigNode& where, const Topology& topology,
                            const Labels& selector, const std::vector<Toleration>& tolerations);

}  // namespace gantry
