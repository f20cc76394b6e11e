#pragma once
// Small facts about a pod that LiveScheduler's parts share (live_scheduler*.cpp): inline, so
// each part and a unity batch of them see one definition.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "adapters/kube/model/kube_pod.hpp"
#include "adapters/kube/world/pod_binder.hpp"

namespace gantry::kube {

// The GPU indices of a placement's mask, lowest first.
inline std::vector<int> gpus_of(uint64_t mask) {
  std::vector<int> out;
  for (int g = 0; g < 64; ++g)
    if ((mask >> g) & 1) out.push_back(g);
  return out;
}

inline bool terminal(const KubePod& p) { return p.phase == "Succeeded" || p.phase == "Failed"; }

inline PodRef ref_of(const KubePod& p) { return PodRef{p.namespace_name, p.name, p.uid}; }

// The gang's name without its namespace: the job's name in <job>-worker-<i> and <job>-hosts.
inline std::string job_name(const std::string& gang) { return gang.substr(gang.find('/') + 1); }

}  // namespace gantry::kube
