#pragma once
// Reads a Scenario's `spec.experiment` block (kind: Fragmentation):
//
//   experiment:
//     kind: Fragmentation
//     nodes: {format: openb-nodes, file: data/openb/openb_node_list_gpu_node.csv}
//     pods: {format: openb-pods, file: data/openb/openb_pod_list_default.csv}
//     arrivalLimit: 130          # percent of cluster GPU capacity, default 130
//     seeds: 10                  # default 10
//     typicalPodCoverage: 0.95   # default 0.95
//     policies: [Random, DotProduct, GpuClustering, GpuPacking, BestFit, FGD]   # default: all
//     variants:                  # optional sweep over pod lists
//     - {name: gpushare20, pods: {format: openb-pods, file: data/openb/openb_pod_list_gpushare20.csv}}
//
// Files are resolved against the scenario file's folder. Errors are InputError with position.

#include "engine/config/reader.hpp"
#include "sim/fragmentation_spec.hpp"

namespace gantry {

FragmentationExperimentSpec read_fragmentation_experiment(const ConfigNode& node);

// `{format: F, file: PATH}` with F one of `formats`; PATH resolved against the file's folder and
// required to exist.
TraceRef read_trace_ref(const ConfigNode& node, std::initializer_list<std::string_view> formats);

}  // namespace gantry
