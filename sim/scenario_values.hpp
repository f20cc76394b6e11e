#pragma once
// Value readers and limits that the parts of a Scenario file (sim/cluster_loader.hpp,
// sim/workload_loader.hpp, sim/scenario_loader.hpp) share. Each reader throws InputError at
// the node; the loaders run them inside ConfigErrors::attempt so every error is collected.

#include <string>
#include <string_view>

#include "engine/cluster/gpu_type.hpp"
#include "engine/config/reader.hpp"
#include "engine/core/time.hpp"

namespace gantry {

// A node's GPUs are tracked in a 64-bit mask (Cluster::free_gpu_mask).
inline constexpr int64_t kMaxGpusPerNode = 64;

// A bandwidth above zero ("a bandwidth must be greater than zero").
double read_positive_bandwidth(const ConfigNode& n);

// start + offset, refusing instants past kLatestTime ("the offset puts the instant past ...").
Time offset_time(const ConfigNode& n, Time start, Duration offset);

// kLatestTime as RFC 3339, for messages.
const std::string& latest_time_text();

// A GPU type of `catalog` by name: "unknown GPU type 'B300'; known types: A100-80G, ... (add
// others under spec.cluster.gpuTypes)"; `hint` replaces what the parentheses say.
GpuTypeId read_gpu_type(const ConfigNode& n, const GpuCatalog& catalog,
                        std::string_view hint = "add others under spec.cluster.gpuTypes");

}  // namespace gantry
