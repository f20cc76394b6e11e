#pragma once
// Reads the fields of a fragmentation experiment (spec of a `kind: Experiment` file with
// `type: Fragmentation`, sim/experiment_loader.hpp):
//
//   nodes: {format: openb-nodes, file: data/openb/openb_node_list_gpu_node.csv}
//   pods: {format: openb-pods, file: data/openb/openb_pod_list_default.csv}
//   arrivalLimit: 130          # percent of cluster GPU capacity, 1..1000, default 130
//   seeds: 10                  # 1..1000, default 10
//   typicalPodCoverage: 0.95   # (0, 1], default 0.95
//   policies: [Random, DotProduct, GpuClustering, GpuPacking, BestFit, FGD]   # default: all
//   variants:                  # optional sweep over pod lists, names unique
//   - {name: gpushare20, pods: {format: openb-pods, file:
//   data/openb/openb_pod_list_gpushare20.csv}}
//
// Files are resolved against the experiment file's folder and must exist. Every problem is
// recorded in the collector (engine/config/config_errors.hpp) with its position.

#include <initializer_list>
#include <optional>
#include <string_view>

#include "engine/config/config_errors.hpp"
#include "engine/config/config_fields.hpp"
#include "sim/fragmentation_spec.hpp"

namespace gantry {

// The fields above of `spec`, which must allow them all (and may have others, read by the
// caller). Defaults for those absent.
FragmentationExperimentSpec read_fragmentation_fields(const ConfigFields& spec);

// `{format: F, file: PATH}` with F one of `formats`; PATH resolved against the file's folder and
// required to exist. nullopt after recording what is wrong.
std::optional<TraceRef> read_trace_ref(const ConfigNode& node,
                                       std::initializer_list<std::string_view> formats,
                                       ConfigErrors& errors);

}  // namespace gantry
