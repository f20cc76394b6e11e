#pragma once
// Resource vectors for requests and capacities.

#include <cstdint>

namespace gantry {

struct Resources {
  int64_t cpu_milli = 0;     // 1000 = one core
  int64_t memory_bytes = 0;
  int32_t gpus = 0;          // whole GPUs

  bool fits_in(const Resources& free) const {
    return cpu_milli <= free.cpu_milli && memory_bytes <= free.memory_bytes && gpus <= free.gpus;
  }
  Resources& operator+=(const Resources& o) {
    cpu_milli += o.cpu_milli;
    memory_bytes += o.memory_bytes;
    gpus += o.gpus;
    return *this;
  }
  Resources& operator-=(const Resources& o) {
    cpu_milli -= o.cpu_milli;
    memory_bytes -= o.memory_bytes;
    gpus -= o.gpus;
    return *this;
  }
  bool operator==(const Resources&) const = default;
};

}  // namespace gantry
