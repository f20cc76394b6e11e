#pragma once
// Reading of the resource fields every file kind shares (`cpu: "8"`, `memory: 64Gi`), with the
// same sanity limits everywhere: values past them are typos, and the limits keep sums of
// requests over nodes and replicas inside int64.

#include <cstdint>

#include "engine/config/reader.hpp"

namespace gantry {

inline constexpr int64_t kMaxCpuMilli = 1'000'000'000;  // one node or pod: a million cores
inline constexpr int64_t kMaxMemory = 64ll << 40;       // one node or pod: 64 TiB

// CPU in millicores ("2", "500m", "0.5"); InputError past kMaxCpuMilli ("expected a CPU amount
// from 0 to 1000000, got ... (value out of range)").
int64_t read_cpu(const ConfigNode& n);
// Memory in bytes ("64Gi"); InputError past kMaxMemory.
int64_t read_memory(const ConfigNode& n);

}  // namespace gantry
