#include "engine/config/resource_fields.hpp"

namespace gantry {

int64_t read_cpu(const ConfigNode& n) {
  const int64_t v = n.as_cpu_milli();
  if (v > kMaxCpuMilli) n.fail("more than 1000000 CPUs is surely a typo");
  return v;
}

int64_t read_memory(const ConfigNode& n) {
  const int64_t v = n.as_bytes();
  if (v > kMaxMemory) n.fail("more than 64Ti of memory is surely a typo");
  return v;
}

}  // namespace gantry
