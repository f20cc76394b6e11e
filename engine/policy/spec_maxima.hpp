#pragma once
// The normalisation constants of the FGD paper's scoring plugins (Weng et al., USENIX ATC'23;
// the authors' simulator hkust-adsl/kubernetes-scheduler-simulator normalises CPU and GPU by
// MaxSpecCpu = 128 cores and MaxSpecGpu = 8 GPUs, pkg/type/open-gpu-share/utils/const.go).
//
// Those constants are the largest node of the Alibaba openb trace. On a cluster with a larger
// node the same formulas would leave [0, 1]; there the constant becomes that node's capacity, so
// on openb the scores are the authors' exactly and elsewhere they keep their range.

#include <algorithm>
#include <cstdint>

#include "engine/cluster/cluster.hpp"

namespace gantry {

struct SpecMaxima {
  static constexpr int64_t kPaperCpuMilli = 128000;  // MaxSpecCpu
  static constexpr int64_t kPaperGpuMilli = 8000;    // MaxSpecGpu

  int64_t cpu_milli = kPaperCpuMilli;
  int64_t gpu_milli = kPaperGpuMilli;

  // Recomputes the maxima when `cluster` is not the one they were computed for (cheap otherwise).
  void update(const Cluster& cluster) {
    if (of_ == cluster.instance_id()) return;
    of_ = cluster.instance_id();
    cpu_milli = kPaperCpuMilli;
    gpu_milli = kPaperGpuMilli;
    for (const NodeClass& c : cluster.topology().classes) {
      cpu_milli = std::max(cpu_milli, c.capacity.cpu_milli);
      gpu_milli = std::max<int64_t>(gpu_milli, int64_t{c.capacity.gpus} * kMilliPerGpu);
    }
  }

 private:
  uint64_t of_ = 0;  // Cluster::instance_id() the maxima describe (ids start at 1)
};

// ceil(a / b) for a >= 0, b > 0.
template <typename T>
constexpr T ceil_div(T a, T b) {
  return (a + b - 1) / b;
}

}  // namespace gantry
