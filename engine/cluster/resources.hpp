#pragma once
// Resource vectors for requests and capacities.
//
// GPUs come in two grains. A GPU holds kMilliPerGpu (1000) milli-GPU, and a pod asks for one of:
//   - whole GPUs: gpus = k >= 1, gpu_milli = 0. The pod takes k GPUs of one node that are
//     fully free (nobody else uses them).
//   - a share of one GPU: gpus = 0, gpu_milli = m in 1..999. The pod fits inside one GPU
//     alongside other share pods, as long as that GPU has at least m milli free (GPU sharing:
//     time slicing, MPS, vGPU or shared GPU memory; the model does not care which).
//   - no GPU: gpus = 0, gpu_milli = 0.
// A request with both gpus > 0 and gpu_milli > 0 is invalid (asserted where it matters).
// A share of 1000 is spelled gpus = 1, gpu_milli = 0: a pod that wants a whole GPU takes it
// whole, so there is exactly one spelling of each request (a trace's other spellings are mapped
// to it where the trace is read: adapters/traces/openb_gpu_request.hpp).
//
// In a node's *free* vector (Cluster::free()) the GPU fields mean: gpus = number of fully free
// GPUs; gpu_milli = the largest free milli among the node's partly used GPUs (0 < free < 1000),
// 0 if none is partly used. So an untouched node's free vector equals its capacity (whose
// gpu_milli is 0), and fits_in() answers exactly "does the pod's GPU request fit on this node"
// for all three kinds of request: a share fits in a partly used GPU with room or in any fully
// free GPU.

#include <cstdint>

namespace gantry {

inline constexpr int32_t kMilliPerGpu = 1000;

struct Resources {
  int64_t cpu_milli = 0;  // 1000 = one core
  int64_t memory_bytes = 0;
  int32_t gpus = 0;       // whole GPUs
  int32_t gpu_milli = 0;  // a request: share of one GPU (1..999), 0 = not sharing; see above

  // The pod asks for a share of one GPU.
  bool shares_gpu() const { return gpu_milli > 0; }
  // The pod asks for any GPU at all (whole or share): GPU model restrictions apply to it.
  bool needs_gpu() const { return gpus > 0 || gpu_milli > 0; }
  // GPU milli the request takes: 1000 per whole GPU plus the share. For a free vector this is
  // meaningless (use Cluster::node_free_milli()).
  int64_t gpu_milli_total() const { return int64_t{gpus} * kMilliPerGpu + gpu_milli; }

  // For a request against a node's free vector or capacity (see above).
  bool fits_in(const Resources& free) const {
    return cpu_milli <= free.cpu_milli && memory_bytes <= free.memory_bytes && gpus <= free.gpus &&
           (gpu_milli <= free.gpu_milli || free.gpus > 0);
  }
  // Sums of requests (JobSpec::total_request): gpu_milli adds up the shares.
  Resources& operator+=(const Resources& o) {
    cpu_milli += o.cpu_milli;
    memory_bytes += o.memory_bytes;
    gpus += o.gpus;
    gpu_milli += o.gpu_milli;
    return *this;
  }
  Resources& operator-=(const Resources& o) {
    cpu_milli -= o.cpu_milli;
    memory_bytes -= o.memory_bytes;
    gpus -= o.gpus;
    gpu_milli -= o.gpu_milli;
    return *this;
  }
  bool operator==(const Resources&) const = default;
};

}  // namespace gantry
