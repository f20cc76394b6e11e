#pragma once
// The GPU part of a request as the Alibaba openb trace spells it (columns num_gpu and
// gpu_milli, where gpu_milli is per GPU), mapped to the one spelling of engine/cluster/
// resources.hpp: (0, 0) no GPU; (1, m) with 1 <= m <= 999 a share of m milli; (k, 1000) with
// 1 <= k <= 64 k whole GPUs (so "num_gpu=1, gpu_milli=1000" is one whole GPU). Any other
// combination (2 GPUs at 500 milli each, say) has no mapping: the cluster model cannot express
// it. Trace-specific, so it lives with the trace importers, not in engine/.

#include <cstdint>
#include <optional>

#include "engine/cluster/resources.hpp"

namespace gantry {

// {gpus, gpu_milli} as Resources (cpu and memory 0), or nullopt when there is no mapping.
inline std::optional<Resources> openb_gpu_request(int64_t num_gpu, int64_t gpu_milli) {
  Resources r;
  if (num_gpu == 0 && gpu_milli == 0) return r;
  if (num_gpu == 1 && gpu_milli >= 1 && gpu_milli < kMilliPerGpu) {
    r.gpu_milli = static_cast<int32_t>(gpu_milli);
    return r;
  }
  if (num_gpu >= 1 && num_gpu <= 64 && gpu_milli == kMilliPerGpu) {
    r.gpus = static_cast<int32_t>(num_gpu);
    return r;
  }
  return std::nullopt;
}

}  // namespace gantry
