#include "engine/config/resource_fields.hpp"

namespace gantry {

int64_t read_cpu(const ConfigNode& n) { return n.as_cpu_milli(kMaxCpuMilli); }

int64_t read_memory(const ConfigNode& n) { return n.as_bytes(kMaxMemory); }

}  // namespace gantry
