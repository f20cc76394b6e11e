#pragma once
// Reading of the resource fields every file kind shares, with one spelling and one message
// each, so a scenario's role and a pipeline's task ask for resources in the same words:
//
//   resources: {cpu: "8", memory: 64Gi, gpu: 2}      # also cpu: 500m or 0.5; gpu: "0.5"
//
//   cpu      millicores: "2", "0.5", "500m"; at most kMaxCpuMilli
//   memory   bytes: "64Gi", "1.5GB"; at most kMaxMemory
//   gpu      whole GPUs, "1" to "64" (quoted or not), or a share of one GPU below 1 with at
//            most three decimals, "0.5" = 500 milli-GPU (engine/cluster/resources.hpp). No other
//            spelling: "500m" and "1.5" are errors, so every request has exactly one form.
//
// The limits are sanity limits: values past them are typos, and they keep sums of requests
// over nodes and replicas inside int64.
//
// Depends on engine/cluster's Resources (a plain struct) besides engine/config, which is why
// it is a library of its own (gantry_config_resources).

#include <cstdint>

#include "engine/cluster/resources.hpp"
#include "engine/config/reader.hpp"

namespace gantry {

inline constexpr int64_t kMaxCpuMilli = 1'000'000'000;  // one node or pod: a million cores
inline constexpr int64_t kMaxMemory = 64ll << 40;       // one node or pod: 64 TiB
// One pod's whole GPUs: a node's GPUs are tracked in a 64-bit mask (Cluster::free_gpu_mask).
inline constexpr int64_t kMaxGpusPerPod = 64;

// CPU in millicores; InputError past kMaxCpuMilli ("expected a CPU amount from 0 to 1000000,
// got ... (value out of range)").
int64_t read_cpu(const ConfigNode& n);
// Memory in bytes; InputError past kMaxMemory.
int64_t read_memory(const ConfigNode& n);
// A GPU request into r.gpus and r.gpu_milli (one of them non-zero, or both zero for "0");
// InputError "expected a GPU count such as 1 or 2, or a share of one GPU below 1 such as 0.5,
// got '1.5' (...)" for anything else.
void read_gpu(const ConfigNode& n, Resources& r);

}  // namespace gantry
