#pragma once
// Why a gang does not fit a live cluster (issue #23): engine/policy/unplaced_reason.hpp's words
// (what it needs and the room for it, the nodes it may not use by cause, what is free on the
// others) with the live cluster's own bars first, in this order:
//   "without a Node object"                 a model node not registered yet, or deleted
//   "not ready"                             its Ready condition is not True
//   "with allocatable unlike their class"   e.g. a device plugin restarting (live_cluster.hpp)
//   "cordoned"                              spec.unschedulable
// and its GPUs out of service (gantry.dev/unhealthy-gpus) counted as the engine's header says.

#include <span>
#include <string>
#include <string_view>

#include "adapters/kube/world/live_cluster.hpp"
#include "engine/cluster/job.hpp"
#include "engine/policy/unplaced_reason.hpp"

namespace gantry::kube {

// LiveCluster::bar() as NodeBars.
class LiveNodeBars final : public NodeBars {
 public:
  explicit LiveNodeBars(const LiveCluster& live) : live_(live) {}
  std::span<const std::string_view> causes() const override;
  int bar(NodeId n) const override;
  uint64_t unhealthy_gpus(NodeId n) const override { return live_.unhealthy_gpus(n); }

 private:
  const LiveCluster& live_;
};

// explain_unplaced() with LiveNodeBars: the text alone.
std::string unplaced_reason(const LiveCluster& live, const JobSpec& gang);

}  // namespace gantry::kube
